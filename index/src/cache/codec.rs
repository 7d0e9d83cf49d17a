//! One file's facts as bytes, and back: every string once in a table at
//! the front, the facts after it as small integers (LEB128) that point
//! into the table.
//!
//! Decoding takes the names the review wants and materialises only the
//! definitions and references that carry one of them (imports and classes
//! are always kept, as the extractor keeps them), so a file whose facts
//! name nothing the change touched costs little more than reading its
//! table. Every index and length is checked: a payload that does not
//! decode is an error, never a panic.

use crate::extract::{Arity, Base, Binding, ClassInfo, Def, FileFacts, Import, Receiver, Ref};
use revu_domain::code_index::SymbolKind;
use std::collections::HashMap;

/// The payload does not decode: cut short, or an index out of range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the facts do not decode at byte {at}")]
pub struct Malformed {
    pub at: usize,
}

/// `facts` as bytes.
pub fn encode(facts: &FileFacts) -> Vec<u8> {
    let mut body = Body::default();
    body.facts(facts);
    let mut out = Vec::with_capacity(body.bytes.len() + body.table_bytes + 8);
    varint(&mut out, len32(body.table.len()));
    for s in &body.table {
        varint(&mut out, len32(s.len()));
        out.extend_from_slice(s.as_bytes());
    }
    out.extend_from_slice(&body.bytes);
    out
}

/// The facts in `payload`, keeping the definitions and references whose
/// name `want` accepts; with `marks`, also the marks every definition and
/// reference leaves on its name ([`crate::tree::Mark`]).
pub fn decode(
    payload: &[u8],
    want: &dyn Fn(&str) -> bool,
    marks: Option<&mut Vec<crate::tree::Mark>>,
) -> Result<FileFacts, Malformed> {
    let mut input = Input {
        buf: payload,
        at: 0,
    };
    let n = input.count()?;
    let mut table = Vec::with_capacity(n);
    for _ in 0..n {
        let len = input.count()?;
        let bytes = input.take(len)?;
        let s = std::str::from_utf8(bytes).map_err(|_| input.malformed())?;
        table.push(s);
    }
    let wanted: Vec<bool> = table.iter().map(|s| want(s)).collect();
    let marking = marks.is_some();
    let mut d = Decoder {
        input,
        wanted,
        marks: if marking {
            vec![0; table.len()]
        } else {
            Vec::new()
        },
        table,
    };
    let facts = d.facts()?;
    if d.input.at != d.input.buf.len() {
        return Err(d.input.malformed());
    }
    if let Some(out) = marks {
        let named = d.table.iter().zip(&d.marks).filter(|(_, m)| **m != 0);
        *out = crate::tree::hashed(named.map(|(n, m)| (*n, *m)));
    }
    Ok(facts)
}

