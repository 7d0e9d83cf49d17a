//! One file's definitions, references and imports, read from its syntax
//! tree: the node kinds of each grammar that define, name, call and import.

use crate::lang::Lang;
use revu_common::code_index::SymbolKind;
use std::collections::{HashMap, HashSet};
use tree_sitter::{Node, Parser};

/// What one file defines, names and imports.
#[derive(Debug, Clone, Default)]
pub struct FileFacts {
    pub defs: Vec<Def>,
    pub refs: Vec<Ref>,
    pub imports: Vec<Import>,
    /// The tree had syntax errors (the rest of it is still read).
    pub has_errors: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Def {
    pub name: String,
    pub kind: SymbolKind,
    pub line: u32,
    pub end_line: u32,
    /// Parameters, for functions and methods.
    pub arity: Option<Arity>,
    /// A Rust method taking `self`: a path call (`T::f(x, …)`) passes it.
    pub takes_self: bool,
}

/// How many arguments a function takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arity {
    pub required: u32,
    /// `None`: any number more (`*args`, `...rest`, a variadic).
    pub max: Option<u32>,
}

impl Arity {
    pub fn accepts(self, n: u32) -> bool {
        n >= self.required && self.max.is_none_or(|m| n <= m)
    }

    /// `2`, `1 to 3`, `2 or more`.
    pub fn describe(self) -> String {
        match self.max {
            Some(m) if m == self.required => format!("{m}"),
            Some(m) => format!("{} to {m}", self.required),
            None => format!("{} or more", self.required),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ref {
    pub name: String,
    pub line: u32,
    /// Reached through an object: `x.name`, a field in a literal.
    pub member: bool,
    /// The line of the function or method around it (`None`: top level).
    pub caller: Option<u32>,
    /// The name is called with this many arguments (`None`: not a call, or
    /// arguments that cannot be counted, such as `*args`).
    pub call_args: Option<u32>,
    /// Called by path (`Type::name(…)`), which passes a Rust `self`.
    pub path_call: bool,
    /// Named in an import, not used.
    pub import: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Import {
    /// As written: `a.b`, `./util`, `github.com/x/y`, `crate::a::b`,
    /// `com.x.Y`.
    pub spec: String,
    /// Names taken from it (`from a import b, c`).
    pub names: Vec<String>,
    /// `mod name;` in Rust: the module's file is part of this one's crate.
    pub module_decl: bool,
    /// `import a.*` / `from a import *`.
    pub wildcard: bool,
}

/// Reads files of one language; one per thread.
pub struct Reader {
    parser: Parser,
    lang: Lang,
}

impl std::fmt::Debug for Reader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reader").field("lang", &self.lang).finish()
    }
}

impl Reader {
    pub fn new(lang: Lang) -> Option<Reader> {
        let mut parser = Parser::new();
        parser.set_language(&lang.grammar()).ok()?;
        Some(Reader { parser, lang })
    }

    /// The facts of `src`, keeping only the definitions and references
    /// whose name `want` accepts (imports are always kept).
    pub fn read(&mut self, src: &[u8], want: &dyn Fn(&str) -> bool) -> FileFacts {
        let Some(tree) = self.parser.parse(src, None) else {
            return FileFacts {
                has_errors: true,
                ..FileFacts::default()
            };
        };
        let mut walk = Walk {
            lang: self.lang,
            src,
            want,
            facts: FileFacts {
                has_errors: tree.root_node().has_error(),
                ..FileFacts::default()
            },
            scopes: Vec::new(),
            def_names: HashSet::new(),
            calls: HashMap::new(),
            import_end: 0,
        };
        walk.run(tree.root_node());
        walk.facts
    }
}

/// A definition around the node being read.
struct Scope {
    end_byte: usize,
    kind: SymbolKind,
    line: u32,
}

struct Walk<'a> {
    lang: Lang,
    src: &'a [u8],
    want: &'a dyn Fn(&str) -> bool,
    facts: FileFacts,
    scopes: Vec<Scope>,
    /// Name nodes that define, not reference.
    def_names: HashSet<usize>,
    /// Callee name nodes: argument count, and whether called by path.
    calls: HashMap<usize, (Option<u32>, bool)>,
    /// The end of the import statement being read, if inside one.
    import_end: usize,
}

fn line_of(node: Node<'_>) -> u32 {
    u32::try_from(node.start_position().row + 1).unwrap_or(u32::MAX)
}

fn end_line_of(node: Node<'_>) -> u32 {
    u32::try_from(node.end_position().row + 1).unwrap_or(u32::MAX)
}

impl<'a> Walk<'a> {
    fn run(&mut self, root: Node<'_>) {
        let mut cursor = root.walk();
        loop {
            let node = cursor.node();
            while self
                .scopes
                .last()
                .is_some_and(|s| s.end_byte <= node.start_byte())
            {
                self.scopes.pop();
            }
            self.visit(node);
            if cursor.goto_first_child() {
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return;
                }
            }
        }
    }

