//! The lexer's walk over one line: code up to the next byte its grammar
//! stops at, then the comment or string that byte opens, to its end or
//! the line's.

use super::grammar::{Backtick, Grammar, Prefixes, Quote, Where};
use super::{Class, Close, Lexer, Mode, Quoted, Sink, State};

impl Lexer {
    /// Gives `text`, one line without its newline, to `sink` as runs,
    /// and carries the state it leaves to the next line.
    pub(crate) fn line<S: Sink>(&mut self, text: &str, sink: &mut S) {
        let continued = std::mem::take(&mut self.state.continued);
        let mut walk = Walk {
            g: self.grammar,
            b: text.as_bytes(),
            at: 0,
            sink,
            st: &mut self.state,
            continued,
            escaped_end: false,
            comment_at: None,
        };
        walk.line();
    }
}

/// What a byte that the scanner stopped at in code does.
pub(super) enum Step {
    /// Nothing: the code goes on after this many bytes.
    Skip(usize),
    /// A comment to the end of the line.
    LineComment,
    /// A literal closed on this line: its contents are `from..to`, and
    /// code goes on at `end`.
    Inline { from: usize, to: usize, end: usize },
    /// A comment or a string opens at `from` (code before it), its
    /// delimiter of class `class` ending at `to`, and the line goes on in
    /// `mode`.
    Enter {
        from: usize,
        to: usize,
        class: Class,
        mode: Mode,
    },
}

pub(super) struct Walk<'t, 's, S> {
    pub(super) g: &'static Grammar,
    pub(super) b: &'t [u8],
    pub(super) at: usize,
    pub(super) sink: &'s mut S,
    pub(super) st: &'s mut State,
    /// The line before ended with a backslash.
    pub(super) continued: bool,
    /// The line ends with a backslash inside a string.
    pub(super) escaped_end: bool,
    /// Where a comment to the end of the line starts.
    pub(super) comment_at: Option<usize>,
}

impl<S: Sink> Walk<'_, '_, S> {
    fn line(&mut self) {
        if self.g.embedded_docs && self.embedded_doc() {
            return;
        }
        if let Mode::Heredoc(word) = self.st.mode {
            let class = if word.ends(self.b) {
                self.st.mode = Mode::Code;
                Class::Code
            } else {
                Class::Str
            };
            self.sink.run(class, 0, self.b.len());
            return;
        }
        while self.at < self.b.len() {
            match self.st.mode {
                Mode::Code => self.code(),
                Mode::Block(depth) => self.block(depth),
                Mode::Str(q) => self.string(q),
                // Both are whole lines, read above.
                Mode::Embedded | Mode::Heredoc(_) => {
                    let class = match self.st.mode {
                        Mode::Embedded => Class::Comment,
                        _ => Class::Str,
                    };
                    self.sink.run(class, self.at, self.b.len());
                    self.at = self.b.len();
                }
            }
        }
        match self.st.mode {
            Mode::Str(q) if !q.spans && !self.escaped_end => self.st.mode = Mode::Code,
            Mode::Code => {
                self.st.continued = self.b.last() == Some(&b'\\');
                if self.g.prefixes == Prefixes::Python {
                    self.note_colon();
                }
                if let Some(word) = self.st.heredoc.take() {
                    self.st.mode = Mode::Heredoc(word);
                }
            }
            _ => {}
        }
    }

    /// Ruby's `=begin` … `=end`, which only the start of a line opens and
    /// closes: whether the line is one of its.
    fn embedded_doc(&mut self) -> bool {
        let opens = self.st.mode == Mode::Code && self.b.starts_with(b"=begin");
        let inside = self.st.mode == Mode::Embedded;
        if !(opens || inside) {
            return false;
        }
        self.sink.run(Class::Comment, 0, self.b.len());
        self.st.mode = if inside && self.b.starts_with(b"=end") {
            Mode::Code
        } else {
            Mode::Embedded
        };
        true
    }