fn len32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn varint(out: &mut Vec<u8>, mut n: u32) {
    while n >= 0x80 {
        out.push((n as u8 & 0x7f) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// An optional number: 0 for none, n + 1 for n.
fn opt(n: Option<u32>) -> u32 {
    n.map_or(0, |n| n.saturating_add(1))
}

/// The facts after the table, and the table they point into.
#[derive(Default)]
struct Body<'f> {
    bytes: Vec<u8>,
    table: Vec<&'f str>,
    table_bytes: usize,
    ids: HashMap<&'f str, u32>,
}

impl<'f> Body<'f> {
    fn n(&mut self, n: u32) {
        varint(&mut self.bytes, n);
    }

    fn count(&mut self, n: usize) {
        self.n(len32(n));
    }

    fn intern(&mut self, s: &'f str) -> u32 {
        let next = len32(self.table.len());
        let id = *self.ids.entry(s).or_insert(next);
        if id == next {
            self.table.push(s);
            self.table_bytes += s.len() + 2;
        }
        id
    }

    fn s(&mut self, s: &'f str) {
        let id = self.intern(s);
        self.n(id);
    }

    /// An optional string: 0 for none, else its id + 1.
    fn opt_s(&mut self, s: Option<&'f str>) {
        let id = s.map(|s| self.intern(s));
        self.n(opt(id));
    }

    fn facts(&mut self, f: &'f FileFacts) {
        self.n(u32::from(f.has_errors));
        self.count(f.imports.len());
        for i in &f.imports {
            self.import(i);
        }
        self.count(f.classes.len());
        for c in &f.classes {
            self.class(c);
        }
        self.count(f.defs.len());
        for d in &f.defs {
            self.def(d);
        }
        self.count(f.refs.len());
        for r in &f.refs {
            self.reference(r);
        }
    }

    fn import(&mut self, i: &'f Import) {
        self.s(&i.spec);
        self.strings(&i.names);
        self.strings(&i.bound);
        let flags = u32::from(i.module_decl) | u32::from(i.wildcard) << 1 | u32::from(i.local) << 2;
        self.n(flags);
    }

    fn strings(&mut self, list: &'f [String]) {
        self.count(list.len());
        for s in list {
            self.s(s);
        }
    }

    fn class(&mut self, c: &'f ClassInfo) {
        self.s(&c.name);
        self.n(c.line);
        self.count(c.bases.len());
        for b in &c.bases {
            self.s(&b.name);
            self.s(&b.via);
            self.binding(&b.binding);
        }
    }

    fn def(&mut self, d: &'f Def) {
        self.s(&d.name);
        self.n(kind_code(d.kind));
        self.n(d.line);
        self.n(d.end_line);
        match d.arity {
            None => self.n(0),
            Some(a) => {
                self.n(1);
                self.n(a.required);
                self.n(opt(a.max));
            }
        }
        self.n(u32::from(d.takes_self));
        self.opt_s(d.owner.as_deref());
    }

    fn reference(&mut self, r: &'f Ref) {
        self.s(&r.name);
        self.n(r.line);
        let flags = u32::from(r.member)
            | u32::from(r.path_call) << 1
            | u32::from(r.called) << 2
            | u32::from(r.import) << 3
            | u32::from(r.raise_guard) << 4;
        self.n(flags);
        self.n(opt(r.caller));
        self.n(opt(r.call_args));
        self.binding(&r.binding);
        self.receiver(r.receiver.as_ref());
        self.opt_s(r.class.as_deref());
    }

    fn binding(&mut self, b: &Binding) {
        match b {
            Binding::Local => self.n(0),
            Binding::Free => self.n(1),
            Binding::Import(i) => self.n(len32(*i).saturating_add(2)),
        }
    }

    fn receiver(&mut self, r: Option<&'f Receiver>) {
        match r {
            None => self.n(0),
            Some(Receiver::This) => self.n(1),
            Some(Receiver::Unknown) => self.n(2),
            Some(Receiver::Name { path, binding }) => {
                self.n(3);
                self.s(path);
                self.binding(binding);
            }
            Some(Receiver::Typed { ty, via, binding }) => {
                self.n(4);
                self.s(ty);
                self.s(via);
                self.binding(binding);
            }
            Some(Receiver::Derived { root, binding }) => {
                self.n(5);
                self.s(root);
                self.binding(binding);
            }
        }
    }
}

fn kind_code(kind: SymbolKind) -> u32 {
    match kind {
        SymbolKind::Function => 0,
        SymbolKind::Method => 1,
        SymbolKind::Class => 2,
        SymbolKind::Type => 3,
        SymbolKind::Property => 4,
        SymbolKind::Variable => 5,
    }
}

fn kind_of(code: u32) -> Option<SymbolKind> {
    Some(match code {
        0 => SymbolKind::Function,
        1 => SymbolKind::Method,
        2 => SymbolKind::Class,
        3 => SymbolKind::Type,
        4 => SymbolKind::Property,
        5 => SymbolKind::Variable,
        _ => return None,
    })
}

struct Input<'p> {
    buf: &'p [u8],
    at: usize,
}

impl<'p> Input<'p> {
    fn malformed(&self) -> Malformed {
        Malformed { at: self.at }
    }

    fn n(&mut self) -> Result<u32, Malformed> {
        let mut n = 0u32;
        for shift in [0, 7, 14, 21, 28] {
            let b = *self.buf.get(self.at).ok_or(self.malformed())?;
            self.at += 1;
            n |= u32::from(b & 0x7f)
                .checked_shl(shift)
                .ok_or(self.malformed())?;
            if b & 0x80 == 0 {
                return Ok(n);
            }
        }
        Err(self.malformed())
    }

    /// A count or a length: never more than the bytes left, since every
    /// item takes at least one.
    fn count(&mut self) -> Result<usize, Malformed> {
        let n = usize::try_from(self.n()?).map_err(|_| self.malformed())?;
        if n > self.buf.len() - self.at {
            return Err(self.malformed());
        }
        Ok(n)
    }

    fn take(&mut self, len: usize) -> Result<&'p [u8], Malformed> {
        let end = self.at.checked_add(len).ok_or(self.malformed())?;
        let bytes = self.buf.get(self.at..end).ok_or(self.malformed())?;
        self.at = end;
        Ok(bytes)
    }

    fn flag(&mut self) -> Result<bool, Malformed> {
        match self.n()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(self.malformed()),
        }
    }

    fn opt(&mut self) -> Result<Option<u32>, Malformed> {
        Ok(self.n()?.checked_sub(1))
    }
}

