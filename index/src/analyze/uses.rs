//! Whether a name at head is a use of a symbol a changed file defines,
//! resolved the way the language resolves it before anything counts:
//!
//! - a local variable or parameter shadows everything; a name bound by an
//!   import is the imported module's, and a module outside the project is
//!   never the project's symbol;
//! - a qualified name (`module.Name`, `pkg.Name`, `Type::name`) resolves
//!   through its qualifier;
//! - a member access (`x.name`) counts where the receiver resolves to the
//!   symbol's class (`self` inside it or a subclass, a value declared or
//!   built as it), and is dropped where the receiver is known to be
//!   something else. Where nothing is known of the receiver it counts only
//!   when the name is the project's own: its class extends nothing outside
//!   the project, the name is no member of the language's standard types,
//!   and the file imports the defining file. Otherwise it is a doubt: a
//!   candidate to check, never a certain use.

use super::{Graph, Reach};
use crate::extract::{Binding, ClassInfo, Def, Import, Receiver, Ref};
use crate::lang::Lang;
use revu_domain::code_index::SymbolKind;

/// The symbol whose uses are looked for, with the side of its file it is
/// defined on (the base side for what the change took away).
pub(super) struct Target<'d> {
    pub def: &'d Def,
    pub lang: Lang,
    /// The defining file's path on that side.
    pub path: &'d str,
    pub classes: &'d [ClassInfo],
    pub imports: &'d [Import],
}

/// What a reference is to a target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Bound {
    /// A use; what was checked to show it.
    Use(String),
    /// Maybe a use; why it is not certain.
    Doubt(String),
    /// Not a use of the target.
    Other,
}

/// Names that a standard type of the language also carries: through a
/// receiver of unknown type they say nothing of the project's class.
fn is_standard_member(lang: Lang, name: &str) -> bool {
    const COMMON: &[&str] = &[
        "name",
        "value",
        "values",
        "key",
        "keys",
        "items",
        "get",
        "set",
        "add",
        "remove",
        "clear",
        "copy",
        "update",
        "pop",
        "push",
        "append",
        "extend",
        "insert",
        "index",
        "count",
        "length",
        "len",
        "size",
        "type",
        "id",
        "data",
        "text",
        "message",
        "error",
        "code",
        "status",
        "close",
        "open",
        "read",
        "write",
        "flush",
        "send",
        "start",
        "stop",
        "run",
        "join",
        "split",
        "format",
        "replace",
        "strip",
        "lower",
        "upper",
        "encode",
        "decode",
        "keys",
        "map",
        "filter",
        "reduce",
        "find",
        "sort",
        "reverse",
        "slice",
        "next",
        "then",
        "catch",
        "finally",
        "apply",
        "call",
        "bind",
        "toString",
        "valueOf",
        "equals",
        "hashCode",
        "compare",
        "compareTo",
        "iterator",
        "stream",
        "contains",
        "isEmpty",
        "path",
        "url",
        "host",
        "port",
        "headers",
        "body",
        "result",
        "args",
        "kwargs",
        "context",
        "parent",
        "children",
        "source",
        "target",
        "timeout",
        "default",
        "mode",
        "verify_mode",
        "check_hostname",
        "options",
        "config",
        "settings",
        "level",
        "handler",
    ];
    const PYTHON: &[&str] = &[
        "__init__",
        "__call__",
        "__enter__",
        "__exit__",
        "__iter__",
        "__len__",
        "__str__",
        "__repr__",
        "__eq__",
        "__hash__",
        "__getitem__",
        "__setitem__",
        "startswith",
        "endswith",
        "setdefault",
        "fileno",
        "readline",
        "readlines",
        "seek",
        "tell",
        "load_cert_chain",
        "load_verify_locations",
        "set_ciphers",
        "wrap_socket",
    ];
    const SCRIPT: &[&str] = &[
        "forEach",
        "some",
        "every",
        "includes",
        "indexOf",
        "concat",
        "entries",
        "has",
        "delete",
        "then",
        "addEventListener",
        "removeEventListener",
        "emit",
        "on",
        "off",
        "once",
        "prototype",
        "constructor",
        "textContent",
        "innerHTML",
        "style",
    ];
    const JAVA: &[&str] = &[
        "getClass",
        "clone",
        "toArray",
        "put",
        "containsKey",
        "accept",
    ];
    const GO: &[&str] = &[
        "String", "Error", "Close", "Read", "Write", "Len", "Less", "Swap",
    ];
    const RUST: &[&str] = &[
        "clone",
        "unwrap",
        "expect",
        "iter",
        "into_iter",
        "as_ref",
        "as_str",
        "to_string",
        "fmt",
        "drop",
        "deref",
        "from",
        "into",
        "default",
        "eq",
        "cmp",
        "hash",
    ];
    let own: &[&str] = match lang.family() {
        Lang::Python => PYTHON,
        Lang::JavaScript => SCRIPT,
        Lang::Java => JAVA,
        Lang::Go => GO,
        Lang::Rust => RUST,
        _ => &[],
    };
    COMMON.contains(&name) || own.contains(&name)
}

