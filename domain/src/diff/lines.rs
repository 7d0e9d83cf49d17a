//! A cursor over the input's lines that remembers where each one starts, so
//! errors can point at a line number and byte offset.

use super::error::{DiffError, DiffErrorKind};
use std::io::BufRead;

/// One input line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RawLine<'a> {
    /// The bytes without the terminating `\n`.
    pub bytes: &'a [u8],
    /// 1-based line number.
    pub number: usize,
    /// Byte offset of the first byte of the line.
    pub offset: usize,
    /// Whether a `\n` ended the line (only the last line may lack one).
    pub has_newline: bool,
}

impl<'a> RawLine<'a> {
    /// The bytes without a trailing `\r`. Header lines use this: git quotes
    /// any name holding a CR, so a bare trailing CR can only come from a
    /// patch whose line endings were converted in transit.
    pub fn trimmed(&self) -> &'a [u8] {
        self.bytes.strip_suffix(b"\r").unwrap_or(self.bytes)
    }

    /// Offset just past the line and its newline.
    pub fn end(&self) -> usize {
        self.offset + self.bytes.len() + usize::from(self.has_newline)
    }

    pub fn error(&self, kind: DiffErrorKind) -> DiffError {
        DiffError {
            line: self.number,
            offset: self.offset,
            kind,
        }
    }
}

/// Splits the input into lines on demand, one pass, no copies.
///
/// The input may be one segment of a longer diff (see
/// `segments`): line numbers and offsets then continue from
/// the segments before it, and the end of the segment is not the end of
/// the diff.
#[derive(Debug)]
pub(crate) struct Lines<'a> {
    input: &'a [u8],
    /// Offset of `input` within the whole diff.
    base: usize,
    /// Offset of the next unread line, within `input`.
    pos: usize,
    /// Number of the next unread line.
    number: usize,
    /// The diff goes on after `input` (with a `diff --git` line).
    more_follows: bool,
    peeked: Option<RawLine<'a>>,
}

impl<'a> Lines<'a> {
    /// The lines of a whole diff.
    #[cfg(test)]
    pub fn new(input: &'a [u8]) -> Self {
        Lines::segment(input, Position::START, false)
    }

    /// The lines of one segment of a diff that starts at `at`.
    pub fn segment(input: &'a [u8], at: Position, more_follows: bool) -> Self {
        // A byte-order mark from a Windows editor would hide the first
        // header; offsets still count it.
        let pos = if at.offset == 0 && input.starts_with(b"\xef\xbb\xbf") {
            3
        } else {
            0
        };
        Lines {
            input,
            base: at.offset,
            pos,
            number: at.line,
            more_follows,
            peeked: None,
        }
    }

    /// Where the next unread line starts.
    pub fn position(&self) -> Position {
        Position {
            line: self.number,
            offset: self.base + self.pos,
        }
    }

    /// Whether the input ended only because the segment did: the next
    /// line (a `diff --git` header) is in the next segment.
    pub fn more_follows(&self) -> bool {
        self.more_follows
    }

    /// The next unread line, without consuming it.
    pub fn peek(&mut self) -> Option<RawLine<'a>> {
        if self.peeked.is_none() {
            self.peeked = self.line_at(self.pos, self.number);
        }
        self.peeked
    }

    /// The line following `line`, without consuming anything.
    pub fn after(&self, line: &RawLine<'a>) -> Option<RawLine<'a>> {
        let next = line.end().checked_sub(self.base)?;
        self.line_at(next, line.number.saturating_add(1))
    }

    /// An error placed just past the last line: the input ended too early.
    pub fn eof_error(&self, kind: DiffErrorKind) -> DiffError {
        DiffError {
            line: self.number,
            offset: self.base + self.input.len(),
            kind,
        }
    }

    /// The line starting at `at` within `input`.
    fn line_at(&self, at: usize, number: usize) -> Option<RawLine<'a>> {
        let rest = self.input.get(at..).filter(|r| !r.is_empty())?;
        let (bytes, has_newline) = match find_newline(rest) {
            Some(end) => (rest.get(..end).unwrap_or(rest), true),
            None => (rest, false),
        };
        Some(RawLine {
            bytes,
            number,
            offset: self.base + at,
            has_newline,
        })
    }
}

/// A place in a diff: 1-based line number and byte offset of a line start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Position {
    pub line: usize,
    pub offset: usize,
}

impl Position {
    pub const START: Position = Position { line: 1, offset: 0 };
}

