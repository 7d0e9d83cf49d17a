//! What a name is bound to where it stands, as the language resolves it
//! before anything counts as a use of a project symbol:
//!
//! - a parameter or local variable of a function around it shadows
//!   everything else ([`Binding::Local`]);
//! - a name the file imports is the imported module's ([`Binding::Import`]);
//! - anything else is the file's own top level, its package, or a built-in
//!   ([`Binding::Free`]).
//!
//! A function's locals are collected ([`super::locals`]) the first time a
//! wanted name appears in it, so the files and functions that name nothing
//! the change touched cost no more than before. Module-level imports are
//! bound after the walk ([`Walk::bind_module_names`]), once every import of
//! the file is known.
//!
//! For a qualified name (`x.name`, `pkg.Name`, `Type::name`) the
//! [`Receiver`] says what it is reached through: `self`/`this`, a name and
//! its binding, a value whose declaration gives its type, or a value
//! computed from a name (`ssl.create_default_context()` comes from the
//! `ssl` module).

use super::locals::{self, Locals, Origin};
use super::{Walk, line_of};
use crate::lang::Lang;
use std::collections::HashMap;
use tree_sitter::Node;

/// What a name is bound to where it is used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Binding {
    /// A parameter or local of a function around the use.
    Local,
    /// Bound by the file's import `imports[i]`.
    Import(usize),
    /// Neither: the file's top level, its package, the class around it, or
    /// the language's built-ins.
    Free,
}

/// What a qualified name is reached through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Receiver {
    /// `self`, `this`, `cls`, `super`, `Self`: the class around the use.
    This,
    /// A name, or a chain of names (`a.b`, `a::b`), bound as `binding`
    /// (that of its first name).
    Name { path: String, binding: Binding },
    /// A value declared or constructed as type `ty`, whose first name
    /// `via` (a qualifier, or `ty` itself) is bound as `binding`.
    Typed {
        ty: String,
        via: String,
        binding: Binding,
    },
    /// A value computed from an expression whose first name is `root`,
    /// bound as `binding` (`ssl.create_default_context()`).
    Derived { root: String, binding: Binding },
    /// Nothing is known of it.
    Unknown,
}

/// A class (a Rust `impl`, a Go type) and what it extends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassInfo {
    pub name: String,
    pub line: u32,
    /// Each base class, interface or implemented trait.
    pub bases: Vec<Base>,
}

/// A class's base: its own name, its first name (`ssl` of
/// `ssl.SSLContext`) and what that is bound to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Base {
    pub name: String,
    pub via: String,
    pub binding: Binding,
}

/// A function or class around the node being read.
pub(super) struct Frame<'t> {
    pub node: Node<'t>,
    kind: FrameKind,
    /// A class's name; for a Go method, its receiver's type.
    name: Option<String>,
    /// A function's locals, once asked for.
    locals: Option<Locals>,
    /// A class's fields and their declared types, once asked for.
    fields: Option<HashMap<String, Origin>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FrameKind {
    Function,
    Class,
}

impl Frame<'_> {
    pub fn is_function(&self) -> bool {
        self.kind == FrameKind::Function
    }
}

/// Receivers that mean the object the method runs on.
pub(super) fn is_this(lang: Lang, text: &str) -> bool {
    match lang {
        Lang::Python => matches!(text, "self" | "cls"),
        Lang::Rust => matches!(text, "self" | "Self"),
        Lang::Go => false,
        _ => matches!(text, "this" | "super"),
    }
}

impl<'a, 't> Walk<'a, 't> {
    /// Notes a function or class starting at `node`.
    pub(super) fn enter(&mut self, node: Node<'t>) {
        let kind = node.kind();
        if locals::is_function(self.lang, kind) {
            let name = (self.lang == Lang::Go && kind == "method_declaration")
                .then(|| self.go_receiver_type(node))
                .flatten();
            self.frames.push(Frame {
                node,
                kind: FrameKind::Function,
                name,
                locals: None,
                fields: None,
            });
        } else if let Some(name) = self.class_like(node) {
            let bases = self.bases(node);
            self.facts.classes.push(ClassInfo {
                name: name.clone(),
                line: line_of(node),
                bases,
            });
            self.frames.push(Frame {
                node,
                kind: FrameKind::Class,
                name: Some(name),
                locals: None,
                fields: None,
            });
        }
    }

