//! What each grammar's nodes define: functions, methods, classes and
//! types, fields and properties, module variables.

use super::{Arity, Scope, Walk, line_of};
use crate::lang::Lang;
use revu_domain::code_index::SymbolKind;
use tree_sitter::Node;

impl Walk<'_, '_> {
    pub(super) fn function_kind(&self) -> SymbolKind {
        if self.in_class() {
            SymbolKind::Method
        } else {
            SymbolKind::Function
        }
    }

    pub(super) fn definition(&mut self, node: Node<'_>, kind: &str) {
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

    pub(super) fn python_assignment(&mut self, node: Node<'_>) {
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
}
