//! A function's locals, per grammar: its parameters and every name its
//! body binds (assignments, declarations, loop and pattern variables,
//! `with`/`catch` names, nested functions), with what each declaration
//! says the value is (a declared type, a constructor, the name it is
//! computed from). Nested functions are left to themselves; a class's
//! fields and their declared types, for `this.field` receivers.

use super::bind::is_this;
use crate::lang::Lang;
use std::collections::{HashMap, HashSet};
use tree_sitter::Node;

/// What a local's declaration says of its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Origin {
    /// Declared or constructed as `ty`, whose first name is `first`.
    Typed {
        ty: String,
        first: String,
    },
    /// Computed from an expression whose first name is `root`.
    Derived {
        root: String,
    },
    Unknown,
}

/// A function's locals.
#[derive(Debug, Default)]
pub(super) struct Locals {
    pub names: HashMap<String, Origin>,
    /// Python `global` / `nonlocal` names: not locals, whatever binds them.
    pub globals: HashSet<String>,
}

/// Node kinds that open a function scope (a lambda and a closure too).
pub(super) fn is_function(lang: Lang, kind: &str) -> bool {
    match lang {
        Lang::Python => matches!(
            kind,
            "function_definition"
                | "lambda"
                | "list_comprehension"
                | "set_comprehension"
                | "dictionary_comprehension"
                | "generator_expression"
        ),
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => matches!(
            kind,
            "function_declaration"
                | "generator_function_declaration"
                | "function_expression"
                | "function"
                | "generator_function"
                | "arrow_function"
                | "method_definition"
        ),
        Lang::Go => matches!(
            kind,
            "function_declaration" | "method_declaration" | "func_literal"
        ),
        Lang::Rust => matches!(kind, "function_item" | "closure_expression"),
        Lang::Java => matches!(
            kind,
            "method_declaration"
                | "constructor_declaration"
                | "compact_constructor_declaration"
                | "lambda_expression"
        ),
    }
}

/// Node kinds that declare a class inside a function (its name is a local;
/// its body is not read).
fn is_nested_class(lang: Lang, kind: &str) -> bool {
    match lang {
        Lang::Python => kind == "class_definition",
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => {
            matches!(kind, "class_declaration" | "class")
        }
        Lang::Java => matches!(
            kind,
            "class_declaration" | "record_declaration" | "enum_declaration"
        ),
        Lang::Rust => matches!(kind, "struct_item" | "enum_item" | "impl_item"),
        Lang::Go => false,
    }
}

/// The text of `node`.
fn text<'s>(src: &'s [u8], node: Node<'_>) -> Option<&'s str> {
    node.utf8_text(src).ok()
}

/// A type expression's own name and its first name: `ssl.SSLContext` →
/// (`SSLContext`, `ssl`), `Comparator<T>` → (`Comparator`, `Comparator`),
/// `&mut Store` → (`Store`, `Store`).
pub(super) fn type_names(lang: Lang, src: &[u8], node: Node<'_>) -> Option<(String, String)> {
    match node.kind() {
        "identifier" | "type_identifier" | "package_identifier" => {
            let t = text(src, node)?.to_owned();
            Some((t.clone(), t))
        }
        "attribute"
        | "member_expression"
        | "scoped_type_identifier"
        | "scoped_identifier"
        | "qualified_type"
        | "nested_type_identifier"
        | "selector_expression" => {
            let last = ["attribute", "property", "name", "field"]
                .iter()
                .find_map(|f| node.child_by_field_name(f))
                .or_else(|| {
                    let last = u32::try_from(node.named_child_count())
                        .ok()?
                        .checked_sub(1)?;
                    node.named_child(last)
                })?;
            let ty = text(src, last)?.to_owned();
            let first = first_name(lang, src, node)?;
            Some((ty, first))
        }
        "type" | "type_annotation" | "pointer_type" | "reference_type" | "generic_type"
        | "array_type" | "parenthesized_type" | "catch_type" => {
            let inner = node
                .child_by_field_name("type")
                .or_else(|| node.child_by_field_name("name"))
                .or_else(|| {
                    let mut c = node.walk();
                    node.named_children(&mut c).find(|n| {
                        !matches!(
                            n.kind(),
                            "type_arguments" | "mutable_specifier" | "lifetime"
                        )
                    })
                })?;
            type_names(lang, src, inner)
        }
        _ => None,
    }
}

