//! The languages the index reads, told apart by file name.

/// A language with a tree-sitter grammar in the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Lang {
    Python,
    JavaScript,
    TypeScript,
    Tsx,
    Go,
    Rust,
    Java,
}

impl Lang {
    /// Every language, in report order.
    pub const ALL: [Lang; 7] = [
        Lang::Python,
        Lang::JavaScript,
        Lang::TypeScript,
        Lang::Tsx,
        Lang::Go,
        Lang::Rust,
        Lang::Java,
    ];

    /// The language of `path`, by its extension.
    pub fn of(path: &str) -> Option<Lang> {
        let ext = path.rsplit_once('.').map(|(_, e)| e)?;
        Some(match ext {
            "py" | "pyi" => Lang::Python,
            "js" | "jsx" | "mjs" | "cjs" => Lang::JavaScript,
            "ts" | "mts" | "cts" => Lang::TypeScript,
            "tsx" => Lang::Tsx,
            "go" => Lang::Go,
            "rs" => Lang::Rust,
            "java" => Lang::Java,
            _ => return None,
        })
    }

    /// The language [`Lang::name`] calls `name`.
    pub fn named(name: &str) -> Option<Lang> {
        Lang::ALL.into_iter().find(|l| l.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Lang::Python => "python",
            Lang::JavaScript => "javascript",
            Lang::TypeScript => "typescript",
            Lang::Tsx => "tsx",
            Lang::Go => "go",
            Lang::Rust => "rust",
            Lang::Java => "java",
        }
    }

    /// Languages whose files name each other's symbols: JavaScript and
    /// TypeScript are one family.
    pub fn family(self) -> Lang {
        match self {
            Lang::TypeScript | Lang::Tsx => Lang::JavaScript,
            other => other,
        }
    }

    /// Whether a call with the wrong number of arguments is an error the
    /// language reports (at compile time, or at run time for Python).
    pub fn checks_arity(self) -> bool {
        !matches!(self, Lang::JavaScript)
    }

    pub(crate) fn grammar(self) -> tree_sitter::Language {
        match self {
            Lang::Python => tree_sitter_python::LANGUAGE.into(),
            Lang::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Lang::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Lang::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Lang::Go => tree_sitter_go::LANGUAGE.into(),
            Lang::Rust => tree_sitter_rust::LANGUAGE.into(),
            Lang::Java => tree_sitter_java::LANGUAGE.into(),
        }
    }

    /// Node kinds that name something where they stand.
    pub(crate) fn is_name(self, kind: &str) -> bool {
        match self {
            Lang::Python => kind == "identifier",
            Lang::JavaScript | Lang::TypeScript | Lang::Tsx => matches!(
                kind,
                "identifier"
                    | "property_identifier"
                    | "shorthand_property_identifier"
                    | "shorthand_property_identifier_pattern"
                    | "type_identifier"
            ),
            Lang::Go => matches!(
                kind,
                "identifier" | "field_identifier" | "type_identifier" | "package_identifier"
            ),
            Lang::Rust => matches!(kind, "identifier" | "field_identifier" | "type_identifier"),
            Lang::Java => matches!(kind, "identifier" | "type_identifier"),
        }
    }
}
