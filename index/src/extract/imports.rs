//! Imports as each grammar writes them, before they are resolved to files.

use super::{Import, Walk};
use crate::lang::Lang;
use tree_sitter::Node;

impl Walk<'_, '_> {
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
                let mut c = node.walk();
                let names: Vec<Node<'_>> = node.children_by_field_name("name", &mut c).collect();
                for n in names {
                    let (module, alias) = match n.kind() {
                        "aliased_import" => (
                            n.child_by_field_name("name"),
                            n.child_by_field_name("alias").and_then(|a| self.text(a)),
                        ),
                        _ => (Some(n), None),
                    };
                    let Some(spec) = module.and_then(|m| self.text(m)) else {
                        continue;
                    };
                    // `import a.b` binds `a`; `import a.b as c` binds `c`.
                    let bound = alias
                        .unwrap_or_else(|| spec.split('.').next().unwrap_or(spec))
                        .to_owned();
                    self.push_import(spec.to_owned(), Vec::new(), false, false, vec![bound]);
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
                let bound = self.python_bound(node);
                let wildcard = {
                    let mut c = node.walk();
                    node.children(&mut c).any(|n| n.kind() == "wildcard_import")
                };
                self.push_import(module.to_owned(), names, false, wildcard, bound);
            }
            (
                Lang::JavaScript | Lang::TypeScript | Lang::Tsx,
                "import_statement" | "export_statement",
            ) => {
                if let Some(spec) = node
                    .child_by_field_name("source")
                    .and_then(|s| self.text(s))
                {
                    let bound = if kind == "import_statement" {
                        self.script_bound(node)
                    } else {
                        Vec::new()
                    };
                    self.push_import(unquote(spec), Vec::new(), false, false, bound);
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
                    // `const x = require(…)`, `const { a, b: c } = require(…)`.
                    let bound = node
                        .parent()
                        .filter(|p| p.kind() == "variable_declarator")
                        .and_then(|p| p.child_by_field_name("name"))
                        .map(|n| self.pattern_names(n))
                        .unwrap_or_default();
                    self.push_import(unquote(spec), Vec::new(), false, false, bound);
                }
            }
            (Lang::Go, "import_spec") => {
                if let Some(spec) = node.child_by_field_name("path").and_then(|p| self.text(p)) {
                    let spec = unquote(spec);
                    let alias = node.child_by_field_name("name").and_then(|n| self.text(n));
                    let bound = match alias {
                        Some("_" | ".") => Vec::new(),
                        Some(a) => vec![a.to_owned()],
                        None => vec![go_package_name(&spec)],
                    };
                    let wildcard = alias == Some(".");
                    self.push_import(spec, Vec::new(), false, wildcard, bound);
                }
            }
            (Lang::Rust, "use_declaration") => {
                if let Some(arg) = node.child_by_field_name("argument")
                    && let Some(spec) = self.text(arg)
                {
                    let mut bound = Vec::new();
                    self.rust_bound(arg, &mut bound);
                    let wildcard = arg.kind() == "use_wildcard";
                    self.push_import(spec.to_owned(), Vec::new(), false, wildcard, bound);
                }
            }
            (Lang::Rust, "mod_item") => {
                if node.child_by_field_name("body").is_none()
                    && let Some(name) = node.child_by_field_name("name").and_then(|n| self.text(n))
                {
                    let bound = vec![name.to_owned()];
                    self.push_import(name.to_owned(), Vec::new(), true, false, bound);
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
                    let bound = if wildcard {
                        Vec::new()
                    } else {
                        spec.rsplit('.')
                            .next()
                            .map(str::to_owned)
                            .into_iter()
                            .collect()
                    };
                    self.push_import(spec.to_owned(), Vec::new(), false, wildcard, bound);
                }
            }
            _ => {}
        }
    }

    /// The names an `import` or `from … import` statement takes, without
    /// their aliases.
    pub(super) fn python_imported(&self, node: Node<'_>) -> Vec<String> {
        self.python_names(node, "name")
    }

    /// The names a `from … import` binds: each alias, else the name.
    fn python_bound(&self, node: Node<'_>) -> Vec<String> {
        self.python_names(node, "alias")
    }

    /// Each imported name of `node`, or for an aliased one its `field`
    /// (`name` or `alias`).
    fn python_names(&self, node: Node<'_>, field: &str) -> Vec<String> {
        let mut c = node.walk();
        node.children_by_field_name("name", &mut c)
            .filter_map(|n| {
                let n = if n.kind() == "aliased_import" {
                    n.child_by_field_name(field)?
                } else {
                    n
                };
                self.text(n).map(str::to_owned)
            })
            .collect()
    }

    /// The names an ES `import` binds: the default, each named import
    /// under its alias, a namespace.
    fn script_bound(&self, node: Node<'_>) -> Vec<String> {
        let mut out = Vec::new();
        let mut c = node.walk();
        let Some(clause) = node
            .named_children(&mut c)
            .find(|n| n.kind() == "import_clause")
        else {
            return out;
        };
        let mut stack = vec![clause];
        while let Some(n) = stack.pop() {
            match n.kind() {
                "identifier" => out.extend(self.text(n).map(str::to_owned)),
                "import_specifier" => {
                    let bound = n
                        .child_by_field_name("alias")
                        .or_else(|| n.child_by_field_name("name"));
                    out.extend(bound.and_then(|b| self.text(b)).map(str::to_owned));
                }
                _ => {
                    let mut c = n.walk();
                    stack.extend(n.named_children(&mut c));
                }
            }
        }
        out
    }

    /// The plain names a destructuring pattern binds.
    fn pattern_names(&self, node: Node<'_>) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            match n.kind() {
                "identifier" | "shorthand_property_identifier_pattern" => {
                    out.extend(self.text(n).map(str::to_owned));
                }
                "pair_pattern" => stack.extend(n.child_by_field_name("value")),
                _ => {
                    let mut c = n.walk();
                    stack.extend(n.named_children(&mut c));
                }
            }
        }
        out
    }

    /// The names a Rust `use` tree binds.
    fn rust_bound(&self, node: Node<'_>, out: &mut Vec<String>) {
        match node.kind() {
            "identifier" | "crate" | "super" | "self" => {
                out.extend(self.text(node).map(str::to_owned));
            }
            "scoped_identifier" => {
                let name = node.child_by_field_name("name");
                match name.and_then(|n| self.text(n)) {
                    // `use a::b::{self}` binds `b`.
                    Some("self") => {
                        if let Some(p) = node.child_by_field_name("path") {
                            self.rust_bound(p, out);
                        }
                    }
                    Some(n) => out.push(n.to_owned()),
                    None => {}
                }
            }
            "use_as_clause" => {
                out.extend(
                    node.child_by_field_name("alias")
                        .and_then(|a| self.text(a))
                        .map(str::to_owned),
                );
            }
            "scoped_use_list" => {
                if let Some(list) = node.child_by_field_name("list") {
                    self.rust_bound(list, out);
                }
            }
            "use_list" => {
                let mut c = node.walk();
                let items: Vec<Node<'_>> = node.named_children(&mut c).collect();
                for item in items {
                    self.rust_bound(item, out);
                }
            }
            _ => {}
        }
    }

    pub(super) fn push_import(
        &mut self,
        spec: String,
        names: Vec<String>,
        module_decl: bool,
        wildcard: bool,
        bound: Vec<String>,
    ) {
        let local = self.in_function();
        self.facts.imports.push(Import {
            spec,
            names,
            module_decl,
            wildcard,
            bound,
            local,
        });
    }
}

/// The name a Go import path's package goes by, by the conventions of
/// import paths: `gopkg.in/yaml.v3` → `yaml`, `github.com/x/go-isatty` →
/// `isatty`, `example.com/mod/v2` → `mod`.
fn go_package_name(spec: &str) -> String {
    let mut segs = spec.rsplit('/');
    let mut last = segs.next().unwrap_or(spec);
    let is_version = |s: &str| {
        s.strip_prefix('v')
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    if is_version(last)
        && let Some(prev) = segs.next()
    {
        last = prev;
    }
    let last = last.strip_prefix("go-").unwrap_or(last);
    let last = last.strip_suffix(".go").unwrap_or(last);
    let last = last.split('.').next().unwrap_or(last);
    last.replace('-', "_")
}

fn unquote(s: &str) -> String {
    s.trim_matches(|c| c == '"' || c == '\'' || c == '`')
        .to_owned()
}