/// The leftmost name of an expression (`a.b().c` → `a`), through calls,
/// member accesses, awaits and parentheses; `None` for `self`/`this` or
/// anything that starts with something else.
pub(super) fn first_name(lang: Lang, src: &[u8], node: Node<'_>) -> Option<String> {
    let mut n = node;
    for _ in 0..64 {
        if matches!(
            n.kind(),
            "identifier" | "type_identifier" | "package_identifier"
        ) {
            let t = text(src, n)?;
            return (!is_this(lang, t)).then(|| t.to_owned());
        }
        n = [
            "object",
            "function",
            "operand",
            "value",
            "path",
            "scope",
            "package",
            "constructor",
            "type",
        ]
        .iter()
        .find_map(|f| n.child_by_field_name(f))
        .or_else(|| {
            matches!(
                n.kind(),
                "await"
                    | "await_expression"
                    | "parenthesized_expression"
                    | "try_expression"
                    | "non_null_expression"
                    | "unary_expression"
                    | "reference_expression"
                    | "generic_type"
                    | "scoped_type_identifier"
                    | "method_reference"
            )
            .then(|| n.named_child(0))
            .flatten()
        })?;
    }
    None
}

/// Collects one function's locals: what [`Locals`] holds, and the name
/// nodes that bind them.
struct Collector<'s> {
    lang: Lang,
    src: &'s [u8],
    locals: Locals,
    binders: Vec<usize>,
}

/// The locals of the function at `node`, and the ids of the name nodes
/// that bind them.
pub(super) fn collect(lang: Lang, node: Node<'_>, src: &[u8]) -> (Locals, Vec<usize>) {
    let mut c = Collector {
        lang,
        src,
        locals: Locals::default(),
        binders: Vec::new(),
    };
    c.params(node);
    if let Some(body) = node.child_by_field_name("body") {
        c.body(body);
    }
    if matches!(
        node.kind(),
        "list_comprehension"
            | "set_comprehension"
            | "dictionary_comprehension"
            | "generator_expression"
    ) {
        let mut cur = node.walk();
        for clause in node.named_children(&mut cur) {
            c.body(clause);
        }
    }
    (c.locals, c.binders)
}