struct Decoder<'p> {
    input: Input<'p>,
    table: Vec<&'p str>,
    wanted: Vec<bool>,
    /// Per string, the mark definitions and references leave on it; empty
    /// when marks are not asked for.
    marks: Vec<u8>,
}

impl<'p> Decoder<'p> {
    fn id(&mut self) -> Result<usize, Malformed> {
        let id = usize::try_from(self.input.n()?).map_err(|_| self.input.malformed())?;
        if id >= self.table.len() {
            return Err(self.input.malformed());
        }
        Ok(id)
    }

    fn s(&mut self) -> Result<String, Malformed> {
        let id = self.id()?;
        Ok(self.table[id].to_owned())
    }

    /// An optional string's id.
    fn opt_id(&mut self) -> Result<Option<usize>, Malformed> {
        match self.input.opt()? {
            None => Ok(None),
            Some(id) => match usize::try_from(id) {
                Ok(id) if id < self.table.len() => Ok(Some(id)),
                _ => Err(self.input.malformed()),
            },
        }
    }

    fn opt_s(&mut self) -> Result<Option<String>, Malformed> {
        Ok(self.opt_id()?.map(|id| self.table[id].to_owned()))
    }

    fn strings(&mut self) -> Result<Vec<String>, Malformed> {
        let n = self.input.count()?;
        (0..n).map(|_| self.s()).collect()
    }

    fn facts(&mut self) -> Result<FileFacts, Malformed> {
        let has_errors = self.input.flag()?;
        let n = self.input.count()?;
        let imports = (0..n).map(|_| self.import()).collect::<Result<_, _>>()?;
        let n = self.input.count()?;
        let classes = (0..n).map(|_| self.class()).collect::<Result<_, _>>()?;
        let n = self.input.count()?;
        let mut defs = Vec::new();
        for _ in 0..n {
            if let Some(d) = self.def()? {
                defs.push(d);
            }
        }
        let n = self.input.count()?;
        let mut refs = Vec::new();
        for _ in 0..n {
            if let Some(r) = self.reference()? {
                refs.push(r);
            }
        }
        Ok(FileFacts {
            defs,
            refs,
            imports,
            classes,
            has_errors,
        })
    }

    fn import(&mut self) -> Result<Import, Malformed> {
        let spec = self.s()?;
        let names = self.strings()?;
        let bound = self.strings()?;
        let flags = self.input.n()?;
        if flags > 0b111 {
            return Err(self.input.malformed());
        }
        Ok(Import {
            spec,
            names,
            module_decl: flags & 1 != 0,
            wildcard: flags & 2 != 0,
            bound,
            local: flags & 4 != 0,
        })
    }

    fn class(&mut self) -> Result<ClassInfo, Malformed> {
        let name = self.s()?;
        let line = self.input.n()?;
        let n = self.input.count()?;
        let mut bases = Vec::with_capacity(n);
        for _ in 0..n {
            let name = self.s()?;
            let via = self.s()?;
            let binding = self.binding()?;
            bases.push(Base { name, via, binding });
        }
        Ok(ClassInfo { name, line, bases })
    }

