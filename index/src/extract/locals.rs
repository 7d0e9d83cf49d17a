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

mod collect;

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
    /// Bound by an import inside the function: the import node that starts
    /// at byte `at`.
    Imported {
        at: usize,
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