impl Collector<'_> {
    fn bind(&mut self, name: Node<'_>, origin: Origin) {
        let Some(t) = text(self.src, name) else {
            return;
        };
        if is_this(self.lang, t) {
            return;
        }
        self.binders.push(name.id());
        self.locals
            .names
            .entry(t.to_owned())
            .and_modify(|o| {
                if *o == Origin::Unknown {
                    *o = origin.clone();
                }
            })
            .or_insert(origin);
    }

    fn typed(&self, ty: Option<Node<'_>>) -> Origin {
        ty.and_then(|t| type_names(self.lang, self.src, t))
            .map_or(Origin::Unknown, |(ty, first)| Origin::Typed { ty, first })
    }

    /// What a value expression makes: an instance of the class it
    /// constructs, or something computed from its first name.
    fn value(&self, value: Option<Node<'_>>) -> Origin {
        let Some(v) = value else {
            return Origin::Unknown;
        };
        let constructed = match (self.lang, v.kind()) {
            (Lang::JavaScript | Lang::TypeScript | Lang::Tsx, "new_expression") => {
                v.child_by_field_name("constructor")
            }
            (Lang::Java, "object_creation_expression") => v.child_by_field_name("type"),
            (Lang::Go, "composite_literal") => v.child_by_field_name("type"),
            (Lang::Go, "unary_expression") => v
                .child_by_field_name("operand")
                .filter(|o| o.kind() == "composite_literal")
                .and_then(|o| o.child_by_field_name("type")),
            (Lang::Rust, "struct_expression") => v.child_by_field_name("name"),
            (Lang::Rust, "call_expression") => v
                .child_by_field_name("function")
                .filter(|f| f.kind() == "scoped_identifier")
                .and_then(|f| f.child_by_field_name("path"))
                .filter(|p| self.capitalised(*p)),
            // `Foo(...)` and `mod.Foo(...)`: a class by the convention of
            // its capital.
            (Lang::Python, "call") => v.child_by_field_name("function").filter(|f| {
                let last = match f.kind() {
                    "attribute" => f.child_by_field_name("attribute"),
                    _ => Some(*f),
                };
                last.is_some_and(|l| self.capitalised(l))
            }),
            _ => None,
        };
        if let Some(t) = constructed
            && let Some((ty, first)) = type_names(self.lang, self.src, t)
        {
            return Origin::Typed { ty, first };
        }
        match first_name(self.lang, self.src, v) {
            Some(root) => Origin::Derived { root },
            None => Origin::Unknown,
        }
    }

    fn capitalised(&self, node: Node<'_>) -> bool {
        text(self.src, node)
            .and_then(|t| t.chars().next())
            .is_some_and(char::is_uppercase)
    }

    /// The parameters of the function at `node`.
    fn params(&mut self, node: Node<'_>) {
        for field in ["parameters", "parameter", "receiver", "result"] {
            let Some(list) = node.child_by_field_name(field) else {
                continue;
            };
            if matches!(list.kind(), "identifier") {
                self.bind(list, Origin::Unknown);
                continue;
            }
            let mut c = list.walk();
            let params: Vec<Node<'_>> = list.named_children(&mut c).collect();
            for p in params {
                self.param(p);
            }
        }
    }

    fn param(&mut self, p: Node<'_>) {
        match (self.lang, p.kind()) {
            (_, "identifier") => self.bind(p, Origin::Unknown),
            (Lang::Python, "typed_parameter") => {
                let origin = self.typed(p.child_by_field_name("type"));
                if let Some(n) = p.named_child(0) {
                    self.target(n, origin);
                }
            }
            (Lang::Python, "default_parameter" | "typed_default_parameter") => {
                let origin = self.typed(p.child_by_field_name("type"));
                if let Some(n) = p.child_by_field_name("name") {
                    self.target(n, origin);
                }
            }
            (Lang::Python, "list_splat_pattern" | "dictionary_splat_pattern") => {
                self.target(p, Origin::Unknown);
            }
            (
                Lang::JavaScript | Lang::TypeScript | Lang::Tsx,
                "required_parameter" | "optional_parameter",
            ) => {
                let origin = self.typed(p.child_by_field_name("type"));
                if let Some(n) = p.child_by_field_name("pattern") {
                    self.pattern(n, origin);
                }
            }
            (Lang::JavaScript | Lang::TypeScript | Lang::Tsx, _) => {
                self.pattern(p, Origin::Unknown);
            }
            (Lang::Go, "parameter_declaration" | "variadic_parameter_declaration") => {
                let origin = self.typed(p.child_by_field_name("type"));
                let mut c = p.walk();
                let names: Vec<Node<'_>> = p.children_by_field_name("name", &mut c).collect();
                for n in names {
                    self.bind(n, origin.clone());
                }
            }
            (Lang::Rust, "parameter") => {
                let origin = self.typed(p.child_by_field_name("type"));
                if let Some(n) = p.child_by_field_name("pattern") {
                    self.pattern(n, origin);
                }
            }
            (Lang::Rust, _) => self.pattern(p, Origin::Unknown),
            (Lang::Java, "formal_parameter" | "catch_formal_parameter") => {
                let ty = p
                    .child_by_field_name("type")
                    .or_else(|| first_of_kind(p, "catch_type"));
                let origin = self.typed(ty);
                if let Some(n) = p.child_by_field_name("name") {
                    self.bind(n, origin);
                }
            }
            (Lang::Java, "spread_parameter") => {
                if let Some(d) = first_of_kind(p, "variable_declarator")
                    && let Some(n) = d.child_by_field_name("name")
                {
                    self.bind(n, Origin::Unknown);
                }
            }
            (Lang::Java, "inferred_parameters" | "formal_parameters") => {
                let mut c = p.walk();
                let inner: Vec<Node<'_>> = p.named_children(&mut c).collect();
                for i in inner {
                    self.param(i);
                }
            }
            _ => {}
        }
    }

    /// The statements of a body, down to (not into) nested functions.
    fn body(&mut self, node: Node<'_>) {
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            let kind = n.kind();
            if is_function(self.lang, kind) || is_nested_class(self.lang, kind) {
                // A nested named function or class binds its name here.
                let declares = matches!(
                    kind,
                    "function_definition"
                        | "class_definition"
                        | "function_declaration"
                        | "generator_function_declaration"
                        | "class_declaration"
                        | "function_item"
                        | "struct_item"
                        | "enum_item"
                        | "record_declaration"
                        | "enum_declaration"
                );
                if declares && let Some(name) = n.child_by_field_name("name") {
                    self.bind(name, Origin::Unknown);
                }
                continue;
            }
            self.statement(n);
            let mut c = n.walk();
            for child in n.named_children(&mut c) {
                stack.push(child);
            }
        }
    }

    /// The names one node binds, if it is a binding construct.
    fn statement(&mut self, n: Node<'_>) {
        match (self.lang, n.kind()) {
            (Lang::Python, "assignment") => {
                let ty = n.child_by_field_name("type");
                let right = n.child_by_field_name("right");
                let origin = if ty.is_some() {
                    self.typed(ty)
                } else {
                    self.value(right)
                };
                if let Some(left) = n.child_by_field_name("left") {
                    self.target(left, origin);
                }
            }
            (Lang::Python, "augmented_assignment" | "for_statement" | "for_in_clause") => {
                if let Some(left) = n.child_by_field_name("left") {
                    self.target(left, Origin::Unknown);
                }
            }
            (Lang::Python, "as_pattern") => {
                let origin = self.value(n.named_child(0));
                if let Some(alias) = n.child_by_field_name("alias") {
                    self.target(alias, origin);
                }
            }
            (Lang::Python, "named_expression") => {
                if let Some(name) = n.child_by_field_name("name") {
                    self.bind(name, Origin::Unknown);
                }
            }
            (Lang::Python, "global_statement" | "nonlocal_statement") => {
                let mut c = n.walk();
                for id in n.named_children(&mut c) {
                    if let Some(t) = text(self.src, id) {
                        self.locals.globals.insert(t.to_owned());
                    }
                }
            }
            (Lang::Python, "import_statement" | "import_from_statement") => {
                let mut c = n.walk();
                let names: Vec<Node<'_>> = n.children_by_field_name("name", &mut c).collect();
                for name in names {
                    let bound = match name.kind() {
                        "aliased_import" => name.child_by_field_name("alias"),
                        _ => name.named_child(0).or(Some(name)),
                    };
                    if let Some(b) = bound {
                        self.locals
                            .names
                            .entry(text(self.src, b).unwrap_or_default().to_owned())
                            .or_insert(Origin::Unknown);
                    }
                }
            }
            (Lang::JavaScript | Lang::TypeScript | Lang::Tsx, "variable_declarator") => {
                let ty = n.child_by_field_name("type");
                let origin = if ty.is_some() {
                    self.typed(ty)
                } else {
                    self.value(n.child_by_field_name("value"))
                };
                if let Some(name) = n.child_by_field_name("name") {
                    self.pattern(name, origin);
                }
            }
            (Lang::JavaScript | Lang::TypeScript | Lang::Tsx, "for_in_statement") => {
                if let Some(left) = n.child_by_field_name("left") {
                    self.pattern(left, Origin::Unknown);
                }
            }
            (Lang::JavaScript | Lang::TypeScript | Lang::Tsx, "catch_clause") => {
                if let Some(p) = n.child_by_field_name("parameter") {
                    self.pattern(p, Origin::Unknown);
                }
            }
            (Lang::Go, "short_var_declaration") => {
                self.go_pairs(
                    n.child_by_field_name("left"),
                    n.child_by_field_name("right"),
                );
            }
            (Lang::Go, "var_spec" | "const_spec") => {
                let ty = n.child_by_field_name("type");
                let values: Vec<Node<'_>> = n
                    .child_by_field_name("value")
                    .map(|v| {
                        let mut c = v.walk();
                        v.named_children(&mut c).collect()
                    })
                    .unwrap_or_default();
                let mut c = n.walk();
                let names: Vec<Node<'_>> = n.children_by_field_name("name", &mut c).collect();
                for (i, name) in names.iter().enumerate() {
                    let origin = if ty.is_some() {
                        self.typed(ty)
                    } else {
                        self.value(values.get(i).copied())
                    };
                    self.bind(*name, origin);
                }
            }
            (Lang::Go, "range_clause") => {
                if let Some(left) = n.child_by_field_name("left") {
                    self.go_pairs(Some(left), None);
                }
            }
            (Lang::Go, "type_switch_statement") => {
                if let Some(alias) = n.child_by_field_name("alias") {
                    self.go_pairs(Some(alias), None);
                }
            }
            (Lang::Go, "receive_statement") => {
                if let Some(left) = n.child_by_field_name("left") {
                    self.go_pairs(Some(left), None);
                }
            }
            (Lang::Rust, "let_declaration") => {
                let ty = n.child_by_field_name("type");
                let origin = if ty.is_some() {
                    self.typed(ty)
                } else {
                    self.value(n.child_by_field_name("value"))
                };
                if let Some(p) = n.child_by_field_name("pattern") {
                    self.pattern(p, origin);
                }
            }
            (Lang::Rust, "for_expression" | "let_condition" | "match_arm") => {
                if let Some(p) = n.child_by_field_name("pattern") {
                    self.pattern(p, Origin::Unknown);
                }
            }
            (Lang::Java, "local_variable_declaration" | "field_declaration") => {
                self.java_declarators(n);
            }
            (Lang::Java, "enhanced_for_statement" | "resource") => {
                let mut origin = self.typed(n.child_by_field_name("type"));
                if self.is_var(n.child_by_field_name("type")) {
                    origin = self.value(n.child_by_field_name("value"));
                }
                if let Some(name) = n.child_by_field_name("name") {
                    self.bind(name, origin);
                }
            }
            (Lang::Java, "catch_formal_parameter") => self.param(n),
            (Lang::Java, "instanceof_expression") => {
                if let Some(name) = n.child_by_field_name("name") {
                    let origin = self.typed(n.child_by_field_name("right"));
                    self.bind(name, origin);
                }
            }
            _ => {}
        }
    }

    fn is_var(&self, ty: Option<Node<'_>>) -> bool {
        ty.and_then(|t| text(self.src, t)) == Some("var")
    }

    fn java_declarators(&mut self, n: Node<'_>) {
        let ty = n.child_by_field_name("type");
        let var = self.is_var(ty);
        let mut c = n.walk();
        let declarators: Vec<Node<'_>> = n.children_by_field_name("declarator", &mut c).collect();
        for d in declarators {
            let origin = if var {
                self.value(d.child_by_field_name("value"))
            } else {
                self.typed(ty)
            };
            if let Some(name) = d.child_by_field_name("name") {
                self.bind(name, origin);
            }
        }
    }

    /// Go's `a, b := x, y`: each name with its own value when the counts
    /// agree.
    fn go_pairs(&mut self, left: Option<Node<'_>>, right: Option<Node<'_>>) {
        let (names, values) = (expressions(left), expressions(right));
        let paired = names.len() == values.len();
        for (i, name) in names.iter().enumerate() {
            if name.kind() != "identifier" {
                continue;
            }
            let origin = if paired {
                self.value(values.get(i).copied())
            } else {
                Origin::Unknown
            };
            self.bind(*name, origin);
        }
    }

    /// A Python assignment target.
    fn target(&mut self, n: Node<'_>, origin: Origin) {
        match n.kind() {
            "identifier" => self.bind(n, origin),
            "pattern_list"
            | "tuple_pattern"
            | "list_pattern"
            | "tuple"
            | "list"
            | "parenthesized_expression"
            | "list_splat_pattern"
            | "dictionary_splat_pattern"
            | "as_pattern_target" => {
                let single = n.named_child_count() == 1;
                let mut c = n.walk();
                let inner: Vec<Node<'_>> = n.named_children(&mut c).collect();
                for i in inner {
                    let o = if single {
                        origin.clone()
                    } else {
                        Origin::Unknown
                    };
                    self.target(i, o);
                }
            }
            _ => {}
        }
    }

    /// A destructuring pattern (JavaScript, Rust) or a plain name.
    fn pattern(&mut self, n: Node<'_>, origin: Origin) {
        match (self.lang, n.kind()) {
            // `None`, `MAX`: a path in a pattern, not a binding.
            (Lang::Rust, "identifier") if self.capitalised(n) => {}
            (_, "identifier" | "shorthand_property_identifier_pattern") => self.bind(n, origin),
            (Lang::Rust, "shorthand_field_identifier") => self.bind(n, Origin::Unknown),
            (Lang::Rust, "field_pattern") => match n.child_by_field_name("pattern") {
                Some(p) => self.pattern(p, Origin::Unknown),
                None => {
                    if let Some(name) = n.child_by_field_name("name") {
                        self.bind(name, Origin::Unknown);
                    }
                }
            },
            (_, "pair_pattern") => {
                if let Some(v) = n.child_by_field_name("value") {
                    self.pattern(v, Origin::Unknown);
                }
            }
            (_, "assignment_pattern" | "object_assignment_pattern") => {
                if let Some(l) = n.child_by_field_name("left") {
                    self.pattern(l, origin);
                }
            }
            (
                _,
                "object_pattern"
                | "array_pattern"
                | "rest_pattern"
                | "tuple_pattern"
                | "slice_pattern"
                | "tuple_struct_pattern"
                | "struct_pattern"
                | "ref_pattern"
                | "mut_pattern"
                | "reference_pattern"
                | "captured_pattern"
                | "or_pattern"
                | "match_pattern",
            ) => {
                let skip = n.child_by_field_name("type").map(|t| t.id());
                let single = matches!(
                    n.kind(),
                    "ref_pattern" | "mut_pattern" | "reference_pattern"
                );
                let mut c = n.walk();
                let inner: Vec<Node<'_>> = n.named_children(&mut c).collect();
                for i in inner {
                    if Some(i.id()) == skip || i.kind() == "condition" {
                        continue;
                    }
                    let o = if single {
                        origin.clone()
                    } else {
                        Origin::Unknown
                    };
                    self.pattern(i, o);
                }
            }
            _ => {}
        }
    }
}

