//! Hunks: the `@@ -a,b +c,d @@` header and a body counted against it.

use super::error::{DiffError, DiffErrorKind, HunkSide};
use super::lines::{Lines, RawLine};
use super::model::{LineKind, MAX_LINE_NUMBER};
use super::sink::{BodyLine, Sink};

/// A hunk header as written, borrowing its section text from the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HunkHeader<'a> {
    pub old_start: u32,
    pub old_lines: u32,
    pub new_start: u32,
    pub new_lines: u32,
    /// The text after the closing `@@`, without the leading space.
    pub section: &'a [u8],
    /// Where `section` starts: in the header line as [`parse_header`]
    /// reads it, in the whole diff once [`HunkHeader::placed`].
    pub section_at: usize,
}

impl HunkHeader<'_> {
    /// The header of a line that starts at `offset` in the diff.
    pub fn placed(self, offset: usize) -> Self {
        HunkHeader {
            section_at: offset + self.section_at,
            ..self
        }
    }
}

/// Reads a hunk header line.
pub(crate) fn parse_header(line: &[u8]) -> Result<HunkHeader<'_>, DiffErrorKind> {
    let bad = DiffErrorKind::MalformedHunkHeader;
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let rest = line.strip_prefix(b"@@ -").ok_or(bad.clone())?;
    let (old_start, old_lines, rest) = range(rest)?;
    let rest = rest.strip_prefix(b" +").ok_or(bad.clone())?;
    let (new_start, new_lines, rest) = range(rest)?;
    let rest = rest.strip_prefix(b" @@").ok_or(bad.clone())?;
    let section = rest.strip_prefix(b" ").unwrap_or(rest);
    // Line numbers run up to start + count, which must fit the 31 bits a
    // parsed line keeps them in; a start of 0 only stands for "before the
    // first line" of an empty range.
    for (start, count) in [(old_start, old_lines), (new_start, new_lines)] {
        start
            .checked_add(count)
            .filter(|&end| end <= MAX_LINE_NUMBER)
            .ok_or(DiffErrorKind::CountOverflow)?;
        if start == 0 && count > 0 {
            return Err(bad);
        }
    }
    Ok(HunkHeader {
        old_start,
        old_lines,
        new_start,
        new_lines,
        section,
        // A suffix of the line without its `\r`.
        section_at: line.len() - section.len(),
    })
}

/// `start[,count]`; the count defaults to 1.
fn range(b: &[u8]) -> Result<(u32, u32, &[u8]), DiffErrorKind> {
    let (start, rest) = number(b)?;
    match rest.strip_prefix(b",") {
        Some(r) => {
            let (count, rest) = number(r)?;
            Ok((start, count, rest))
        }
        None => Ok((start, 1, rest)),
    }
}

fn number(b: &[u8]) -> Result<(u32, &[u8]), DiffErrorKind> {
    let digits = b.iter().take_while(|d| d.is_ascii_digit()).count();
    if digits == 0 {
        return Err(DiffErrorKind::MalformedHunkHeader);
    }
    let (num, rest) = b.split_at_checked(digits).unwrap_or((b, &[]));
    let mut n: u32 = 0;
    for d in num {
        n = n
            .checked_mul(10)
            .and_then(|n| n.checked_add(u32::from(d - b'0')))
            .ok_or(DiffErrorKind::CountOverflow)?;
    }
    Ok((n, rest))
}

/// Running counts of a hunk body against its header.
struct Counter<'h> {
    header: &'h HunkHeader<'h>,
    old_left: u32,
    new_left: u32,
    old_no: u32,
    new_no: u32,
    /// Whether the last body line may still take a `\ No newline` marker
    /// (there is one, and it has none yet).
    markable: bool,
}