    fn text(&self, node: Node<'_>) -> Option<&'a str> {
        node.utf8_text(self.src).ok()
    }

    fn in_class(&self) -> bool {
        self.scopes
            .last()
            .is_some_and(|s| matches!(s.kind, SymbolKind::Class | SymbolKind::Type))
    }

    fn in_function(&self) -> bool {
        self.scopes
            .iter()
            .any(|s| matches!(s.kind, SymbolKind::Function | SymbolKind::Method))
    }

    fn caller(&self) -> Option<u32> {
        self.scopes
            .iter()
            .rev()
            .find(|s| matches!(s.kind, SymbolKind::Function | SymbolKind::Method))
            .map(|s| s.line)
    }

    fn visit(&mut self, node: Node<'_>) {
        let kind = node.kind();
        if self.lang.is_name(kind) {
            self.name(node);
            return;
        }
        self.definition(node, kind);
        self.call(node, kind);
        self.import(node, kind);
    }

    /// A name: a reference unless it is a definition's own name.
    fn name(&mut self, node: Node<'_>) {
        if self.def_names.contains(&node.id()) {
            return;
        }
        let Some(name) = self.text(node) else { return };
        if !(self.want)(name) {
            return;
        }
        let (call_args, path_call) = self.calls.remove(&node.id()).unwrap_or((None, false));
        let member = self.is_member(node);
        self.facts.refs.push(Ref {
            name: name.to_owned(),
            line: line_of(node),
            member,
            caller: self.caller(),
            call_args,
            path_call,
            import: node.start_byte() < self.import_end,
        });
    }

    fn is_member(&self, node: Node<'_>) -> bool {
        let kind = node.kind();
        if matches!(
            kind,
            "property_identifier"
                | "field_identifier"
                | "shorthand_property_identifier"
                | "shorthand_property_identifier_pattern"
        ) {
            return true;
        }
        let Some(parent) = node.parent() else {
            return false;
        };
        match (self.lang, parent.kind()) {
            (Lang::Python, "attribute") => parent
                .child_by_field_name("attribute")
                .is_some_and(|a| a.id() == node.id()),
            (Lang::Java, "field_access") => parent
                .child_by_field_name("field")
                .is_some_and(|a| a.id() == node.id()),
            (Lang::Java, "method_invocation") => {
                parent.child_by_field_name("object").is_some()
                    && parent
                        .child_by_field_name("name")
                        .is_some_and(|a| a.id() == node.id())
            }
            (Lang::Rust, "shorthand_field_initializer") => true,
            _ => false,
        }
    }

    fn define(&mut self, def: Node<'_>, name: Node<'_>, kind: SymbolKind, arity: Option<Arity>) {
        self.define_with(def, name, kind, arity, false);
    }

    fn define_with(
        &mut self,
        def: Node<'_>,
        name: Node<'_>,
        kind: SymbolKind,
        arity: Option<Arity>,
        takes_self: bool,
    ) {
        self.def_names.insert(name.id());
        let scoped = matches!(
            kind,
            SymbolKind::Function | SymbolKind::Method | SymbolKind::Class | SymbolKind::Type
        );
        if scoped {
            self.scopes.push(Scope {
                end_byte: def.end_byte(),
                kind,
                line: line_of(def),
            });
        }
        let Some(text) = self.text(name) else { return };
        if !(self.want)(text) {
            return;
        }
        self.facts.defs.push(Def {
            name: text.to_owned(),
            kind,
            line: line_of(def),
            end_line: end_line_of(def),
            arity,
            takes_self,
        });
    }

    fn function_kind(&self) -> SymbolKind {
        if self.in_class() {
            SymbolKind::Method
        } else {
            SymbolKind::Function
        }
    }

    fn definition(&mut self, node: Node<'_>, kind: &str) {
        let name = node.child_by_field_name("name");
        match (self.lang, kind) {
            (Lang::Python, "function_definition") => {
                let Some(name) = name else { return };
                let fkind = self.function_kind();
                let arity = node
                    .child_by_field_name("parameters")
                    .map(|p| self.python_arity(p, fkind == SymbolKind::Method));
                self.define(node, name, fkind, arity);
            }
            (Lang::Python, "class_definition") => {
                if let Some(name) = name {
                    self.define(node, name, SymbolKind::Class, None);
                }
            }
            (Lang::Python, "assignment") => self.python_assignment(node),
            (
                Lang::JavaScript | Lang::TypeScript | Lang::Tsx,
                "function_declaration"
                | "generator_function_declaration"
                | "function_signature"
                | "method_definition"
                | "method_signature"
                | "abstract_method_signature",
            ) => {
                let Some(name) = name else { return };
                let fkind = if kind.starts_with("method") || kind.starts_with("abstract") {
                    SymbolKind::Method
                } else {
                    self.function_kind()
                };
                let arity = node
                    .child_by_field_name("parameters")
                    .map(|p| self.js_arity(p));
                self.define(node, name, fkind, arity);
            }
            (
                Lang::JavaScript | Lang::TypeScript | Lang::Tsx,
                "class_declaration" | "abstract_class_declaration" | "class",
            ) => {
                if let Some(name) = name {
                    self.define(node, name, SymbolKind::Class, None);
                }
            }
            (
                Lang::JavaScript | Lang::TypeScript | Lang::Tsx,
                "interface_declaration" | "type_alias_declaration" | "enum_declaration",
            ) => {
                if let Some(name) = name {
                    self.define(node, name, SymbolKind::Type, None);
                }
            }
            (
                Lang::JavaScript | Lang::TypeScript | Lang::Tsx,
                "field_definition" | "public_field_definition" | "property_signature",
            ) => {
                let name = name.or_else(|| node.child_by_field_name("property"));
                if let Some(name) = name {
                    self.define(node, name, SymbolKind::Property, None);
                }
            }
            (Lang::JavaScript | Lang::TypeScript | Lang::Tsx, "variable_declarator") => {
                let Some(name) = name.filter(|n| n.kind() == "identifier") else {
                    return;
                };
                let value = node.child_by_field_name("value");
                match value.map(|v| v.kind()) {
                    Some("arrow_function" | "function_expression" | "function") => {
                        let arity = value.and_then(|v| {
                            v.child_by_field_name("parameters")
                                .map(|p| self.js_arity(p))
                                .or_else(|| {
                                    v.child_by_field_name("parameter").map(|_| Arity {
                                        required: 1,
                                        max: Some(1),
                                    })
                                })
                        });
                        self.define(node, name, SymbolKind::Function, arity);
                    }
                    _ if !self.in_function() => {
                        self.define(node, name, SymbolKind::Variable, None);
                    }
                    _ => {}
                }
            }
            (Lang::JavaScript | Lang::TypeScript | Lang::Tsx, "assignment_expression") => {
                let Some(left) = node.child_by_field_name("left") else {
                    return;
                };
                if left.kind() == "member_expression"
                    && left
                        .child_by_field_name("object")
                        .is_some_and(|o| o.kind() == "this")
                    && let Some(prop) = left.child_by_field_name("property")
                {
                    self.define(node, prop, SymbolKind::Property, None);
                }
            }
            (Lang::Go, "function_declaration" | "method_declaration") => {
                let Some(name) = name else { return };
                let fkind = if kind == "method_declaration" {
                    SymbolKind::Method
                } else {
                    SymbolKind::Function
                };
                let arity = node
                    .child_by_field_name("parameters")
                    .map(|p| self.go_arity(p));
                self.define(node, name, fkind, arity);
            }
            (Lang::Go, "type_spec" | "type_alias") => {
                if let Some(name) = name {
                    self.define(node, name, SymbolKind::Type, None);
                }
            }
            (Lang::Go, "field_declaration") => {
                let names: Vec<Node<'_>> = {
                    let mut c = node.walk();
                    node.children_by_field_name("name", &mut c).collect()
                };
                for n in names {
                    self.define(node, n, SymbolKind::Property, None);
                }
            }
            (Lang::Go, "method_elem" | "method_spec") => {
                if let Some(name) = name {
                    let arity = node
                        .child_by_field_name("parameters")
                        .map(|p| self.go_arity(p));
                    self.define(node, name, SymbolKind::Method, arity);
                }
            }
            (Lang::Go, "const_spec" | "var_spec") if !self.in_function() => {
                let names: Vec<Node<'_>> = {
                    let mut c = node.walk();
                    node.children_by_field_name("name", &mut c).collect()
                };
                for n in names {
                    self.define(node, n, SymbolKind::Variable, None);
                }
            }
            (Lang::Rust, "function_item" | "function_signature_item") => {
                let Some(name) = name else { return };
                let fkind = if self.in_class() {
                    SymbolKind::Method
                } else {
                    SymbolKind::Function
                };
                let params = node.child_by_field_name("parameters");
                let arity = params.map(|p| self.rust_arity(p));
                let takes_self = params.is_some_and(|p| {
                    let mut c = p.walk();
                    p.named_children(&mut c)
                        .any(|n| n.kind() == "self_parameter")
                });
                self.define_with(node, name, fkind, arity, takes_self);
            }
            (Lang::Rust, "struct_item" | "enum_item" | "union_item" | "type_item") => {
                if let Some(name) = name {
                    self.define(node, name, SymbolKind::Type, None);
                }
            }
            (Lang::Rust, "trait_item") => {
                if let Some(name) = name {
                    self.define(node, name, SymbolKind::Type, None);
                }
            }
            (Lang::Rust, "impl_item") => {
                // Methods inside are methods; the impl names no new symbol.
                self.scopes.push(Scope {
                    end_byte: node.end_byte(),
                    kind: SymbolKind::Type,
                    line: line_of(node),
                });
            }
            (Lang::Rust, "field_declaration") => {
                if let Some(name) = name {
                    self.define(node, name, SymbolKind::Property, None);
                }
            }
            (Lang::Rust, "const_item" | "static_item" | "enum_variant" | "macro_definition") => {
                if let Some(name) = name {
                    self.define(node, name, SymbolKind::Variable, None);
                }
            }
            (
                Lang::Java,
                "class_declaration"
                | "interface_declaration"
                | "enum_declaration"
                | "record_declaration"
                | "annotation_type_declaration",
            ) => {
                if let Some(name) = name {
                    self.define(node, name, SymbolKind::Class, None);
                }
            }
            (Lang::Java, "method_declaration") => {
                let Some(name) = name else { return };
                let arity = node
                    .child_by_field_name("parameters")
                    .map(|p| self.java_arity(p));
                self.define(node, name, SymbolKind::Method, arity);
            }
            (Lang::Java, "field_declaration" | "constant_declaration") => {
                let declarators: Vec<Node<'_>> = {
                    let mut c = node.walk();
                    node.children_by_field_name("declarator", &mut c).collect()
                };
                for d in declarators {
                    if let Some(n) = d.child_by_field_name("name") {
                        self.define(node, n, SymbolKind::Property, None);
                    }
                }
            }
            _ => {}
        }
    }

    fn python_assignment(&mut self, node: Node<'_>) {
        let Some(left) = node.child_by_field_name("left") else {
            return;
        };
        match left.kind() {
            "identifier" if self.in_class() => {
                self.define(node, left, SymbolKind::Property, None);
            }
            "identifier" if self.scopes.is_empty() => {
                self.define(node, left, SymbolKind::Variable, None);
            }
            "attribute" => {
                let on_self = left
                    .child_by_field_name("object")
                    .and_then(|o| self.text(o))
                    .is_some_and(|o| o == "self");
                let in_method = self.scopes.iter().any(|s| s.kind == SymbolKind::Method);
                if on_self
                    && in_method
                    && let Some(attr) = left.child_by_field_name("attribute")
                {
                    self.define(node, attr, SymbolKind::Property, None);
                }
            }
            _ => {}
        }
    }

    fn python_arity(&self, params: Node<'_>, method: bool) -> Arity {
        let mut required = 0u32;
        let mut optional = 0u32;
        let mut variadic = false;
        let mut first = true;
        let mut c = params.walk();
        for p in params.named_children(&mut c) {
            let is_first = std::mem::take(&mut first);
            match p.kind() {
                "identifier" => {
                    let receiver = method
                        && is_first
                        && self.text(p).is_some_and(|t| t == "self" || t == "cls");
                    if !receiver {
                        required += 1;
                    }
                }
                "typed_parameter" => {
                    let splat = {
                        let mut c2 = p.walk();
                        p.named_children(&mut c2).any(|n| {
                            matches!(n.kind(), "list_splat_pattern" | "dictionary_splat_pattern")
                        })
                    };
                    if splat {
                        variadic = true;
                    } else {
                        required += 1;
                    }
                }
                "default_parameter" | "typed_default_parameter" => optional += 1,
                "list_splat_pattern" | "dictionary_splat_pattern" => variadic = true,
                _ => {}
            }
        }
        Arity {
            required,
            max: (!variadic).then_some(required + optional),
        }
    }

    fn js_arity(&self, params: Node<'_>) -> Arity {
        let mut required = 0u32;
        let mut optional = 0u32;
        let mut variadic = false;
        let mut c = params.walk();
        for p in params.named_children(&mut c) {
            match p.kind() {
                "identifier" | "object_pattern" | "array_pattern" => required += 1,
                "required_parameter" => {
                    let rest = p
                        .child_by_field_name("pattern")
                        .is_some_and(|n| n.kind() == "rest_pattern");
                    let this = p
                        .child_by_field_name("pattern")
                        .is_some_and(|n| n.kind() == "this");
                    if rest {
                        variadic = true;
                    } else if this {
                    } else if p.child_by_field_name("value").is_some() {
                        optional += 1;
                    } else {
                        required += 1;
                    }
                }
                "optional_parameter" | "assignment_pattern" => optional += 1,
                "rest_pattern" => variadic = true,
                _ => {}
            }
        }
        Arity {
            required,
            max: (!variadic).then_some(required + optional),
        }
    }

    fn go_arity(&self, params: Node<'_>) -> Arity {
        let mut required = 0u32;
        let mut variadic = false;
        let mut c = params.walk();
        for p in params.named_children(&mut c) {
            match p.kind() {
                "parameter_declaration" => {
                    let mut c2 = p.walk();
                    let names = p.children_by_field_name("name", &mut c2).count();
                    required += u32::try_from(names.max(1)).unwrap_or(u32::MAX);
                }
                "variadic_parameter_declaration" => variadic = true,
                _ => {}
            }
        }
        Arity {
            required,
            max: (!variadic).then_some(required),
        }
    }

    fn rust_arity(&self, params: Node<'_>) -> Arity {
        counted_arity(params, "parameter", "variadic_parameter")
    }

    fn java_arity(&self, params: Node<'_>) -> Arity {
        counted_arity(params, "formal_parameter", "spread_parameter")
    }

    /// Notes the callee of a call and its argument count, for when its
    /// name node is reached.
    fn call(&mut self, node: Node<'_>, kind: &str) {
        let (callee, args, path_call) = match (self.lang, kind) {
            (Lang::Python, "call") => {
                let f = node.child_by_field_name("function");
                let callee = f.and_then(|f| match f.kind() {
                    "identifier" => Some(f),
                    "attribute" => f.child_by_field_name("attribute"),
                    _ => None,
                });
                (callee, node.child_by_field_name("arguments"), false)
            }
            (Lang::JavaScript | Lang::TypeScript | Lang::Tsx, "call_expression") => {
                let f = node.child_by_field_name("function");
                let callee = f.and_then(|f| match f.kind() {
                    "identifier" => Some(f),
                    "member_expression" => f.child_by_field_name("property"),
                    _ => None,
                });
                (callee, node.child_by_field_name("arguments"), false)
            }
            (Lang::Go, "call_expression") => {
                let f = node.child_by_field_name("function");
                let callee = f.and_then(|f| match f.kind() {
                    "identifier" => Some(f),
                    "selector_expression" => f.child_by_field_name("field"),
                    _ => None,
                });
                (callee, node.child_by_field_name("arguments"), false)
            }
            (Lang::Rust, "call_expression") => {
                let f = node.child_by_field_name("function");
                let (callee, path) = match f.map(|f| (f, f.kind())) {
                    Some((f, "identifier")) => (Some(f), false),
                    Some((f, "field_expression")) => (f.child_by_field_name("field"), false),
                    Some((f, "scoped_identifier")) => (f.child_by_field_name("name"), true),
                    _ => (None, false),
                };
                (callee, node.child_by_field_name("arguments"), path)
            }
            (Lang::Java, "method_invocation") => (
                node.child_by_field_name("name"),
                node.child_by_field_name("arguments"),
                false,
            ),
            _ => return,
        };
        let Some(callee) = callee else { return };
        let count = args.and_then(count_arguments);
        self.calls.insert(callee.id(), (count, path_call));
    }

    fn import(&mut self, node: Node<'_>, kind: &str) {
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
    fn python_imported(&self, node: Node<'_>) -> Vec<String> {
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

    fn push_import(&mut self, spec: String, names: Vec<String>, module_decl: bool, wildcard: bool) {
        self.facts.imports.push(Import {
            spec,
            names,
            module_decl,
            wildcard,
        });
    }
}

/// Parameters of one `required` kind each, any of kind `variadic` making
/// the count open-ended (Rust, Java: no defaults).
fn counted_arity(params: Node<'_>, required: &str, variadic: &str) -> Arity {
    let mut n = 0u32;
    let mut open = false;
    let mut c = params.walk();
    for p in params.named_children(&mut c) {
        if p.kind() == required {
            n += 1;
        } else if p.kind() == variadic {
            open = true;
        }
    }
    Arity {
        required: n,
        max: (!open).then_some(n),
    }
}

/// The arguments of a call, or `None` when one is spread (`*args`,
/// `...xs`, `xs...`) and the count says nothing.
fn count_arguments(args: Node<'_>) -> Option<u32> {
    let mut n = 0u32;
    let mut c = args.walk();
    for a in args.children(&mut c) {
        match a.kind() {
            "list_splat" | "dictionary_splat" | "spread_element" | "variadic_argument" | "..." => {
                return None;
            }
            "comment" | "line_comment" | "block_comment" | "attribute_item" => {}
            _ if a.is_named() => n += 1,
            _ => {}
        }
    }
    // A Python generator argument, `f(x for x in y)`, is one argument.
    if args.kind() == "generator_expression" {
        return Some(1);
    }
    Some(n)
}

fn unquote(s: &str) -> String {
    s.trim_matches(|c| c == '"' || c == '\'' || c == '`')
        .to_owned()
}
