//! Languages by file extension, what counts as a comment line in each, and
//! a line's code with its string literals blanked.

use super::pattern::Pattern;
use std::borrow::Cow;

static DOUBLE_QUOTED: Pattern = Pattern::new(r#""(?:[^"\\]|\\.)*""#);
static QUOTED: Pattern = Pattern::new(r#""(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'"#);

/// The language family of a file, as far as the rules need to know it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lang {
    Rust,
    Python,
    Go,
    /// JavaScript and TypeScript, with or without JSX.
    JavaScript,
    Java,
    Kotlin,
    Ruby,
    CSharp,
    /// C and C++.
    C,
    Swift,
    Php,
    Scala,
    Shell,
    Sql,
    /// YAML, TOML, INI, `.env` and similar key-value files.
    Config,
    Other,
}

impl Lang {
    /// The language of `path`, by extension (and a few well-known names).
    pub(crate) fn of(path: &str) -> Lang {
        let name = path.rsplit('/').next().unwrap_or(path);
        if name == ".env" || name.starts_with(".env.") || name == "Dockerfile" {
            return Lang::Config;
        }
        let Some((_, ext)) = name.rsplit_once('.') else {
            return Lang::Other;
        };
        // Lowered on the stack: this runs for every rule on every file.
        let mut buf = [0u8; 16];
        let Some(lower) = buf.get_mut(..ext.len()) else {
            return Lang::Other;
        };
        lower.copy_from_slice(ext.as_bytes());
        lower.make_ascii_lowercase();
        match std::str::from_utf8(lower).unwrap_or_default() {
            "rs" => Lang::Rust,
            "py" | "pyi" => Lang::Python,
            "go" => Lang::Go,
            "js" | "jsx" | "ts" | "tsx" | "mjs" | "cjs" | "mts" | "cts" => Lang::JavaScript,
            "java" => Lang::Java,
            "kt" | "kts" => Lang::Kotlin,
            "rb" | "rake" => Lang::Ruby,
            "cs" => Lang::CSharp,
            "c" | "h" | "cc" | "cpp" | "cxx" | "hpp" | "hh" | "hxx" => Lang::C,
            "swift" => Lang::Swift,
            "php" => Lang::Php,
            "scala" | "sc" => Lang::Scala,
            "sh" | "bash" | "zsh" => Lang::Shell,
            "sql" => Lang::Sql,
            "yml" | "yaml" | "toml" | "ini" | "cfg" | "conf" | "env" | "properties" => Lang::Config,
            _ => Lang::Other,
        }
    }

    /// Whether files of this language are program source (what a test
    /// would cover).
    pub(crate) fn is_source(self) -> bool {
        !matches!(self, Lang::Shell | Lang::Sql | Lang::Config | Lang::Other)
    }

    /// Whether `text` (one line) is only a comment in this language.
    pub(crate) fn is_comment(self, text: &str) -> bool {
        let t = text.trim_start();
        let slashes = t.starts_with("//")
            || t.starts_with("/*")
            || t.starts_with("* ")
            || t.starts_with("*/")
            || t == "*";
        match self {
            Lang::Python | Lang::Ruby | Lang::Shell | Lang::Config => t.starts_with('#'),
            Lang::Sql => t.starts_with("--") || t.starts_with("/*"),
            Lang::Php => slashes || t.starts_with('#'),
            Lang::Other => slashes || t.starts_with('#') || t.starts_with("--"),
            _ => slashes,
        }
    }

    /// `text` with the content of its string literals removed (`"…"` →
    /// `""`), so that a pattern matches code rather than text about code.
    /// Single quotes delimit strings except in Rust (lifetimes, chars).
    pub(crate) fn code_only(self, text: &str) -> Cow<'_, str> {
        let pattern = if self == Lang::Rust {
            &DOUBLE_QUOTED
        } else {
            &QUOTED
        };
        if !pattern.admits(text) {
            return Cow::Borrowed(text);
        }
        match pattern.regex() {
            Some(re) => re.replace_all(text, "\"\""),
            None => Cow::Borrowed(text),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn language_follows_the_extension() {
        assert_eq!(Lang::of("src/main.rs"), Lang::Rust);
        assert_eq!(Lang::of("web/App.TSX"), Lang::JavaScript);
        assert_eq!(Lang::of("deploy/.env.production"), Lang::Config);
        assert_eq!(Lang::of("Makefile"), Lang::Other);
        assert!(Lang::Go.is_source());
        assert!(!Lang::Sql.is_source());
    }

    #[test]
    fn comments_depend_on_the_language() {
        assert!(Lang::Rust.is_comment("    // x.unwrap()"));
        assert!(!Lang::Rust.is_comment("#[cfg(test)]"));
        assert!(Lang::Python.is_comment("  # eval(x)"));
        assert!(!Lang::C.is_comment("*ptr = 0;"));
        assert!(Lang::Sql.is_comment("-- DROP TABLE users;"));
    }

    #[test]
    fn code_only_blanks_string_literals() {
        assert_eq!(
            Lang::Rust.code_only(r#"f("a.unwrap()", 'a', x)"#),
            r#"f("", 'a', x)"#
        );
        assert_eq!(Lang::Python.code_only(r#"g('x\'y', "z")"#), r#"g("", "")"#);
    }
}