    /// The next definition, if its name is wanted.
    fn def(&mut self) -> Result<Option<Def>, Malformed> {
        let name = self.id()?;
        let kind = kind_of(self.input.n()?).ok_or(self.input.malformed())?;
        let line = self.input.n()?;
        let end_line = self.input.n()?;
        let arity = match self.input.n()? {
            0 => None,
            1 => Some(Arity {
                required: self.input.n()?,
                max: self.input.opt()?,
            }),
            _ => return Err(self.input.malformed()),
        };
        let takes_self = self.input.flag()?;
        let owner = self.opt_id()?;
        if let Some(m) = self.marks.get_mut(name) {
            *m = crate::tree::def_mark(*m);
        }
        if !self.wanted[name] {
            return Ok(None);
        }
        Ok(Some(Def {
            name: self.table[name].to_owned(),
            kind,
            line,
            end_line,
            arity,
            takes_self,
            owner: owner.map(|id| self.table[id].to_owned()),
        }))
    }

    /// The next reference, if its name is wanted.
    fn reference(&mut self) -> Result<Option<Ref>, Malformed> {
        let name = self.id()?;
        let line = self.input.n()?;
        let flags = self.input.n()?;
        if flags > 0b1_1111 {
            return Err(self.input.malformed());
        }
        let caller = self.input.opt()?;
        let call_args = self.input.opt()?;
        let import = flags & 8 != 0;
        if !self.wanted[name] {
            let free = self.input.n()? == 1;
            let receiver = self.skip_receiver()?;
            let class = self.opt_id()?.is_some();
            self.mark(name, crate::tree::ref_mark(receiver, class, free, import));
            return Ok(None);
        }
        let binding = self.binding()?;
        let receiver = self.receiver()?;
        let class = self.opt_s()?;
        self.mark(
            name,
            crate::tree::ref_mark(
                receiver.is_some(),
                class.is_some(),
                binding == Binding::Free,
                import,
            ),
        );
        Ok(Some(Ref {
            name: self.table[name].to_owned(),
            line,
            member: flags & 1 != 0,
            caller,
            call_args,
            path_call: flags & 2 != 0,
            called: flags & 4 != 0,
            import,
            binding,
            receiver,
            class,
            raise_guard: flags & 16 != 0,
        }))
    }

    fn binding(&mut self) -> Result<Binding, Malformed> {
        Ok(match self.input.n()? {
            0 => Binding::Local,
            1 => Binding::Free,
            n => Binding::Import(usize::try_from(n - 2).map_err(|_| self.input.malformed())?),
        })
    }

    fn skip_binding(&mut self) -> Result<(), Malformed> {
        self.input.n().map(|_| ())
    }

    fn mark(&mut self, name: usize, mark: u8) {
        if let Some(m) = self.marks.get_mut(name) {
            *m = crate::tree::join_marks(*m, mark);
        }
    }

    fn receiver(&mut self) -> Result<Option<Receiver>, Malformed> {
        Ok(Some(match self.input.n()? {
            0 => return Ok(None),
            1 => Receiver::This,
            2 => Receiver::Unknown,
            3 => Receiver::Name {
                path: self.s()?,
                binding: self.binding()?,
            },
            4 => Receiver::Typed {
                ty: self.s()?,
                via: self.s()?,
                binding: self.binding()?,
            },
            5 => Receiver::Derived {
                root: self.s()?,
                binding: self.binding()?,
            },
            _ => return Err(self.input.malformed()),
        }))
    }

    /// Skips a receiver; whether there was one.
    fn skip_receiver(&mut self) -> Result<bool, Malformed> {
        let ids = match self.input.n()? {
            0 => return Ok(false),
            1 | 2 => return Ok(true),
            3 | 5 => 1,
            4 => 2,
            _ => return Err(self.input.malformed()),
        };
        for _ in 0..ids {
            self.id()?;
        }
        self.skip_binding()?;
        Ok(true)
    }
}
