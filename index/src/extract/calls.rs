//! Calls: the callee's name node and the number of arguments passed.

use super::Walk;
use crate::lang::Lang;
use tree_sitter::Node;

impl Walk<'_, '_> {
    /// Notes the callee of a call and its argument count, for when its
    /// name node is reached.
    pub(super) fn call(&mut self, node: Node<'_>, kind: &str) {
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
