//! What each byte of a file's lines is: code, comment, or the contents of
//! a string literal, read line by line with the state carried from one
//! line to the next (a block comment, a multi-line string, a template
//! literal opened lines above).
//!
//! A small lexer per language family ([`grammar`]), not a parser: it knows
//! the comment markers, the quotes and their escapes, raw strings, Python
//! docstrings and JavaScript template literals, and nothing of the
//! grammar beyond what telling those apart needs (a bracket depth for
//! docstrings, a brace depth for `${…}`). It allocates nothing: a line is
//! given to a [`Sink`] as runs of one class.
//!
//! Invariants: runs cover the line in order, without gaps or overlaps,
//! and split it only at ASCII bytes (so every run is valid UTF-8 of the
//! line); a string's delimiters are code (`"`, `r#"`, `${`), so that a
//! line with its string contents blanked still reads as code; a
//! docstring, delimiters included, is a comment.

mod grammar;
mod guess;
mod literal;
use literal::Word;
mod scan;
#[cfg(test)]
mod tests;

use super::lang::Lang;
use grammar::Grammar;

/// What a byte of a line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Class {
    Code,
    /// The contents of a string (or character, or regex) literal.
    Str,
    /// A comment, or a Python docstring.
    Comment,
}

/// Bytes `from..to` of a line, all of one class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Run {
    pub class: Class,
    pub from: usize,
    pub to: usize,
}

/// Where the lexer gives a line's runs.
pub(crate) trait Sink {
    fn run(&mut self, class: Class, from: usize, to: usize);
}

/// Runs collected in order, neighbours of one class merged.
impl Sink for Vec<Run> {
    fn run(&mut self, class: Class, from: usize, to: usize) {
        if from >= to {
            return;
        }
        match self.last_mut() {
            Some(last) if last.class == class && last.to == from => last.to = to,
            _ => self.push(Run { class, from, to }),
        }
    }
}

/// A sink that keeps nothing: for the lines read only for the state they
/// leave (a head file's lines above a hunk).
#[derive(Debug)]
pub(crate) struct Discard;

impl Sink for Discard {
    fn run(&mut self, _: Class, _: usize, _: usize) {}
}

/// What the lexer carries from one line to the next.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct State {
    mode: Mode,
    /// Python: brackets open, so that a string opening a line inside them
    /// is an argument rather than a docstring.
    brackets: u16,
    /// The line ended with a backslash outside any string: the next one
    /// continues its statement.
    continued: bool,
    /// JavaScript: the template literals whose `${…}` is open.
    holes: Holes,
    /// Shell: the here-document opened on this line, whose body starts
    /// on the next.
    heredoc: Option<Word>,
    /// Whether the state the lexer began in is a guess ([`guess`]).
    guessing: bool,
    /// Whether a triple quote has been read since.
    tripled: bool,
    /// Python: whether the last line that held code ended with `:`
    /// (`None` before any).
    colon: Option<bool>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Mode {
    #[default]
    Code,
    /// Inside a block comment, this many deep (only some languages nest).
    Block(u16),
    /// Inside Ruby's `=begin` … `=end`.
    Embedded,
    /// Inside a shell here-document, up to the line that is its word.
    Heredoc(Word),
    Str(Quoted),
}

/// An open string literal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Quoted {
    close: Close,
    /// A Python docstring: a comment to the rules.
    doc: bool,
    /// Whether it goes on past a line end without a backslash there.
    spans: bool,
}

/// What ends a string literal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Close {
    /// This quote; a backslash escapes the next byte.
    Quote(u8),
    /// This quote; no escapes (a shell `'…'`, a Go raw string).
    Literal(u8),
    /// This quote, unless doubled (SQL `'it''s'`, C# `@"…"`).
    Doubled(u8),
    /// Three of this quote; a backslash escapes the next byte.
    Triple(u8),
    /// `"` and this many `#` (a Rust raw string).
    Raw(u8),
    /// A JavaScript template literal: `` ` ``, or `${` opening code.
    Template,
}

/// The brace depth inside each open `${…}` of nested template literals,
/// innermost last; deeper nesting than this is read as string contents.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Holes {
    depths: [u8; 4],
    len: u8,
}

impl Holes {
    fn top(&mut self) -> Option<&mut u8> {
        let top = usize::from(self.len).checked_sub(1)?;
        self.depths.get_mut(top)
    }

    fn push(&mut self) -> bool {
        let Some(slot) = self.depths.get_mut(usize::from(self.len)) else {
            return false;
        };
        *slot = 0;
        self.len += 1;
        true
    }
}

/// A language's lexer, reading one line after another.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Lexer {
    grammar: &'static Grammar,
    state: State,
}

impl Lexer {
    /// A lexer for `lang` at the start of a file.
    pub(crate) fn new(lang: Lang) -> Self {
        Self::at(lang, State::default())
    }

    /// A lexer for `lang` at a line whose state is not known: a hunk's
    /// first line, read without its file ([`guess`]).
    pub(crate) fn guessing(lang: Lang) -> Self {
        Self::at(
            lang,
            State {
                guessing: true,
                ..State::default()
            },
        )
    }

    /// A lexer for `lang` in `state`.
    pub(crate) fn at(lang: Lang, state: State) -> Self {
        Lexer {
            grammar: grammar::of(lang),
            state,
        }
    }

    /// What it carries to the next line.
    pub(crate) fn state(&self) -> State {
        self.state
    }
}

/// A head file read from its start, for the state its lexer is in at a
/// given line.
#[derive(Debug)]
pub(crate) struct HeadCursor<'h> {
    lexer: Lexer,
    rest: &'h str,
    /// The number of the line `rest` starts with.
    line: u32,
}

impl<'h> HeadCursor<'h> {
    pub(crate) fn new(lang: Lang, text: &'h str) -> Self {
        HeadCursor {
            lexer: Lexer::new(lang),
            rest: text,
            line: 1,
        }
    }

    /// The state at the start of line `line` (lines are numbered from 1;
    /// asked in increasing order).
    pub(crate) fn state_at(&mut self, line: u32) -> State {
        while self.line < line && !self.rest.is_empty() {
            let end = memchr::memchr(b'\n', self.rest.as_bytes()).unwrap_or(self.rest.len());
            let text = self.rest.get(..end).unwrap_or_default();
            self.lexer.line(text, &mut Discard);
            self.rest = self.rest.get(end + 1..).unwrap_or_default();
            self.line += 1;
        }
        self.lexer.state()
    }
}
