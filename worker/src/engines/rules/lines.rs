//! A file's added lines lexed once ([`super::lexical`]): each line's
//! view as code and as code with strings, kept as slices of the line or
//! of one arena per file, and shared by every rule and lane that reads
//! the file ([`super::memo`]). A file is lexed from the start of its head
//! file when the review carries it, so that a hunk opening inside a block
//! comment or a string is read right; else from each hunk's start.

use super::lang::Lang;
use super::lexical::{Class, HeadCursor, Lexer, Run};
use super::scope::{LineRef, head_lines_at, test_code_start};
use super::table::Kind;
use super::{Reads, is_text};
use revu_domain::diff::{FilePatch, LineKind};
use revu_domain::pattern::LineMask;
use std::sync::{Arc, OnceLock};

/// Where a line's text in one view is: the first bytes of the line as
/// written (all of them, or up to a trailing comment), or a slice of the
/// file's arena (a view with something taken out of its middle).
#[derive(Debug, Clone, Copy)]
enum Seg {
    Prefix(u32),
    Arena(u32, u32),
}

/// One added line of a file, lexed.
#[derive(Debug, Clone, Copy)]
struct Added {
    at: LineRef,
    code: Seg,
    strings: Seg,
    has_code: bool,
    has_strings: bool,
}

impl Added {
    /// Whether the line holds anything in the view of `reads`.
    fn holds(&self, reads: Reads) -> bool {
        match reads {
            Reads::Code => self.has_code,
            Reads::CodeAndStrings => self.has_code || self.has_strings,
            Reads::Everything => true,
        }
    }
}

/// What the rules work out about a file once for all the lanes that read
/// it ([`super::memo`]), holding nothing of the diff itself.
#[derive(Debug)]
pub(crate) struct SharedLines {
    /// Every added line, in order.
    added: Vec<Added>,
    /// The views that are not a slice of their line, end to end.
    arena: String,
    /// The head line from which the file is test code.
    tests_from: u32,
    /// Whether the rules read its text ([`super::text_files`]).
    pub(super) text: bool,
    /// The [`LineMask`] of each added line, which holds the pairs of each
    /// of its views (a mask may hold more than its line's), worked out
    /// when a rule first asks ([`super::RuleContext::production_masks`]).
    masks: OnceLock<Vec<LineMask>>,
    /// Those of the lines each view but the last holds.
    view_masks: [OnceLock<Vec<LineMask>>; 2],
    /// What kind of file it is, for the tables ([`super::RuleContext::kind`]).
    pub(super) kind: OnceLock<Kind>,
}

impl SharedLines {
    /// `patch`'s added lines lexed, from the start of `head` (the file at
    /// head) when it is known, else from each hunk's start.
    pub(crate) fn of(patch: &FilePatch, head: Option<&str>) -> Self {
        let text = is_text(patch);
        let mut out = SharedLines {
            added: Vec::new(),
            arena: String::new(),
            tests_from: test_code_start(patch),
            text,
            masks: OnceLock::new(),
            view_masks: Default::default(),
            kind: OnceLock::new(),
        };
        if !text {
            return out;
        }
        let lang = Lang::of(patch.path());
        let mut head = head.map(|h| HeadCursor::new(lang, h));
        let mut runs: Vec<Run> = Vec::new();
        for (h, hunk) in patch.hunks.iter().enumerate() {
            // Lexed up to its last added line: what follows is read again
            // from the head file, or starts afresh with the next hunk.
            let mut to_read = hunk
                .lines
                .iter()
                .filter(|l| l.kind() == LineKind::Added)
                .count();
            if to_read == 0 {
                continue;
            }
            let mut lexer = match head.as_mut() {
                Some(head) => Lexer::at(lang, head.state_at(hunk.new_start)),
                None if hunk.new_start <= 1 => Lexer::new(lang),
                None => Lexer::guessing(lang),
            };
            for (at, l) in head_lines_at(hunk) {
                runs.clear();
                lexer.line(l.text, &mut runs);
                if l.added {
                    let at = LineRef::new(l.line, h, at);
                    let added = out.lexed(at, l.text, &runs);
                    out.added.push(added);
                    to_read -= 1;
                    if to_read == 0 {
                        break;
                    }
                }
            }
        }
        out
    }

    /// The record of the added line `text` at `at`, lexed into `runs`.
    fn lexed(&mut self, at: LineRef, text: &str, runs: &[Run]) -> Added {
        let (mut has_code, mut has_strings) = (false, false);
        for r in runs {
            let held = text
                .as_bytes()
                .get(r.from..r.to)
                .is_some_and(|t| t.iter().any(|b| !b.is_ascii_whitespace()));
            match r.class {
                Class::Code => has_code |= held,
                Class::Str => has_strings |= held,
                Class::Comment => {}
            }
        }
        Added {
            at,
            code: self.view(text, runs, |c| c == Class::Code),
            strings: self.view(text, runs, |c| c != Class::Comment),
            has_code,
            has_strings,
        }
    }

    /// The runs of `text` that `keep` keeps: a comment taken out of the
    /// middle of a line leaves a space, a string's contents nothing.
    /// Borrowed from the line when only its end goes.
    fn view(&mut self, text: &str, runs: &[Run], keep: impl Fn(Class) -> bool) -> Seg {
        let cut = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        let Some(first) = runs.iter().position(|r| !keep(r.class)) else {
            return Seg::Prefix(cut(text.len()));
        };
        let rest = &runs[first..];
        if rest.iter().all(|r| !keep(r.class)) {
            return Seg::Prefix(cut(rest[0].from));
        }
        let from = self.arena.len();
        for (i, r) in runs.iter().enumerate() {
            if keep(r.class) {
                self.arena
                    .push_str(text.get(r.from..r.to).unwrap_or_default());
            } else if r.class == Class::Comment && runs[i + 1..].iter().any(|r| keep(r.class)) {
                self.arena.push(' ');
            }
        }
        Seg::Arena(cut(from), cut(self.arena.len()))
    }