/// The first `\n` in `hay`. Finding line ends is most of the work on a
/// large diff. Most lines are short: the first word-sized steps find their
/// end without a call. Past that, `BufRead::skip_until` on a slice is the
/// standard library's way to reach the platform's vectorised `memchr`
/// without `unsafe` or a dependency, many times faster than a byte loop on
/// the long lines of minified or generated files.
#[inline]
pub(crate) fn find_newline(hay: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    const NEWLINES: u64 = u64::from_ne_bytes([b'\n'; 8]);
    const SHORT: usize = 128;
    let head = hay.get(..SHORT).unwrap_or(hay);
    let mut words = head.chunks_exact(8);
    for (i, chunk) in words.by_ref().enumerate() {
        let Ok(word) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        // Zero bytes of `x` are the newlines; the has-zero-byte test flags
        // the first of them exactly (flags after it may be false).
        let x = u64::from_le_bytes(word) ^ NEWLINES;
        let found = x.wrapping_sub(ONES) & !x & HIGHS;
        if found != 0 {
            return Some(i * 8 + (found.trailing_zeros() / 8) as usize);
        }
    }
    let tail_start = head.len() - words.remainder().len();
    if let Some(at) = words.remainder().iter().position(|&b| b == b'\n') {
        return Some(tail_start + at);
    }
    let long = hay.get(head.len()..).unwrap_or_default();
    find_newline_far(long).map(|at| head.len() + at)
}

/// The long-line path of [`find_newline`], kept out of line so the short
/// path inlines into the reader's loop.
#[inline(never)]
fn find_newline_far(hay: &[u8]) -> Option<usize> {
    let mut rest = hay;
    // Reading from a slice cannot fail.
    let used = rest.skip_until(b'\n').unwrap_or_default();
    let at = used.checked_sub(1)?;
    (hay.get(at) == Some(&b'\n')).then_some(at)
}

impl<'a> Iterator for Lines<'a> {
    type Item = RawLine<'a>;

    fn next(&mut self) -> Option<RawLine<'a>> {
        let line = match self.peeked.take() {
            Some(line) => line,
            None => self.line_at(self.pos, self.number)?,
        };
        self.pos = line.end() - self.base;
        self.number = line.number.saturating_add(1);
        Some(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_with_offsets_and_numbers() {
        let mut lines = Lines::new(b"ab\n\ncd\r\nef");
        let got: Vec<_> = lines
            .by_ref()
            .map(|l| (l.bytes, l.number, l.offset, l.has_newline))
            .collect();
        assert_eq!(
            got,
            vec![
                (&b"ab"[..], 1, 0, true),
                (&b""[..], 2, 3, true),
                (&b"cd\r"[..], 3, 4, true),
                (&b"ef"[..], 4, 8, false),
            ]
        );
        let err = lines.eof_error(DiffErrorKind::Empty);
        assert_eq!((err.line, err.offset), (5, 10));
    }

    #[test]
    fn finds_newlines_at_every_position() {
        for len in (0..80).chain([200, 4099]) {
            for at in 0..len {
                let mut hay = vec![b'x'; len];
                for (i, b) in hay.iter_mut().enumerate() {
                    // Bytes next to `\n` in value, to trip a sloppy bit test.
                    *b = [b'\x0b', b'\x09', 0x8a, b'x'][i % 4];
                }
                if let Some(b) = hay.get_mut(at) {
                    *b = b'\n';
                }
                if let Some(b) = hay.get_mut(at + 3) {
                    *b = b'\n';
                }
                assert_eq!(find_newline(&hay), Some(at), "len {len} at {at}");
            }
            assert_eq!(find_newline(&vec![0x8a; len]), None);
        }
    }

    #[test]
    fn skips_a_leading_byte_order_mark() {
        let mut lines = Lines::new(b"\xef\xbb\xbfab\n");
        let first = lines.next().map(|l| (l.bytes, l.offset));
        assert_eq!(first, Some((&b"ab"[..], 3)));
    }

    #[test]
    fn peek_and_after_do_not_consume() {
        let mut lines = Lines::new(b"a\nb\n");
        let first = lines.peek().map(|l| l.bytes);
        assert_eq!(first, Some(&b"a"[..]));
        let a = lines.peek();
        let b = a.and_then(|a| lines.after(&a)).map(|l| l.bytes);
        assert_eq!(b, Some(&b"b"[..]));
        assert_eq!(lines.next().map(|l| l.bytes), Some(&b"a"[..]));
        assert_eq!(lines.next().map(|l| l.trimmed()), Some(&b"b"[..]));
        assert_eq!(lines.next(), None);
    }
}
