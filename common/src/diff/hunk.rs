//! Hunks: the `@@ -a,b +c,d @@` header and a body counted against it.

use super::error::{DiffError, DiffErrorKind, HunkSide};
use super::lines::{Lines, RawLine};
use super::model::{Hunk, Line, LineKind};

/// Reads a hunk header line into an empty [`Hunk`].
pub(crate) fn parse_header(line: &[u8]) -> Result<Hunk, DiffErrorKind> {
    let bad = DiffErrorKind::MalformedHunkHeader;
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let rest = line.strip_prefix(b"@@ -").ok_or(bad.clone())?;
    let (old_start, old_lines, rest) = range(rest)?;
    let rest = rest.strip_prefix(b" +").ok_or(bad.clone())?;
    let (new_start, new_lines, rest) = range(rest)?;
    let rest = rest.strip_prefix(b" @@").ok_or(bad.clone())?;
    let section = rest.strip_prefix(b" ").unwrap_or(rest);
    // Line numbers run up to start + count, which must fit; a start of 0
    // only stands for "before the first line" of an empty range.
    for (start, count) in [(old_start, old_lines), (new_start, new_lines)] {
        start
            .checked_add(count)
            .ok_or(DiffErrorKind::CountOverflow)?;
        if start == 0 && count > 0 {
            return Err(bad);
        }
    }
    Ok(Hunk {
        old_start,
        old_lines,
        new_start,
        new_lines,
        section: String::from_utf8_lossy(section).into_owned(),
        lines: Vec::new(),
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
struct Counter {
    old_left: u32,
    new_left: u32,
    old_no: u32,
    new_no: u32,
}

/// Reads the body of `hunk` (header already consumed) until both counts
/// are used up, plus a final `\ No newline at end of file`. Any line that
/// does not fit the counts is an error: counts are never guessed.
pub(crate) fn read_body(lines: &mut Lines<'_>, mut hunk: Hunk) -> Result<Hunk, DiffError> {
    let mut c = Counter {
        old_left: hunk.old_lines,
        new_left: hunk.new_lines,
        old_no: hunk.old_start,
        new_no: hunk.new_start,
    };
    // Bounded so a lying header cannot reserve gigabytes up front.
    let expected = u64::from(hunk.old_lines) + u64::from(hunk.new_lines);
    hunk.lines
        .reserve(usize::try_from(expected.min(1024)).unwrap_or(0));
    while c.old_left > 0 || c.new_left > 0 {
        let Some(line) = lines.peek() else {
            return Err(lines.eof_error(truncated(&hunk, &c)));
        };
        let b = line.bytes;
        let (kind, text) = match b.first() {
            Some(b' ') => (LineKind::Context, b.get(1..).unwrap_or_default()),
            // Some tools strip the lone space of an empty context line.
            None => (LineKind::Context, b),
            Some(b'\r') if b.len() == 1 => (LineKind::Context, &b""[..]),
            Some(b'+') => (LineKind::Added, b.get(1..).unwrap_or_default()),
            Some(b'-') => (LineKind::Removed, b.get(1..).unwrap_or_default()),
            Some(b'\\') => {
                mark_no_newline(&mut hunk, &line)?;
                lines.next();
                continue;
            }
            Some(_) => return Err(line.error(truncated(&hunk, &c))),
        };
        let blank = b.is_empty() || b == b"\r";
        if blank && (c.old_left == 0 || c.new_left == 0) {
            // A blank line where only one side still expects lines ends the
            // body rather than overflowing it.
            return Err(line.error(truncated(&hunk, &c)));
        }
        let entry = c.take(kind, &hunk).map_err(|k| line.error(k))?;
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        hunk.lines.push(Line {
            text: String::from_utf8_lossy(text).into_owned(),
            ..entry
        });
        lines.next();
    }
    if let Some(line) = lines.peek()
        && line.bytes.first() == Some(&b'\\')
    {
        mark_no_newline(&mut hunk, &line)?;
        lines.next();
    }
    Ok(hunk)
}

impl Counter {
    /// Books one body line, numbering it; errors if its side is used up.
    fn take(&mut self, kind: LineKind, hunk: &Hunk) -> Result<Line, DiffErrorKind> {
        let overflow = |side, expected| DiffErrorKind::HunkOverflow { side, expected };
        let uses_old = kind != LineKind::Added;
        let uses_new = kind != LineKind::Removed;
        if uses_old && self.old_left == 0 {
            return Err(overflow(HunkSide::Old, hunk.old_lines));
        }
        if uses_new && self.new_left == 0 {
            return Err(overflow(HunkSide::New, hunk.new_lines));
        }
        let mut line = Line {
            kind,
            old_line: None,
            new_line: None,
            text: String::new(),
            no_newline: false,
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
        Ok(line)
    }
}

fn truncated(hunk: &Hunk, c: &Counter) -> DiffErrorKind {
    DiffErrorKind::HunkTruncated {
        old_seen: hunk.old_lines - c.old_left,
        old_expected: hunk.old_lines,
        new_seen: hunk.new_lines - c.new_left,
        new_expected: hunk.new_lines,
    }
}

/// Git accepts any line starting with `\` here: the marker text is
/// translated in some locales.
fn mark_no_newline(hunk: &mut Hunk, line: &RawLine<'_>) -> Result<(), DiffError> {
    match hunk.lines.last_mut() {
        Some(last) if !last.no_newline => {
            last.no_newline = true;
            Ok(())
        }
        _ => Err(line.error(DiffErrorKind::StrayNoNewlineMarker)),
    }
}

#[cfg(test)]
#[path = "hunk_tests.rs"]
mod tests;