    /// The text of `seg`, a view of the line written `raw`.
    fn text<'s>(&'s self, raw: &'s str, seg: Seg) -> &'s str {
        let (within, from, to) = match seg {
            Seg::Prefix(to) => (raw, 0, to),
            Seg::Arena(from, to) => (self.arena.as_str(), from, to),
        };
        within.get(from as usize..to as usize).unwrap_or_default()
    }

    /// The line `a`, written `raw`, in the view of `reads`.
    fn seen<'s>(&'s self, a: &Added, raw: &'s str, reads: Reads) -> &'s str {
        match reads {
            Reads::Code => self.text(raw, a.code),
            Reads::CodeAndStrings => self.text(raw, a.strings),
            Reads::Everything => raw,
        }
    }

    /// The [`LineMask`] of each line of the view of `reads`, which serves
    /// it and its code.
    pub(super) fn masks(&self, patch: &FilePatch, reads: Reads) -> &[LineMask] {
        let all = self.masks.get_or_init(|| {
            self.added
                .iter()
                .map(|a| {
                    let raw = a.at.text(patch);
                    let mut mask = LineMask::of(raw);
                    for seg in [a.code, a.strings] {
                        if let Seg::Arena(..) = seg {
                            mask = mask.with(self.text(raw, seg));
                        }
                    }
                    mask
                })
                .collect()
        });
        let Some(held) = self.view_masks.get(reads.index()) else {
            return all;
        };
        held.get_or_init(|| {
            self.added
                .iter()
                .zip(all)
                .filter(|(a, _)| a.holds(reads))
                .map(|(_, m)| *m)
                .collect()
        })
    }
}

/// One file's lines as a lane's rules read them: the [`SharedLines`],
/// and each view's lines resolved to text when a rule first asks.
#[derive(Debug)]
pub(crate) struct FileLines<'a> {
    pub patch: &'a FilePatch,
    /// The head file, lexed from its start when the lines are worked out
    /// here.
    head: Option<&'a str>,
    shared: OnceLock<Arc<SharedLines>>,
    /// Every added line as written.
    raw: OnceLock<Vec<&'a str>>,
    views: [OnceLock<View<'a>>; 3],
}

/// The lines one view holds, with their code.
#[derive(Debug)]
pub(super) struct View<'a> {
    pub lines: Vec<(u32, &'a str)>,
    /// Their code, when a rule asks.
    code: OnceLock<Vec<&'a str>>,
    /// How many of `lines` come before test code.
    pub production: usize,
}

impl<'a> FileLines<'a> {
    /// `patch`'s lines, from what is shared about it.
    pub(crate) fn of(patch: &'a FilePatch, shared: Arc<SharedLines>) -> Self {
        FileLines {
            patch,
            head: None,
            shared: OnceLock::from(shared),
            raw: OnceLock::new(),
            views: Default::default(),
        }
    }

    /// `patch`'s lines, worked out (with `head`, the file at head) when a
    /// rule first asks.
    pub(crate) fn lazy(patch: &'a FilePatch, head: Option<&'a str>) -> Self {
        FileLines {
            patch,
            head,
            shared: OnceLock::new(),
            raw: OnceLock::new(),
            views: Default::default(),
        }
    }

    pub(super) fn shared(&self) -> &SharedLines {
        self.shared
            .get_or_init(|| Arc::new(SharedLines::of(self.patch, self.head)))
    }

    /// Whether the rules read the file's text.
    pub(crate) fn is_text(&self) -> bool {
        self.shared
            .get()
            .map_or_else(|| is_text(self.patch), |s| s.text)
    }

    pub(crate) fn kind(&self) -> Kind {
        *self
            .shared()
            .kind
            .get_or_init(|| Kind::of(self.patch.path()))
    }

    /// The lines of the view of `reads`.
    pub(super) fn view(&'a self, reads: Reads) -> &'a View<'a> {
        self.views[reads.index()].get_or_init(|| {
            let shared = self.shared();
            let lines: Vec<(u32, &'a str)> = self
                .held(reads)
                .map(|(a, raw)| (a.at.line, shared.seen(a, raw, reads)))
                .collect();
            View {
                production: lines.partition_point(|&(n, _)| n < shared.tests_from),
                lines,
                code: OnceLock::new(),
            }
        })
    }

    /// The code of each line of the view of `reads`.
    pub(super) fn code(&'a self, reads: Reads) -> &'a [&'a str] {
        let view = self.view(reads);
        if reads == Reads::Code {
            return view
                .code
                .get_or_init(|| view.lines.iter().map(|&(_, t)| t).collect());
        }
        let shared = self.shared();
        view.code.get_or_init(|| {
            self.held(reads)
                .map(|(a, raw)| shared.seen(a, raw, Reads::Code))
                .collect()
        })
    }

    /// The added lines the view of `reads` holds, each with its text.
    fn held(&'a self, reads: Reads) -> impl Iterator<Item = (&'a Added, &'a str)> {
        let shared = self.shared();
        let raw = self
            .raw
            .get_or_init(|| shared.added.iter().map(|a| a.at.text(self.patch)).collect());
        shared
            .added
            .iter()
            .zip(raw.iter().copied())
            .filter(move |(a, _)| a.holds(reads))
    }
}
