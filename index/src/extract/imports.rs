//! Imports as each grammar writes them, before they are resolved to files.

use super::{Import, Walk};
use crate::lang::Lang;
use tree_sitter::Node;

impl Walk<'_> {
    pub(super) fn import(&mut self, node: Node<'_>, kind: &str) {
        let statement = match self.lang {
            Lang::Python => matches!(kind, "import_statement" | "import_from_statement"),
            Lang::JavaScript | Lang::TypeScript | Lang::Tsx => {
                kind == "import_statement"
                    || (kind == "export_statement" && node.child_by_field_name("source").is_some())
            }
            Lang::Go => kind == "import_declaration",
            Lang::Rust => kind == "use_declaration",
            Lang::Java => kind == "import_declaration",
        };
        if statement {
            self.import_end = node.end_byte();
        }
        match (self.lang, kind) {
            (Lang::Python, "import_statement") => {
                for spec in self.python_imported(node) {
                    self.push_import(spec, Vec::new(), false, false);
                }
            }
            (Lang::Python, "import_from_statement") => {
                let Some(module) = node
                    .child_by_field_name("module_name")
                    .and_then(|m| self.text(m))
                else {
                    return;
                };
                let names = self.python_imported(node);
                let wildcard = {
                    let mut c = node.walk();
                    node.children(&mut c).any(|n| n.kind() == "wildcard_import")
                };
                self.push_import(module.to_owned(), names, false, wildcard);
            }
            (
                Lang::JavaScript | Lang::TypeScript | Lang::Tsx,
                "import_statement" | "export_statement",
            ) => {
                if let Some(spec) = node
                    .child_by_field_name("source")
                    .and_then(|s| self.text(s))
                {
                    self.push_import(unquote(spec), Vec::new(), false, false);
                }
            }
            (Lang::JavaScript | Lang::TypeScript | Lang::Tsx, "call_expression") => {
                let f = node.child_by_field_name("function");
                let is_require = f.is_some_and(|f| {
                    f.kind() == "import"
                        || (f.kind() == "identifier" && self.text(f) == Some("require"))
                });
                if !is_require {
                    return;
                }
                let first = node.child_by_field_name("arguments").and_then(|a| {
                    let mut c = a.walk();
                    a.named_children(&mut c).find(|n| n.kind() == "string")
                });
                if let Some(spec) = first.and_then(|s| self.text(s)) {
                    self.push_import(unquote(spec), Vec::new(), false, false);
                }
            }
            (Lang::Go, "import_spec") => {
                if let Some(spec) = node.child_by_field_name("path").and_then(|p| self.text(p)) {
                    self.push_import(unquote(spec), Vec::new(), false, false);
                }
            }
            (Lang::Rust, "use_declaration") => {
                if let Some(spec) = node
                    .child_by_field_name("argument")
                    .and_then(|a| self.text(a))
                {
                    self.push_import(spec.to_owned(), Vec::new(), false, false);
                }
            }
            (Lang::Rust, "mod_item") => {
                if node.child_by_field_name("body").is_none()
                    && let Some(name) = node.child_by_field_name("name").and_then(|n| self.text(n))
                {
                    self.push_import(name.to_owned(), Vec::new(), true, false);
                }
            }
            (Lang::Java, "import_declaration") => {
                let mut c = node.walk();
                let mut spec = None;
                let mut wildcard = false;
                for n in node.named_children(&mut c) {
                    match n.kind() {
                        "scoped_identifier" | "identifier" => spec = self.text(n),
                        "asterisk" => wildcard = true,
                        _ => {}
                    }
                }
                if let Some(spec) = spec {
                    self.push_import(spec.to_owned(), Vec::new(), false, wildcard);
                }
            }
            _ => {}
        }
    }

    /// The names an `import` or `from … import` statement takes, without
    /// their aliases.
    pub(super) fn python_imported(&self, node: Node<'_>) -> Vec<String> {
        let mut c = node.walk();
        node.children_by_field_name("name", &mut c)
            .filter_map(|n| {
                let n = if n.kind() == "aliased_import" {
                    n.child_by_field_name("name")?
                } else {
                    n
                };
                self.text(n).map(str::to_owned)
            })
            .collect()
    }

    pub(super) fn push_import(
        &mut self,
        spec: String,
        names: Vec<String>,
        module_decl: bool,
        wildcard: bool,
    ) {
        self.facts.imports.push(Import {
            spec,
            names,
            module_decl,
            wildcard,
        });
    }
}

fn unquote(s: &str) -> String {
    s.trim_matches(|c| c == '"' || c == '\'' || c == '`')
        .to_owned()
}