    fn code(&mut self) {
        let b = self.b;
        let start = self.at;
        let mut i = start;
        loop {
            while i < b.len() && !self.g.special[usize::from(b[i])] {
                i += 1;
            }
            if i >= b.len() {
                self.sink.run(Class::Code, start, b.len());
                self.at = b.len();
                return;
            }
            match self.step(i) {
                Step::Skip(n) => i += n,
                Step::LineComment => {
                    self.comment_at = Some(i);
                    self.sink.run(Class::Code, start, i);
                    self.sink.run(Class::Comment, i, b.len());
                    self.at = b.len();
                    return;
                }
                Step::Inline { from, to, end } => {
                    let from = from.max(start);
                    self.sink.run(Class::Code, start, from);
                    self.sink.run(Class::Str, from, to);
                    self.sink.run(Class::Code, to, end);
                    self.at = end;
                    return;
                }
                Step::Enter {
                    from,
                    to,
                    class,
                    mode,
                } => {
                    let from = from.max(start);
                    self.sink.run(Class::Code, start, from);
                    self.sink.run(class, from, to);
                    self.st.mode = mode;
                    self.at = to;
                    return;
                }
            }
        }
    }

    /// What the byte at `i` does, in code.
    fn step(&mut self, i: usize) -> Step {
        let b = self.b;
        let next = b.get(i + 1).copied();
        let g = self.g;
        let word_start = i == 0 || b.get(i - 1).is_some_and(u8::is_ascii_whitespace);
        let applies = |w: Where| match w {
            Where::Never => false,
            Where::Anywhere => true,
            Where::WordStart => word_start,
            Where::LineStart => {
                b[..i].iter().all(u8::is_ascii_whitespace)
                    && matches!(b.get(i + 2), None | Some(b' '))
            }
        };
        match b[i] {
            b'/' if next == Some(b'/') && applies(g.slashes) => Step::LineComment,
            b'/' if next == Some(b'*') && g.blocks => Step::Enter {
                from: i,
                to: i + 2,
                class: Class::Comment,
                mode: Mode::Block(1),
            },
            b'/' if g.regex => self.regex(i).unwrap_or(Step::Skip(1)),
            b'#' if applies(g.hash) && !(g.hash_attributes && next == Some(b'[')) => {
                Step::LineComment
            }
            b'-' if next == Some(b'-') && applies(g.dashes) => Step::LineComment,
            b'\\' if g.escapes_in_code => Step::Skip(2),
            b'<' if g.heredocs && next == Some(b'<') => self.heredoc(i),
            q @ (b'"' | b'\'') => self.quote(i, q),
            b'`' => match g.backtick {
                Backtick::Nothing => Step::Skip(1),
                Backtick::Raw => self.enter(i, i + 1, Close::Literal(b'`'), true),
                Backtick::Template => self.enter(i, i + 1, Close::Template, true),
            },
            b'(' | b'[' | b'{' => {
                self.st.brackets = self.st.brackets.saturating_add(1);
                if let Some(depth) = self.st.holes.top() {
                    *depth = depth.saturating_add(1);
                }
                Step::Skip(1)
            }
            b')' | b']' | b'}' => {
                self.st.brackets = self.st.brackets.saturating_sub(1);
                match self.st.holes.top() {
                    Some(0) if b[i] == b'}' => {
                        self.st.holes.len -= 1;
                        self.enter(i, i + 1, Close::Template, true)
                    }
                    Some(depth) if b[i] == b'}' => {
                        *depth -= 1;
                        Step::Skip(1)
                    }
                    _ => Step::Skip(1),
                }
            }
            _ => Step::Skip(1),
        }
    }

    /// A string whose delimiter is `from..to`, closed by `close`; one
    /// that `spans` lines does not while the state is a guess, unless its
    /// opening cannot be taken for a closing (a Rust raw string's).
    fn enter(&self, from: usize, to: usize, close: Close, spans: bool) -> Step {
        let sure = matches!(close, Close::Raw(_));
        Step::Enter {
            from,
            to,
            class: Class::Code,
            mode: Mode::Str(Quoted {
                close,
                doc: false,
                spans: spans && (sure || !self.st.guessing),
            }),
        }
    }

    /// What the quote `q` at `i` opens.
    fn quote(&mut self, i: usize, q: u8) -> Step {
        let g = self.g;
        let b = self.b;
        let kind = if q == b'"' { g.double } else { g.single };
        if g.quotes_at_value
            && i > 0
            && !b
                .get(i - 1)
                .is_some_and(|&c| c.is_ascii_whitespace() || b"=:[{(,".contains(&c))
        {
            return Step::Skip(1);
        }
        let triple = g.triple
            && matches!(kind, Quote::Escaped | Quote::Doubled)
            && b.get(i..i + 3) == Some(&[q, q, q][..]);
        match kind {
            Quote::Nothing => Step::Skip(1),
            Quote::Char => char_literal(b, i).unwrap_or(Step::Skip(1)),
            _ if triple => self.triple(i, q),
            Quote::Literal => self.enter(i, i + 1, Close::Literal(q), true),
            Quote::Doubled => self.enter(i, i + 1, Close::Doubled(q), g.spans),
            Quote::Escaped => match g.prefixes {
                Prefixes::Rust if q == b'"' => rust_raw(b, i).map_or_else(
                    || self.enter(i, i + 1, Close::Quote(q), g.spans),
                    |hashes| self.enter(i, i + 1, Close::Raw(hashes), true),
                ),
                Prefixes::CSharp
                    if i > 0 && b.get(i - 1) == Some(&b'@')
                        || b.get(i.saturating_sub(2)..i) == Some(&b"@$"[..]) =>
                {
                    self.enter(i, i + 1, Close::Doubled(q), true)
                }
                _ => self.enter(i, i + 1, Close::Quote(q), g.spans),
            },
        }
    }

