//! What each grammar's statements bind: the walk over a function's body
//! that [`super::Collector`] makes, one arm per kind of binding.

use super::*;

impl Collector<'_> {
    pub(super) fn bind(&mut self, name: Node<'_>, origin: Origin) {
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

    pub(super) fn typed(&self, ty: Option<Node<'_>>) -> Origin {
        ty.and_then(|t| type_names(self.lang, self.src, t))
            .map_or(Origin::Unknown, |(ty, first)| Origin::Typed { ty, first })
    }

    /// What a value expression makes: an instance of the class it
    /// constructs, or something computed from its first name.
    pub(super) fn value(&self, value: Option<Node<'_>>) -> Origin {
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
    pub(super) fn params(&mut self, node: Node<'_>) {
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
    pub(super) fn body(&mut self, node: Node<'_>) {
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
                            .or_insert(Origin::Imported { at: n.start_byte() });
                    }
                }
            }
            (Lang::JavaScript | Lang::TypeScript | Lang::Tsx, "variable_declarator") => {
                let ty = n.child_by_field_name("type");
                let value = n.child_by_field_name("value");
                let required = value.filter(|v| {
                    v.kind() == "call_expression"
                        && v.child_by_field_name("function")
                            .and_then(|f| text(self.src, f))
                            == Some("require")
                });
                let origin = if let Some(call) = required {
                    Origin::Imported {
                        at: call.start_byte(),
                    }
                } else if ty.is_some() {
                    self.typed(ty)
                } else {
                    self.value(value)
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

    pub(super) fn java_declarators(&mut self, n: Node<'_>) {
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
pub(super) fn expressions(n: Option<Node<'_>>) -> Vec<Node<'_>> {
    let Some(n) = n else { return Vec::new() };
    if n.kind() == "expression_list" {
        let mut c = n.walk();
        n.named_children(&mut c).collect()
    } else {
        vec![n]
    }
}

pub(super) fn first_of_kind<'t>(n: Node<'t>, kind: &str) -> Option<Node<'t>> {
    let mut c = n.walk();
    n.named_children(&mut c).find(|c| c.kind() == kind)
}