/// The expressions of a Go expression list (or the one expression).
fn expressions(n: Option<Node<'_>>) -> Vec<Node<'_>> {
    let Some(n) = n else { return Vec::new() };
    if n.kind() == "expression_list" {
        let mut c = n.walk();
        n.named_children(&mut c).collect()
    } else {
        vec![n]
    }
}

fn first_of_kind<'t>(n: Node<'t>, kind: &str) -> Option<Node<'t>> {
    let mut c = n.walk();
    n.named_children(&mut c).find(|c| c.kind() == kind)
}

/// The fields of the class at `node` and what their declarations say:
/// Java fields, TypeScript class fields, Python class-level annotations
/// and `self.x = …` in its methods.
pub(super) fn fields(lang: Lang, node: Node<'_>, src: &[u8]) -> HashMap<String, Origin> {
    let mut c = Collector {
        lang,
        src,
        locals: Locals::default(),
        binders: Vec::new(),
    };
    let Some(body) = node.child_by_field_name("body") else {
        return HashMap::new();
    };
    // Each node with whether it stands inside a method, where a Python
    // name assigned is a local and only `self.x` is a field.
    let mut stack = vec![(body, false)];
    while let Some((n, in_method)) = stack.pop() {
        match (lang, n.kind()) {
            (Lang::Java, "field_declaration") => c.java_declarators(n),
            (
                Lang::JavaScript | Lang::TypeScript | Lang::Tsx,
                "public_field_definition" | "field_definition",
            ) => {
                let ty = n.child_by_field_name("type");
                let origin = if ty.is_some() {
                    c.typed(ty)
                } else {
                    c.value(n.child_by_field_name("value"))
                };
                if let Some(name) = n
                    .child_by_field_name("name")
                    .or_else(|| n.child_by_field_name("property"))
                {
                    c.bind(name, origin);
                }
            }
            (Lang::Python, "assignment") => {
                let ty = n.child_by_field_name("type");
                let origin = if ty.is_some() {
                    c.typed(ty)
                } else {
                    c.value(n.child_by_field_name("right"))
                };
                match n.child_by_field_name("left") {
                    Some(l) if l.kind() == "identifier" && !in_method => c.bind(l, origin),
                    Some(l) if l.kind() == "attribute" && in_method => {
                        let on_self = l.child_by_field_name("object").and_then(|o| text(src, o))
                            == Some("self");
                        if on_self && let Some(a) = l.child_by_field_name("attribute") {
                            c.bind(a, origin);
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        if is_nested_class(lang, n.kind()) && n.id() != node.id() {
            continue;
        }
        let inside = in_method || is_function(lang, n.kind());
        let mut cur = n.walk();
        for child in n.named_children(&mut cur) {
            stack.push((child, inside));
        }
    }
    c.locals.names
}