    /// The name of the class `node` declares, if it declares one.
    fn class_like(&self, node: Node<'_>) -> Option<String> {
        let name_field = match (self.lang, node.kind()) {
            (Lang::Python, "class_definition")
            | (
                Lang::JavaScript | Lang::TypeScript | Lang::Tsx,
                "class_declaration"
                | "abstract_class_declaration"
                | "class"
                | "interface_declaration",
            )
            | (
                Lang::Java,
                "class_declaration"
                | "interface_declaration"
                | "enum_declaration"
                | "record_declaration",
            )
            | (Lang::Go, "type_spec")
            | (Lang::Rust, "trait_item") => "name",
            (Lang::Rust, "impl_item") => "type",
            _ => return None,
        };
        let name = node.child_by_field_name(name_field)?;
        // `impl<T> Store<T>`: the type's own name.
        let name = match name.kind() {
            "generic_type" => name.child_by_field_name("type")?,
            "scoped_type_identifier" => name.child_by_field_name("name")?,
            _ => name,
        };
        self.text(name).map(str::to_owned)
    }

    /// What the class at `node` extends or implements.
    fn bases(&mut self, node: Node<'_>) -> Vec<Base> {
        let mut names: Vec<Node<'_>> = Vec::new();
        fn push_types<'n>(n: Node<'n>, names: &mut Vec<Node<'n>>) {
            let mut c = n.walk();
            names.extend(n.named_children(&mut c));
        }
        match (self.lang, node.kind()) {
            (Lang::Python, _) => {
                if let Some(args) = node.child_by_field_name("superclasses") {
                    let mut c = args.walk();
                    for a in args.named_children(&mut c) {
                        if a.kind() != "keyword_argument" {
                            names.push(a);
                        }
                    }
                }
            }
            (Lang::JavaScript | Lang::TypeScript | Lang::Tsx, _) => {
                let mut c = node.walk();
                for h in node.named_children(&mut c) {
                    if h.kind() != "class_heritage" {
                        continue;
                    }
                    let mut c2 = h.walk();
                    for clause in h.named_children(&mut c2) {
                        match clause.kind() {
                            "extends_clause" => {
                                if let Some(v) = clause.child_by_field_name("value") {
                                    names.push(v);
                                }
                            }
                            "implements_clause" => push_types(clause, &mut names),
                            // JavaScript: `class A extends B` has the
                            // expression right under the heritage.
                            _ => names.push(clause),
                        }
                    }
                }
            }
            (Lang::Java, _) => {
                if let Some(s) = node.child_by_field_name("superclass") {
                    push_types(s, &mut names);
                }
                for field in ["interfaces", "extends_interfaces"] {
                    let holder = node.child_by_field_name(field).or_else(|| {
                        let mut c = node.walk();
                        node.named_children(&mut c).find(|n| n.kind() == field)
                    });
                    if let Some(i) = holder {
                        let mut c = i.walk();
                        for list in i.named_children(&mut c) {
                            if list.kind() == "type_list" {
                                push_types(list, &mut names);
                            } else {
                                names.push(list);
                            }
                        }
                    }
                }
            }
            (Lang::Rust, "impl_item") => {
                if let Some(t) = node.child_by_field_name("trait") {
                    names.push(t);
                }
            }
            _ => {}
        }
        names
            .into_iter()
            .filter_map(|n| locals::type_names(self.lang, self.src, n))
            .collect::<Vec<_>>()
            .into_iter()
            .map(|(name, via)| {
                let binding = self.binding_of(&via);
                Base { name, via, binding }
            })
            .collect()
    }

    /// Whether `node` is a name that binds a local of the function it
    /// stands in (a parameter, a variable), rather than a use.
    pub(super) fn binds_local(&mut self, node: Node<'t>) -> bool {
        if let Some(i) = self.frames.iter().rposition(Frame::is_function) {
            self.locals_of(i);
        }
        self.binders.contains(&node.id())
    }

    /// The locals of frame `i`, collected on first use.
    fn locals_of(&mut self, i: usize) -> Option<&Locals> {
        let frame = self.frames.get(i)?;
        if frame.locals.is_none() {
            let (found, binders) = locals::collect(self.lang, frame.node, self.src);
            self.binders.extend(binders);
            if let Some(f) = self.frames.get_mut(i) {
                f.locals = Some(found);
            }
        }
        self.frames.get(i)?.locals.as_ref()
    }

    /// What `name` is bound to at the node being read: a local of a
    /// function around it, else free (module-level imports are bound after
    /// the walk).
    pub(super) fn binding_of(&mut self, name: &str) -> Binding {
        match self.local_origin(name) {
            None => Binding::Free,
            Some(Origin::Imported { at }) => self.import_at(at, name),
            Some(_) => Binding::Local,
        }
    }

    /// The binding of `name` by the import whose node starts at byte `at`
    /// (an import inside a function), once the walk has read it.
    fn import_at(&self, at: usize, name: &str) -> Binding {
        self.import_starts
            .iter()
            .enumerate()
            .rev()
            .find(|&(i, &start)| {
                start == at
                    && self
                        .facts
                        .imports
                        .get(i)
                        .is_some_and(|im| im.bound.iter().any(|b| b == name))
            })
            .map_or(Binding::Local, |(i, _)| Binding::Import(i))
    }

    /// The declaration of the local `name` of the functions around the
    /// node being read, innermost first; `None` when it is no local.
    fn local_origin(&mut self, name: &str) -> Option<Origin> {
        for i in (0..self.frames.len()).rev() {
            if !self.frames.get(i).is_some_and(Frame::is_function) {
                continue;
            }
            let Some(locals) = self.locals_of(i) else {
                continue;
            };
            if locals.globals.contains(name) {
                return None;
            }
            if let Some(o) = locals.names.get(name) {
                return Some(o.clone());
            }
        }
        None
    }

    /// The innermost class around the node being read (for a Go method,
    /// its receiver's type).
    pub(super) fn class_name(&self) -> Option<String> {
        self.frames.iter().rev().find_map(|f| f.name.clone())
    }

    /// The class a member defined at `def` belongs to.
    pub(super) fn owner_of(&self, def: Node<'_>) -> Option<String> {
        if self.lang == Lang::Go && def.kind() == "method_declaration" {
            return self.go_receiver_type(def);
        }
        self.frames
            .iter()
            .rev()
            .filter(|f| f.kind == FrameKind::Class)
            .find(|f| f.node.id() != def.id())
            .and_then(|f| f.name.clone())
    }

    fn go_receiver_type(&self, method: Node<'_>) -> Option<String> {
        let params = method.child_by_field_name("receiver")?;
        let mut c = params.walk();
        let decl = params.named_children(&mut c).next()?;
        let ty = decl.child_by_field_name("type")?;
        locals::type_names(self.lang, self.src, ty).map(|(t, _)| t)
    }

    /// What the qualified name `node`, the node being read, is reached
    /// through; `None` when it is not qualified.
    pub(super) fn receiver(&mut self, node: Node<'t>) -> Option<Receiver> {
        let parent = *self.ancestors.last()?;
        let is = |field: &str| {
            parent
                .child_by_field_name(field)
                .is_some_and(|n| n.id() == node.id())
        };
        let object = match (self.lang, parent.kind()) {
            (Lang::Python, "attribute") if is("attribute") => parent.child_by_field_name("object"),
            (Lang::JavaScript | Lang::TypeScript | Lang::Tsx, "member_expression")
                if is("property") =>
            {
                parent.child_by_field_name("object")
            }
            (Lang::Go, "selector_expression") if is("field") => {
                parent.child_by_field_name("operand")
            }
            (Lang::Go, "qualified_type") if is("name") => parent.child_by_field_name("package"),
            (Lang::Rust, "field_expression") if is("field") => parent.child_by_field_name("value"),
            (Lang::Rust, "scoped_identifier" | "scoped_type_identifier") if is("name") => {
                parent.child_by_field_name("path")
            }
            (Lang::Java, "field_access") if is("field") => parent.child_by_field_name("object"),
            (Lang::Java, "method_invocation") if is("name") => parent.child_by_field_name("object"),
            (Lang::Java, "scoped_identifier" | "scoped_type_identifier") if is("name") => parent
                .child_by_field_name("scope")
                .or_else(|| parent.named_child(0)),
            (Lang::Java, "method_reference") => {
                let first = parent.named_child(0)?;
                (first.id() != node.id()).then_some(first)
            }
            _ => None,
        }?;
        Some(self.classify(object))
    }

    /// What the receiver expression `object` is.
    fn classify(&mut self, object: Node<'t>) -> Receiver {
        let kind = object.kind();
        let text = self.text(object).unwrap_or_default();
        if matches!(kind, "this" | "super" | "self") || is_this(self.lang, text) {
            return Receiver::This;
        }
        if self.lang == Lang::Python
            && kind == "call"
            && object
                .child_by_field_name("function")
                .and_then(|f| self.text(f))
                == Some("super")
        {
            return Receiver::This;
        }
        if let Some(field) = self.this_field(object) {
            return self.field_receiver(&field);
        }
        if let Some(path) = self.name_chain(object) {
            let first = path.split(['.', ':']).next().unwrap_or_default().to_owned();
            if path == first {
                return self.name_receiver(&path);
            }
            let binding = self.binding_of(&first);
            return Receiver::Name { path, binding };
        }
        match locals::first_name(self.lang, self.src, object) {
            Some(root) => {
                let binding = self.binding_of(&root);
                Receiver::Derived { root, binding }
            }
            None => Receiver::Unknown,
        }
    }

    /// A receiver that is one plain name.
    fn name_receiver(&mut self, name: &str) -> Receiver {
        match self.local_origin(name) {
            Some(origin) => self.receiver_of(origin, name),
            None => {
                // A bare field of the class around it (Java's implicit
                // `this`).
                if self.lang == Lang::Java
                    && let Some(o) = self.class_field(name)
                {
                    return self.receiver_of(o, name);
                }
                Receiver::Name {
                    path: name.to_owned(),
                    binding: Binding::Free,
                }
            }
        }
    }

    fn receiver_of(&mut self, origin: Origin, name: &str) -> Receiver {
        match origin {
            Origin::Typed { ty, first } => {
                let binding = self.binding_of(&first);
                Receiver::Typed {
                    ty,
                    via: first,
                    binding,
                }
            }
            Origin::Derived { root } => {
                let binding = self.binding_of(&root);
                Receiver::Derived { root, binding }
            }
            Origin::Imported { at } => Receiver::Name {
                path: name.to_owned(),
                binding: self.import_at(at, name),
            },
            Origin::Unknown => Receiver::Name {
                path: name.to_owned(),
                binding: Binding::Local,
            },
        }
    }

    fn field_receiver(&mut self, field: &str) -> Receiver {
        match self.class_field(field) {
            Some(o) => self.receiver_of(o, field),
            None => Receiver::Unknown,
        }
    }

    /// `f` when `node` is `self.f` or `this.f`.
    fn this_field(&self, node: Node<'_>) -> Option<String> {
        let (object, field) = match node.kind() {
            "attribute" => ("object", "attribute"),
            "member_expression" => ("object", "property"),
            "field_access" => ("object", "field"),
            "field_expression" => ("value", "field"),
            _ => return None,
        };
        let o = node.child_by_field_name(object)?;
        let is_self = matches!(o.kind(), "this" | "self")
            || self.text(o).is_some_and(|t| is_this(self.lang, t));
        if !is_self {
            return None;
        }
        self.text(node.child_by_field_name(field)?)
            .map(str::to_owned)
    }

    /// The declared type of field `name` of the innermost class around the
    /// node being read.
    fn class_field(&mut self, name: &str) -> Option<Origin> {
        let i = self
            .frames
            .iter()
            .rposition(|f| f.kind == FrameKind::Class)?;
        let frame = self.frames.get(i)?;
        if frame.fields.is_none() {
            let found = locals::fields(self.lang, frame.node, self.src);
            if let Some(f) = self.frames.get_mut(i) {
                f.fields = Some(found);
            }
        }
        self.frames.get(i)?.fields.as_ref()?.get(name).cloned()
    }

    /// `a.b.c` (or `a::b`) when `node` is a chain of plain names.
    fn name_chain(&self, node: Node<'_>) -> Option<String> {
        match node.kind() {
            "identifier"
            | "type_identifier"
            | "package_identifier"
            | "property_identifier"
            | "field_identifier" => self.text(node).map(str::to_owned),
            "attribute" | "member_expression" | "field_access" | "selector_expression" => {
                let (o, f) = match node.kind() {
                    "attribute" => ("object", "attribute"),
                    "member_expression" => ("object", "property"),
                    "field_access" => ("object", "field"),
                    _ => ("operand", "field"),
                };
                let left = self.name_chain(node.child_by_field_name(o)?)?;
                let right = self.text(node.child_by_field_name(f)?)?;
                Some(format!("{left}.{right}"))
            }
            "scoped_identifier" | "scoped_type_identifier" => {
                let right = self.text(node.child_by_field_name("name")?)?;
                match node
                    .child_by_field_name("path")
                    .or_else(|| node.child_by_field_name("scope"))
                {
                    Some(p) => {
                        let sep = if self.lang == Lang::Rust { "::" } else { "." };
                        let left = self.name_chain(p).or_else(|| {
                            matches!(p.kind(), "crate" | "super" | "self")
                                .then(|| self.text(p).map(str::to_owned))
                                .flatten()
                        })?;
                        Some(format!("{left}{sep}{right}"))
                    }
                    None => Some(right.to_owned()),
                }
            }
            _ => None,
        }
    }

    /// Whether `node`, the node being read, stands in the condition of an
    /// `if` whose body raises (throws, panics, returns an error): a check
    /// kept on purpose.
    pub(super) fn raise_guard(&self, node: Node<'_>) -> bool {
        let mut child = node;
        for &n in self.ancestors.iter().rev() {
            if locals::is_function(self.lang, n.kind()) {
                return false;
            }
            if matches!(n.kind(), "if_statement" | "if_expression")
                && let Some(cond) = n.child_by_field_name("condition")
                && cond.start_byte() <= child.start_byte()
                && child.end_byte() <= cond.end_byte()
            {
                return n
                    .child_by_field_name("consequence")
                    .is_some_and(|body| self.raises(body));
            }
            child = n;
        }
        false
    }

    /// Whether the block `body` raises among its own statements.
    fn raises(&self, body: Node<'_>) -> bool {
        let mut c = body.walk();
        let container = body.kind().contains("block") || body.kind() == "statement_list";
        let statements: Vec<Node<'_>> = if container {
            body.named_children(&mut c).collect()
        } else {
            vec![body]
        };
        statements.iter().any(|s| {
            let text = self.text(*s).unwrap_or_default();
            match s.kind() {
                "raise_statement" | "throw_statement" => true,
                "statement_list" | "block" => self.raises(*s),
                "expression_statement" => {
                    let t = text.trim_start();
                    t.starts_with("panic(")
                        || t.starts_with("panic!(")
                        || t.starts_with("bail!(")
                        || t.starts_with("unreachable!(")
                }
                "return_statement" | "return_expression" => {
                    text.contains("Err(")
                        || text.contains("errors.New(")
                        || text.contains("fmt.Errorf(")
                }
                _ => false,
            }
        })
    }

    /// Binds what the walk left free to the file's module-level imports,
    /// now that every import is known.
    pub(super) fn bind_module_names(&mut self) {
        let mut bound: HashMap<&str, usize> = HashMap::new();
        for (i, import) in self.facts.imports.iter().enumerate() {
            if import.local {
                continue;
            }
            for name in &import.bound {
                bound.insert(name.as_str(), i);
            }
        }
        if bound.is_empty() {
            return;
        }
        let bind = |name: &str, b: &mut Binding| {
            if *b == Binding::Free
                && let Some(&i) = bound.get(name)
            {
                *b = Binding::Import(i);
            }
        };
        let first = |path: &str| path.split(['.', ':']).next().unwrap_or_default().to_owned();
        for r in &mut self.facts.refs {
            match &mut r.receiver {
                None => bind(&r.name, &mut r.binding),
                Some(Receiver::Name { path, binding }) => bind(&first(path), binding),
                Some(Receiver::Typed { via, binding, .. }) => bind(via, binding),
                Some(Receiver::Derived { root, binding }) => bind(root, binding),
                Some(Receiver::This | Receiver::Unknown) => {}
            }
        }
        for class in &mut self.facts.classes {
            for base in &mut class.bases {
                bind(&base.via, &mut base.binding);
            }
        }
    }
}