/// Reads the body of a hunk (header already consumed) until both counts
/// are used up, plus a final `\ No newline at end of file`, reporting each
/// line to `sink`. Any line that does not fit the counts is an error:
/// counts are never guessed. One pass, each line looked at once.
pub(crate) fn read_body<S: Sink>(
    lines: &mut Lines<'_>,
    header: &HunkHeader<'_>,
    sink: &mut S,
) -> Result<(), DiffError> {
    let mut c = Counter {
        header,
        old_left: header.old_lines,
        new_left: header.new_lines,
        old_no: header.old_start,
        new_no: header.new_start,
        markable: false,
    };
    // Bounded by the counts: each turn uses up one of them (or is a marker,
    // which can follow a line only once).
    while c.old_left > 0 || c.new_left > 0 {
        // Consumed at once: a line that does not fit fails the whole read.
        let Some(line) = lines.next() else {
            return Err(lines.eof_error(c.truncated()));
        };
        let b = line.bytes;
        let (kind, text) = match b.split_first() {
            Some((b' ', text)) => (LineKind::Context, text),
            Some((b'+', text)) => (LineKind::Added, text),
            Some((b'-', text)) => (LineKind::Removed, text),
            // Some tools strip the lone space of an empty context line.
            None => (LineKind::Context, b),
            Some((b'\r', [])) => (LineKind::Context, &b""[..]),
            Some((b'\\', _)) => {
                c.mark(&line, sink)?;
                continue;
            }
            Some(_) => return Err(line.error(c.truncated())),
        };
        let blank = b.is_empty() || b == b"\r";
        if blank && (c.old_left == 0 || c.new_left == 0) {
            // A blank line where only one side still expects lines ends the
            // body rather than overflowing it.
            return Err(line.error(c.truncated()));
        }
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        // The text follows the marker (an empty text reads the same anywhere).
        let at = line.offset + usize::from(!b.is_empty());
        let body = c.take(kind, text, at).map_err(|k| line.error(k))?;
        sink.line(body);
    }
    if let Some(line) = lines.peek()
        && line.bytes.first() == Some(&b'\\')
    {
        c.mark(&line, sink)?;
        lines.next();
    }
    Ok(())
}

impl Counter<'_> {
    /// Books one body line, numbering it; errors if its side is used up.
    fn take<'t>(
        &mut self,
        kind: LineKind,
        text: &'t [u8],
        at: usize,
    ) -> Result<BodyLine<'t>, DiffErrorKind> {
        let overflow = |side, expected| DiffErrorKind::HunkOverflow { side, expected };
        let uses_old = kind != LineKind::Added;
        let uses_new = kind != LineKind::Removed;
        if uses_old && self.old_left == 0 {
            return Err(overflow(HunkSide::Old, self.header.old_lines));
        }
        if uses_new && self.new_left == 0 {
            return Err(overflow(HunkSide::New, self.header.new_lines));
        }
        let mut line = BodyLine {
            kind,
            old_line: None,
            new_line: None,
            text,
            at,
        };
        // The header check (start + count fits in u32) keeps these in range.
        if uses_old {
            line.old_line = Some(self.old_no);
            self.old_no = self.old_no.saturating_add(1);
            self.old_left -= 1;
        }
        if uses_new {
            line.new_line = Some(self.new_no);
            self.new_no = self.new_no.saturating_add(1);
            self.new_left -= 1;
        }
        self.markable = true;
        Ok(line)
    }

    /// Git accepts any line starting with `\` as the no-newline marker (the
    /// text is translated in some locales), but only right after a line.
    fn mark<S: Sink>(&mut self, line: &RawLine<'_>, sink: &mut S) -> Result<(), DiffError> {
        if !self.markable {
            return Err(line.error(DiffErrorKind::StrayNoNewlineMarker));
        }
        self.markable = false;
        sink.no_newline();
        Ok(())
    }

    fn truncated(&self) -> DiffErrorKind {
        DiffErrorKind::HunkTruncated {
            old_seen: self.header.old_lines - self.old_left,
            old_expected: self.header.old_lines,
            new_seen: self.header.new_lines - self.new_left,
            new_expected: self.header.new_lines,
        }
    }
}

#[cfg(test)]
#[path = "hunk_tests.rs"]
mod tests;
