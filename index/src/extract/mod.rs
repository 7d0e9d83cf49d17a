//! One file's definitions, references and imports, read from its syntax
//! tree: the node kinds of each grammar that define, name, call and import.

mod arity;
mod bind;
mod calls;
mod definitions;
mod imports;
mod locals;

pub use bind::{Base, Binding, ClassInfo, Receiver};

use crate::lang::Lang;
use revu_domain::code_index::SymbolKind;
use std::collections::{HashMap, HashSet};
use tree_sitter::{Node, Parser};

/// The version of what the extractor makes of a file: part of the key of
/// every cache entry ([`crate::cache`]), so that an entry written by
/// another extractor is never used. Bumped with any change to this module,
/// to [`Lang`] or to a grammar's version that changes the facts of a file;
/// `tests/extractor_version.rs` tells when.
pub const EXTRACTOR_VERSION: u32 = 1;

/// What one file defines, names and imports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileFacts {
    pub defs: Vec<Def>,
    pub refs: Vec<Ref>,
    pub imports: Vec<Import>,
    /// Every class (or Rust `impl`, Go type) of the file with what it
    /// extends, whatever its name: what a receiver's class extends is asked
    /// of files the change did not touch.
    pub classes: Vec<ClassInfo>,
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
    /// The class, type or `impl` a member belongs to.
    pub owner: Option<String>,
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
    /// Called at all (`call_args` may still be `None`: spread arguments).
    pub called: bool,
    /// Named in an import, not used.
    pub import: bool,
    /// What the name is bound to where it stands (for a qualified name,
    /// what `receiver` says instead).
    pub binding: Binding,
    /// What a qualified name (`x.name`, `pkg.Name`, `Type::name`) is
    /// reached through.
    pub receiver: Option<Receiver>,
    /// The class (Rust `impl`, Go method receiver type) around the use.
    pub class: Option<String>,
    /// In the condition of an `if` whose body raises: a check that an old
    /// name is no longer used, kept on purpose to fail with a clear error.
    pub raise_guard: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
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
    /// The names it binds in the importing file (`import a.b` binds `a`,
    /// `from a import b as c` binds `c`, a Go import its package name).
    pub bound: Vec<String>,
    /// Inside a function: its names are that function's locals.
    pub local: bool,
}

impl FileFacts {
    /// These facts as [`Reader::read`] gives them when it keeps only the
    /// definitions and references whose name `want` accepts.
    pub fn keep(mut self, want: &dyn Fn(&str) -> bool) -> FileFacts {
        self.defs.retain(|d| want(&d.name));
        self.refs.retain(|r| want(&r.name));
        // The index holds what is kept of every file at once: not the
        // room the whole file's took.
        self.defs.shrink_to_fit();
        self.refs.shrink_to_fit();
        self
    }
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
            frames: Vec::new(),
            binders: HashSet::new(),
            import_starts: Vec::new(),
            import_node: 0,
            ancestors: Vec::new(),
        };
        walk.run(tree.root_node());
        walk.bind_module_names();
        walk.facts
    }
}

/// A reader per language, made when a file of it first comes.
#[derive(Debug, Default)]
pub struct Readers(HashMap<Lang, Reader>);

impl Readers {
    /// The facts of `src` in `lang` (see [`Reader::read`]); `None` when
    /// the grammar does not load.
    pub fn read(
        &mut self,
        lang: Lang,
        src: &[u8],
        want: &dyn Fn(&str) -> bool,
    ) -> Option<FileFacts> {
        let reader = match self.0.entry(lang) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => e.insert(Reader::new(lang)?),
        };
        Some(reader.read(src, want))
    }
}

/// A definition around the node being read.
struct Scope {
    end_byte: usize,
    kind: SymbolKind,
    line: u32,
}

struct Walk<'a, 't> {
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
    /// The functions and classes around the node being read, innermost
    /// last ([`bind`]).
    frames: Vec<bind::Frame<'t>>,
    /// Name nodes that bind a local (a parameter, a variable), found when
    /// a frame's locals are first asked for: not references.
    binders: HashSet<usize>,
    /// Where the node of each of `facts.imports` starts, and where the
    /// import node being read starts.
    import_starts: Vec<usize>,
    import_node: usize,
    /// The nodes around the node being read, its parent last: the walk's
    /// own path, since tree-sitter finds a node's parent by descending
    /// from the root again.
    ancestors: Vec<Node<'t>>,
}

fn line_of(node: Node<'_>) -> u32 {
    u32::try_from(node.start_position().row + 1).unwrap_or(u32::MAX)
}

fn end_line_of(node: Node<'_>) -> u32 {
    u32::try_from(node.end_position().row + 1).unwrap_or(u32::MAX)
}

impl<'a, 't> Walk<'a, 't> {
    fn run(&mut self, root: Node<'t>) {
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
            while self
                .frames
                .last()
                .is_some_and(|f| f.node.end_byte() <= node.start_byte())
            {
                self.frames.pop();
            }
            self.enter(node);
            self.visit(node);
            if cursor.goto_first_child() {
                self.ancestors.push(node);
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return;
                }
                self.ancestors.pop();
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

    /// Inside a function, a method, a lambda or a closure.
    fn in_function(&self) -> bool {
        self.frames.iter().any(bind::Frame::is_function)
    }

    fn caller(&self) -> Option<u32> {
        self.scopes
            .iter()
            .rev()
            .find(|s| matches!(s.kind, SymbolKind::Function | SymbolKind::Method))
            .map(|s| s.line)
    }

    fn visit(&mut self, node: Node<'t>) {
        let kind = node.kind();
        if self.lang.is_name(kind) {
            self.name(node);
            return;
        }
        self.definition(node, kind);
        self.call(node, kind);
        self.import(node, kind);
    }

    /// A name: a reference unless it is a definition's own name or binds
    /// a local.
    fn name(&mut self, node: Node<'t>) {
        if self.def_names.contains(&node.id()) {
            return;
        }
        let Some(name) = self.text(node) else { return };
        if !(self.want)(name) {
            return;
        }
        let call = self.calls.remove(&node.id());
        let (call_args, path_call) = call.unwrap_or((None, false));
        let import = node.start_byte() < self.import_end;
        if !import && self.binds_local(node) {
            return;
        }
        let member = self.is_member(node);
        let receiver = self.receiver(node);
        let binding = if import {
            Binding::Import(self.facts.imports.len().saturating_sub(1))
        } else if receiver.is_some() {
            Binding::Free
        } else {
            self.binding_of(name)
        };
        self.facts.refs.push(Ref {
            name: name.to_owned(),
            line: line_of(node),
            member,
            caller: self.caller(),
            call_args,
            path_call,
            called: call.is_some(),
            import,
            binding,
            receiver,
            class: self.class_name(),
            raise_guard: self.raise_guard(node),
        });
    }

    /// Whether the name `node`, the node being read, is reached through
    /// an object.
    fn is_member(&self, node: Node<'t>) -> bool {
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
        let Some(&parent) = self.ancestors.last() else {
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
        let owner = if kind.is_member() {
            self.owner_of(def)
        } else {
            None
        };
        self.facts.defs.push(Def {
            name: text.to_owned(),
            kind,
            line: line_of(def),
            end_line: end_line_of(def),
            arity,
            takes_self,
            owner,
        });
    }
}
