//! A file's added lines lexed once ([`super::lexical`]): each line's
//! view as code and as code with strings, kept as slices of the line or
//! of one arena per file, and shared by every rule and lane that reads
//! the file ([`super::memo`]). A file is lexed from the start of its head
//! file when the review carries it, so that a hunk opening inside a block
//! comment or a string is read right; else from each hunk's start.

use super::catalogue::Kind;
use super::lang::Lang;
use super::lexical::{Class, HeadCursor, Lexer, Run, State};
use super::scope::{LineRef, head_lines_at, test_code_start};
use super::{Reads, is_text};
use revu_common::diff::FilePatch;
use revu_common::pattern::LineMask;
use std::sync::{Arc, OnceLock};

/// Where a line's text in one view is: a slice of the line as written,
/// or of the file's arena (a view with something taken out of its middle).
#[derive(Debug, Clone, Copy)]
enum Seg {
    Line(u32, u32),
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
    /// Per view, the [`LineMask`] of each line it holds, worked out when
    /// a rule first asks ([`super::RuleContext::production_masks`]).
    masks: [OnceLock<Vec<LineMask>>; 3],
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
            masks: Default::default(),
            kind: OnceLock::new(),
        };
        if !text {
            return out;
        }
        let lang = Lang::of(patch.path());
        let mut head = head.map(|h| HeadCursor::new(lang, h));
        let mut runs: Vec<Run> = Vec::new();
        for (h, hunk) in patch.hunks.iter().enumerate() {
            if hunk.lines.iter().all(|l| l.new_line().is_none()) {
                continue;
            }
            let state = head
                .as_mut()
                .map_or_else(State::default, |c| c.state_at(hunk.new_start));
            let mut lexer = Lexer::at(lang, state);
            for (at, l) in head_lines_at(hunk) {
                runs.clear();
                lexer.line(l.text, &mut runs);
                if l.added {
                    let at = LineRef::new(l.line, h, at);
                    let added = out.lexed(at, l.text, &runs);
                    out.added.push(added);
                }
            }
        }
        out
    }

    /// The record of the added line `text` at `at`, lexed into `runs`.
    fn lexed(&mut self, at: LineRef, text: &str, runs: &[Run]) -> Added {
        let content = |class: Class| {
            runs.iter().any(|r| {
                r.class == class
                    && text
                        .get(r.from..r.to)
                        .is_some_and(|t| t.bytes().any(|b| !b.is_ascii_whitespace()))
            })
        };
        Added {
            at,
            code: self.view(text, runs, |c| c == Class::Code),
            strings: self.view(text, runs, |c| c != Class::Comment),
            has_code: content(Class::Code),
            has_strings: content(Class::Str),
        }
    }

    /// The runs of `text` that `keep` keeps: a comment taken out of the
    /// middle of a line leaves a space, a string's contents nothing.
    /// Borrowed from the line when only its end goes.
    fn view(&mut self, text: &str, runs: &[Run], keep: impl Fn(Class) -> bool) -> Seg {
        let cut = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        let Some(first) = runs.iter().position(|r| !keep(r.class)) else {
            return Seg::Line(0, cut(text.len()));
        };
        let rest = &runs[first..];
        if rest.iter().all(|r| !keep(r.class)) {
            return Seg::Line(0, cut(rest[0].from));
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

    /// The text of `seg`, a view of the line `at` of `patch`.
    fn text<'s>(&'s self, patch: &'s FilePatch, at: LineRef, seg: Seg) -> &'s str {
        let (within, from, to) = match seg {
            Seg::Line(from, to) => (at.text(patch), from, to),
            Seg::Arena(from, to) => (self.arena.as_str(), from, to),
        };
        within.get(from as usize..to as usize).unwrap_or_default()
    }

    /// The text of the line `a` in the view of `reads`.
    fn seen<'s>(&'s self, patch: &'s FilePatch, a: &Added, reads: Reads) -> &'s str {
        match reads {
            Reads::Code => self.text(patch, a.at, a.code),
            Reads::CodeAndStrings => self.text(patch, a.at, a.strings),
            Reads::Everything => a.at.text(patch),
        }
    }

    /// The lines the view of `reads` holds.
    fn held(&self, reads: Reads) -> impl Iterator<Item = &Added> {
        self.added.iter().filter(move |a| a.holds(reads))
    }

    /// The [`LineMask`] of each line of the view of `reads`, which serves
    /// it and its code.
    pub(super) fn masks(&self, patch: &FilePatch, reads: Reads) -> &[LineMask] {
        self.masks[reads.index()].get_or_init(|| {
            self.held(reads)
                .map(|a| {
                    let mask = LineMask::of(self.seen(patch, a, reads));
                    match reads {
                        Reads::Code => mask,
                        _ => mask.with(self.text(patch, a.at, a.code)),
                    }
                })
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
    views: [OnceLock<View<'a>>; 3],
}

/// The lines one view holds, with their code.
#[derive(Debug)]
pub(super) struct View<'a> {
    pub lines: Vec<(u32, &'a str)>,
    pub code: Vec<&'a str>,
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

    pub(super) fn view(&'a self, reads: Reads) -> &'a View<'a> {
        self.views[reads.index()].get_or_init(|| {
            let shared = self.shared();
            let patch = self.patch;
            let held: Vec<&Added> = shared.held(reads).collect();
            View {
                lines: held
                    .iter()
                    .map(|a| (a.at.line, shared.seen(patch, a, reads)))
                    .collect(),
                code: held
                    .iter()
                    .map(|a| shared.text(patch, a.at, a.code))
                    .collect(),
                production: held.partition_point(|a| a.at.line < shared.tests_from),
            }
        })
    }
}