/// A declared type that says nothing: a type parameter, `any`, `Object`.
fn is_vague_type(ty: &str) -> bool {
    let one_letter = ty.len() == 1 && ty.chars().all(|c| c.is_ascii_uppercase());
    one_letter
        || matches!(
            ty,
            "Any" | "any" | "object" | "Object" | "unknown" | "var" | "interface" | "auto"
        )
}

impl Graph<'_> {
    /// What `r`, a reference in file `id`, is to `t`.
    pub(super) fn bound(&self, t: &Target<'_>, reach: &Reach, id: usize, r: &Ref) -> Bound {
        let member = t.def.kind.is_member();
        // Java keeps methods and fields apart: a method is only called
        // (or referenced as `X::m`), a field never called.
        if t.lang == Lang::Java {
            if t.def.kind == SymbolKind::Method && !r.called && r.receiver.is_none() && !r.import {
                return Bound::Other;
            }
            if t.def.kind == SymbolKind::Property && r.called {
                return Bound::Other;
            }
        }
        if r.import {
            return self.through_import(t, reach, id, r);
        }
        match (&r.receiver, member) {
            (None, false) => self.bare(t, reach, id, r),
            (None, true) => self.bare_member(t, reach, id, r),
            (Some(recv), false) => self.qualified(t, reach, id, recv),
            (Some(recv), true) => self.member(t, reach, id, r, recv),
        }
    }

    fn path_of(&self, id: usize) -> &str {
        self.resolver.path(id)
    }

    /// The files import `i` of file `id` names.
    fn import_files(&self, id: usize, i: usize) -> Vec<usize> {
        let Some(rec) = self.rec(id) else {
            return Vec::new();
        };
        let Some(import) = rec.facts.imports.get(i) else {
            return Vec::new();
        };
        self.resolver.resolve(self.path_of(id), rec.lang, import)
    }

    /// How import `i` of file `id` reaches the target: directly, or
    /// through a file that takes the name from it and defines none of its
    /// own (a package re-exporting it).
    fn import_reaches(&self, t: &Target<'_>, reach: &Reach, id: usize, i: usize) -> Option<String> {
        let files = self.import_files(id, i);
        let spec = self
            .rec(id)
            .and_then(|r| r.facts.imports.get(i))
            .map_or("", |im| im.spec.as_str());
        if files.iter().any(|f| reach.own.contains(f)) {
            return Some(format!(
                "`{}` here is imported from {} (`{spec}`)",
                t.def.name, t.path
            ));
        }
        let relay = files.iter().find(|&&f| {
            reach.direct.contains(&f)
                && self
                    .rec(f)
                    .is_some_and(|g| !g.facts.defs.iter().any(|d| d.name == t.def.name))
        })?;
        Some(format!(
            "`{}` here is imported from {}, which takes it from {}",
            t.def.name,
            self.path_of(*relay),
            t.path
        ))
    }

    fn through_import(&self, t: &Target<'_>, reach: &Reach, id: usize, r: &Ref) -> Bound {
        match r.binding {
            Binding::Import(i) => match self.import_reaches(t, reach, id, i) {
                Some(how) => Bound::Use(how),
                None => Bound::Other,
            },
            _ => Bound::Other,
        }
    }

    /// A bare name, for a top-level symbol.
    fn bare(&self, t: &Target<'_>, reach: &Reach, id: usize, r: &Ref) -> Bound {
        match r.binding {
            Binding::Local => Bound::Other,
            Binding::Import(i) => match self.import_reaches(t, reach, id, i) {
                Some(how) => Bound::Use(how),
                None => Bound::Other,
            },
            Binding::Free => {
                let name = &t.def.name;
                if reach.own.contains(&id) {
                    Bound::Use(format!(
                        "`{name}` is no local and no import here: it is the file's own \
                         top-level `{name}`"
                    ))
                } else if reach.same_package.contains(&id) {
                    Bound::Use(format!(
                        "`{name}` is no local and no import here, and this file is in the \
                         package of {}",
                        t.path
                    ))
                } else if self.wildcard_from(t, reach, id) {
                    Bound::Use(format!("this file imports everything from {}", t.path))
                } else {
                    Bound::Other
                }
            }
        }
    }

    /// Whether file `id` imports everything from the target's file.
    fn wildcard_from(&self, _t: &Target<'_>, reach: &Reach, id: usize) -> bool {
        let Some(rec) = self.rec(id) else {
            return false;
        };
        rec.facts.imports.iter().enumerate().any(|(i, im)| {
            im.wildcard
                && self
                    .import_files(id, i)
                    .iter()
                    .any(|f| reach.own.contains(f))
        })
    }

    /// The module a qualifier chain (`a.b` bound by import `i`) names.
    fn module_of(&self, id: usize, i: usize, path: &str) -> Vec<usize> {
        let Some(rec) = self.rec(id) else {
            return Vec::new();
        };
        let Some(import) = rec.facts.imports.get(i) else {
            return Vec::new();
        };
        if rec.lang != Lang::Python {
            return self.resolver.resolve(self.path_of(id), rec.lang, import);
        }
        let segs: Vec<&str> = path.split('.').collect();
        let first = segs.first().copied().unwrap_or_default();
        let base = if !import.names.is_empty() {
            // `from x import n as b`: `b.rest` is `x.n.rest`.
            let n = import
                .bound
                .iter()
                .position(|b| b == first)
                .and_then(|k| import.names.get(k))
                .map_or(first, String::as_str);
            if import.spec.ends_with('.') {
                format!("{}{n}", import.spec)
            } else {
                format!("{}.{n}", import.spec)
            }
        } else if import.spec.split('.').next() != Some(first) {
            // `import a.b as c`: `c.rest` is `a.b.rest`.
            import.spec.clone()
        } else {
            first.to_owned()
        };
        let rest = segs.get(1..).unwrap_or_default();
        for k in (0..=rest.len()).rev() {
            let mut spec = base.clone();
            for s in rest.get(..k).unwrap_or_default() {
                spec.push('.');
                spec.push_str(s);
            }
            let probe = Import {
                spec,
                ..Import::default()
            };
            let found = self
                .resolver
                .resolve(self.path_of(id), Lang::Python, &probe);
            if !found.is_empty() {
                return found;
            }
        }
        Vec::new()
    }

    /// A qualified name, for a top-level symbol: it resolves through its
    /// qualifier.
    fn qualified(&self, t: &Target<'_>, reach: &Reach, id: usize, recv: &Receiver) -> Bound {
        let hit = |files: &[usize]| files.iter().any(|f| reach.own.contains(f));
        match recv {
            Receiver::Name {
                path,
                binding: Binding::Import(i),
            } => {
                if hit(&self.module_of(id, *i, path)) {
                    Bound::Use(format!(
                        "`{path}.{}` reaches {} through the import of `{path}`",
                        t.def.name, t.path
                    ))
                } else {
                    Bound::Other
                }
            }
            Receiver::Name {
                path,
                binding: Binding::Free,
            } => {
                // An absolute path: `crate::a::b`, `com.shop.Order`, a
                // workspace crate's `money::fx`.
                let Some(rec) = self.rec(id) else {
                    return Bound::Other;
                };
                let absolute = match rec.lang {
                    Lang::Rust => {
                        ["crate::", "super::", "self::"]
                            .iter()
                            .any(|p| path.starts_with(p) || path == p.trim_end_matches(':'))
                            || self
                                .resolver
                                .is_crate(path.split("::").next().unwrap_or_default())
                    }
                    Lang::Java => path.contains('.'),
                    _ => false,
                };
                if !absolute {
                    return Bound::Other;
                }
                let probe = Import {
                    spec: path.clone(),
                    ..Import::default()
                };
                if hit(&self.resolver.resolve(self.path_of(id), rec.lang, &probe)) {
                    Bound::Use(format!("`{path}` names {}", t.path))
                } else {
                    Bound::Other
                }
            }
            _ => Bound::Other,
        }
    }

    /// A bare name, for a member: Java's implicit `this`, Python's class
    /// body, a static import.
    fn bare_member(&self, t: &Target<'_>, reach: &Reach, id: usize, r: &Ref) -> Bound {
        let owner = t.def.owner.as_deref();
        match (&r.binding, t.lang) {
            (Binding::Local, _) => Bound::Other,
            (Binding::Import(i), _) => match self.import_reaches(t, reach, id, *i) {
                Some(how) => Bound::Use(how),
                None => Bound::Other,
            },
            (Binding::Free, Lang::Java) => match (owner, r.class.as_deref()) {
                (Some(c), Some(k)) if c == k && reach.own.contains(&id) => Bound::Use(format!(
                    "a bare `{}` inside `{c}` is its member",
                    t.def.name
                )),
                (Some(c), Some(k)) if self.extends(id, k, c) => Bound::Use(format!(
                    "a bare `{}` inside `{k}`, which extends `{c}`",
                    t.def.name
                )),
                _ => Bound::Other,
            },
            (Binding::Free, Lang::Python) => {
                let in_body = r.caller.is_none() && r.class.as_deref() == owner && owner.is_some();
                if in_body && reach.own.contains(&id) {
                    Bound::Use(format!(
                        "`{}` in the body of its class names the class attribute",
                        t.def.name
                    ))
                } else {
                    Bound::Other
                }
            }
            _ => Bound::Other,
        }
    }

    /// Whether class `class` of file `id` names `base` among its bases.
    fn extends(&self, id: usize, class: &str, base: &str) -> bool {
        self.rec(id).is_some_and(|rec| {
            rec.facts
                .classes
                .iter()
                .any(|c| c.name == class && c.bases.iter().any(|b| b.name == base))
        })
    }

    /// A member access `x.name`, for a member of a class.
    fn member(&self, t: &Target<'_>, reach: &Reach, id: usize, r: &Ref, recv: &Receiver) -> Bound {
        let name = &t.def.name;
        let Some(owner) = t.def.owner.as_deref() else {
            return self.unknown_receiver(t, reach, id);
        };
        let own = reach.own.contains(&id);
        let near = own || reach.same_package.contains(&id) || t.lang == Lang::Rust;
        match recv {
            Receiver::This => match r.class.as_deref() {
                Some(k) if k == owner && near => {
                    Bound::Use(format!("`{name}` is read on the object inside `{owner}`"))
                }
                Some(k) if self.extends(id, k, owner) => Bound::Use(format!(
                    "`{name}` is read on the object inside `{k}`, which extends `{owner}`"
                )),
                _ => Bound::Other,
            },
            Receiver::Typed { ty, binding, .. } if ty == owner => {
                let resolved = match binding {
                    // A type of that name from another module (the
                    // standard library's, say) is another type.
                    Binding::Import(i) => {
                        if self.import_reaches(t, reach, id, *i).is_none() {
                            return Bound::Other;
                        }
                        true
                    }
                    Binding::Free => near || reach.direct.contains(&id),
                    Binding::Local => false,
                };
                if resolved {
                    Bound::Use(format!("the receiver is declared or built as `{owner}`"))
                } else {
                    Bound::Doubt(format!(
                        "the receiver is declared as a `{owner}`, but that name may not be the \
                         class of {}",
                        t.path
                    ))
                }
            }
            Receiver::Typed { ty, .. } if is_vague_type(ty) => self.unknown_receiver(t, reach, id),
            Receiver::Typed { .. } => Bound::Other,
            Receiver::Derived {
                binding: Binding::Import(i),
                ..
            } if self.import_files(id, *i).is_empty() => Bound::Other,
            Receiver::Name {
                path,
                binding: Binding::Import(i),
            } => {
                let last = path.rsplit(['.', ':']).next().unwrap_or(path);
                if last == owner
                    && self
                        .import_files(id, *i)
                        .iter()
                        .any(|f| reach.own.contains(f))
                {
                    Bound::Use(format!("`{path}` is `{owner}`, imported from {}", t.path))
                } else {
                    Bound::Other
                }
            }
            Receiver::Name {
                path,
                binding: Binding::Free,
            } if path == owner => {
                if near || reach.direct.contains(&id) {
                    Bound::Use(format!("`{name}` is read on the class `{owner}` itself"))
                } else {
                    Bound::Other
                }
            }
            // Another class by name (`Calendar.MONTH`).
            Receiver::Name {
                path,
                binding: Binding::Free,
            } if path.chars().next().is_some_and(char::is_uppercase)
                && matches!(
                    t.lang,
                    Lang::Java | Lang::JavaScript | Lang::TypeScript | Lang::Tsx
                ) =>
            {
                Bound::Other
            }
            _ => self.unknown_receiver(t, reach, id),
        }
    }

    /// A member access whose receiver is not known.
    fn unknown_receiver(&self, t: &Target<'_>, reach: &Reach, id: usize) -> Bound {
        let name = &t.def.name;
        let owner = t.def.owner.as_deref().unwrap_or("its class");
        if is_standard_member(t.lang, name) {
            return Bound::Doubt(format!(
                "the receiver's type is not known here, and standard types also have a \
                 member `{name}`"
            ));
        }
        if let Some(base) = self.foreign_base(t) {
            return Bound::Doubt(format!(
                "the receiver's type is not known here, and `{owner}` extends `{base}`, from \
                 outside the project, which may have a member `{name}` too"
            ));
        }
        let file = self.path_of(id);
        if reach.own.contains(&id) {
            Bound::Use(format!(
                "the receiver's type is not known here, but `{name}` is a member of no other \
                 type in the repository and `{owner}` extends nothing outside it"
            ))
        } else if reach.direct.contains(&id) || reach.same_package.contains(&id) {
            Bound::Use(format!(
                "the receiver's type is not known here, but `{name}` is a member of no other \
                 type in the repository, `{owner}` extends nothing outside it, and {file} \
                 imports {}",
                t.path
            ))
        } else if reach.transitive.contains(&id) {
            Bound::Doubt(format!(
                "the receiver's type is not known here, and {file} reaches {} only through \
                 other imports",
                t.path
            ))
        } else {
            Bound::Other
        }
    }

    /// A base of the target's class that comes from outside the project.
    fn foreign_base(&self, t: &Target<'_>) -> Option<String> {
        let owner = t.def.owner.as_deref()?;
        let class = t.classes.iter().find(|c| c.name == owner)?;
        class.bases.iter().find_map(|b| {
            if matches!(b.name.as_str(), "object" | "Object") {
                return None;
            }
            let inside = match &b.binding {
                Binding::Import(i) => t
                    .imports
                    .get(*i)
                    .is_some_and(|im| !self.resolver.resolve(t.path, t.lang, im).is_empty()),
                Binding::Free => {
                    self.defined
                        .contains_key(&(t.lang.family(), b.name.clone()))
                        || t.classes.iter().any(|c| c.name == b.name)
                }
                Binding::Local => false,
            };
            (!inside).then(|| b.name.clone())
        })
    }
}
