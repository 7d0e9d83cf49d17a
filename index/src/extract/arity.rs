//! How many arguments a definition takes, per grammar's parameter nodes.

use super::{Arity, Walk};
use tree_sitter::Node;

impl Walk<'_, '_> {
    pub(super) fn python_arity(&self, params: Node<'_>, method: bool) -> Arity {
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

    pub(super) fn js_arity(&self, params: Node<'_>) -> Arity {
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

    pub(super) fn go_arity(&self, params: Node<'_>) -> Arity {
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

    pub(super) fn rust_arity(&self, params: Node<'_>) -> Arity {
        counted_arity(params, "parameter", "variadic_parameter")
    }

    pub(super) fn java_arity(&self, params: Node<'_>) -> Arity {
        counted_arity(params, "formal_parameter", "spread_parameter")
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
