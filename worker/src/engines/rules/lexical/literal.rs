//! Inside a comment or a string: where it ends on the line, and what the
//! lexer is in after it; and the here-documents whose body is a string
//! up to a line of their own.

use super::scan::{Step, Walk};
use super::{Class, Close, Mode, Quoted, Sink};

/// The word that ends a shell here-document, by its hash and length, and
/// whether tabs before it are skipped (`<<-`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Word {
    hash: u32,
    len: usize,
    tabs: bool,
}

impl Word {
    pub(super) fn of(word: &[u8], tabs: bool) -> Self {
        Word {
            hash: fnv(word),
            len: word.len(),
            tabs,
        }
    }

    /// Whether `line` is the word, ending the here-document.
    pub(super) fn ends(self, line: &[u8]) -> bool {
        let skipped = if self.tabs {
            line.iter().take_while(|&&c| c == b'\t').count()
        } else {
            0
        };
        let word = &line[skipped..];
        let word = word.strip_suffix(b"\r").unwrap_or(word);
        word.len() == self.len && fnv(word) == self.hash
    }
}

impl<S: Sink> Walk<'_, '_, S> {
    /// A here-document whose `<<` is at `i` (`<<EOF`, `<<-'EOF'`; not a
    /// `<<<` here-string): its body starts on the next line.
    pub(super) fn heredoc(&mut self, i: usize) -> Step {
        let b = self.b;
        let mut j = i + 2;
        let tabs = b.get(j) == Some(&b'-');
        j += usize::from(tabs);
        while b.get(j) == Some(&b' ') {
            j += 1;
        }
        let quote = matches!(b.get(j), Some(b'\'' | b'"'));
        j += usize::from(quote);
        let from = j;
        while b
            .get(j)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
        {
            j += 1;
        }
        if j == from || b.get(i + 2) == Some(&b'<') {
            return Step::Skip(2);
        }
        self.st.heredoc = Some(Word::of(&b[from..j], tabs));
        Step::Skip(j + usize::from(quote) - i)
    }
}

fn fnv(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5, |h, &b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

impl<S: Sink> Walk<'_, '_, S> {
    /// Inside a block comment `depth` deep.
    pub(super) fn block(&mut self, mut depth: u16) {
        let b = self.b;
        let start = self.at;
        let mut i = start;
        while let Some(found) = memchr::memchr2(b'*', b'/', &b[i..]) {
            let at = i + found;
            let pair = b.get(at..at + 2);
            if pair == Some(&b"*/"[..]) {
                depth -= 1;
                i = at + 2;
                if depth == 0 {
                    self.sink.run(Class::Comment, start, i);
                    self.st.mode = Mode::Code;
                    self.at = i;
                    return;
                }
            } else if pair == Some(&b"/*"[..]) && self.g.nests {
                depth = depth.saturating_add(1);
                i = at + 2;
            } else {
                i = at + 1;
            }
        }
        self.sink.run(Class::Comment, start, b.len());
        self.st.mode = Mode::Block(depth);
        self.at = b.len();
    }

    /// Inside the string `q`.
    pub(super) fn string(&mut self, q: Quoted) {
        let (inside, closing) = if q.doc {
            (Class::Comment, Class::Comment)
        } else {
            (Class::Str, Class::Code)
        };
        let start = self.at;
        match self.close(q.close) {
            Some((to, end, hole)) => {
                self.sink.run(inside, start, to);
                self.sink.run(closing, to, end);
                self.st.mode = Mode::Code;
                if hole && !self.st.holes.push() {
                    // Nested too deep to follow: the rest is contents.
                    self.st.mode = Mode::Str(q);
                }
                self.at = end;
            }
            None => {
                self.sink.run(inside, start, self.b.len());
                self.at = self.b.len();
            }
        }
    }

    /// Where the string closed by `close` ends on this line, from
    /// `self.at`: its contents' end, its delimiter's end, and whether that
    /// delimiter opens a `${…}` rather than closing the literal.
    fn close(&mut self, close: Close) -> Option<(usize, usize, bool)> {
        let b = self.b;
        let mut i = self.at;
        loop {
            let rest = b.get(i..)?;
            let (found, q) = match close {
                Close::Quote(q) | Close::Triple(q) => (memchr::memchr2(q, b'\\', rest)?, q),
                Close::Literal(q) | Close::Doubled(q) => (memchr::memchr(q, rest)?, q),
                Close::Raw(_) => (memchr::memchr(b'"', rest)?, b'"'),
                Close::Template => (memchr::memchr3(b'`', b'\\', b'$', rest)?, b'`'),
            };
            let at = i + found;
            let c = b[at];
            if c == b'\\' {
                if at + 1 >= b.len() {
                    self.escaped_end = true;
                    return None;
                }
                i = at + 2;
                continue;
            }
            match close {
                Close::Template if c == b'$' => {
                    if b.get(at + 1) == Some(&b'{') {
                        return Some((at, at + 2, true));
                    }
                    i = at + 1;
                }
                Close::Doubled(_) if b.get(at + 1) == Some(&q) => i = at + 2,
                Close::Triple(_) => {
                    if b.get(at..at + 3) == Some(&[q, q, q][..]) {
                        return Some((at, at + 3, false));
                    }
                    i = at + 1;
                }
                Close::Raw(hashes) => {
                    let end = at + 1 + usize::from(hashes);
                    if b.get(at + 1..end)
                        .is_some_and(|h| h.iter().all(|&c| c == b'#'))
                    {
                        return Some((at, end, false));
                    }
                    i = at + 1;
                }
                _ => return Some((at, at + 1, false)),
            }
        }
    }
}