    /// A `"""` (or `'''`) string opening at `i`: in Python, a docstring
    /// when it is the statement that starts the line.
    fn triple(&mut self, i: usize, q: u8) -> Step {
        let b = self.b;
        let python = self.g.prefixes == Prefixes::Python;
        let prefix = b[..i]
            .iter()
            .rev()
            .take_while(|c| python && b"rRbBuUfF".contains(c))
            .count();
        let before = &b[..i - prefix];
        if let Some(closed) = self.closes_above(i, q, before) {
            return closed;
        }
        let mut from = i;
        let mut doc = false;
        if python {
            let statement = before.iter().all(u8::is_ascii_whitespace);
            let assigned_doc = std::str::from_utf8(before)
                .is_ok_and(|t| matches!(t.trim(), "__doc__ =" | "__doc__="));
            doc = prefix <= 2
                && self.st.brackets == 0
                && !self.continued
                && (statement || assigned_doc);
            if statement && doc {
                from = i - prefix;
            }
        }
        Step::Enter {
            from,
            to: i + 3,
            class: if doc { Class::Comment } else { Class::Code },
            mode: Mode::Str(Quoted {
                close: Close::Triple(q),
                doc,
                spans: true,
            }),
        }
    }

    /// A regex literal whose `/` is at `i`, if that is where one can
    /// start (after an operator, a bracket or nothing) and it closes on
    /// the line.
    fn regex(&self, i: usize) -> Option<Step> {
        let b = self.b;
        let before = b[..i].iter().rev().find(|c| !c.is_ascii_whitespace());
        if before.is_some_and(|c| !b"(,=:[!&|?{};+-*%~^".contains(c)) {
            return None;
        }
        let mut j = i + 1;
        let mut class = false;
        loop {
            match *b.get(j)? {
                b'\\' => j += 1,
                b'[' => class = true,
                b']' => class = false,
                b'/' if !class => break,
                _ => {}
            }
            j += 1;
        }
        (j > i + 1).then_some(Step::Inline {
            from: i + 1,
            to: j,
            end: j + 1,
        })
    }
}

/// A character literal whose `'` is at `i`: `'a'`, `'é'`, `'\n'`,
/// `'\u{1F600}'`.
fn char_literal(b: &[u8], i: usize) -> Option<Step> {
    let first = *b.get(i + 1)?;
    let to = if first == b'\\' {
        let within = b.get(i + 3..(i + 14).min(b.len()))?;
        i + 3 + memchr::memchr(b'\'', within)?
    } else if first == b'\'' {
        return None;
    } else {
        let width = match first {
            0x00..=0x7F => 1,
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            _ => 4,
        };
        (b.get(i + 1 + width) == Some(&b'\'')).then_some(i + 1 + width)?
    };
    Some(Step::Inline {
        from: i + 1,
        to,
        end: to + 1,
    })
}

/// The number of `#` of the Rust raw string whose `"` is at `i` (`r"`,
/// `r#"`, `br##"`), if it is one.
fn rust_raw(b: &[u8], i: usize) -> Option<u8> {
    let hashes = b[..i].iter().rev().take_while(|&&c| c == b'#').count();
    let r = i.checked_sub(hashes + 1)?;
    if b.get(r) != Some(&b'r') {
        return None;
    }
    let word = |c: &u8| c.is_ascii_alphanumeric() || *c == b'_';
    let start = match r.checked_sub(1).and_then(|p| b.get(p)) {
        Some(b'b' | b'c') => r - 1,
        _ => r,
    };
    let standalone = start == 0 || !b.get(start - 1).is_some_and(word);
    standalone.then(|| u8::try_from(hashes).unwrap_or(u8::MAX))
}
