//! The reader reports what it finds to a [`Sink`], in input order, so one
//! single-pass reader serves two consumers: the [`DiffBuilder`] that keeps
//! every line (the review pipeline) and the facts scanner that keeps only
//! counts and line numbers (`revu facts` on very large diffs).

use super::hunk::HunkHeader;
use super::model::{Diff, FilePatch, FileStatus, Hunk, Line, LineKind};

/// One hunk body line, borrowed from the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BodyLine<'a> {
    pub kind: LineKind,
    pub old_line: Option<u32>,
    pub new_line: Option<u32>,
    /// The content without the marker and without the line ending.
    pub text: &'a [u8],
}

/// Receives a diff's parts as the reader meets them. Events arrive in this
/// grammar: `file (binary | hunk (line | no_newline)*)*`, and the reader
/// has already checked everything a sink could object to.
pub(crate) trait Sink {
    /// A file header. With `completes_type_change`, the header is the
    /// second half of a type change (git prints a deletion, then a creation
    /// of the same path) and belongs to the previous file.
    fn file(&mut self, file: FilePatch, completes_type_change: bool);
    /// The current file's content is binary; `size` is the new side's
    /// size when a `GIT binary patch` literal carries it.
    fn binary(&mut self, size: Option<u64>);
    fn hunk(&mut self, header: &HunkHeader<'_>);
    fn line(&mut self, line: BodyLine<'_>);
    /// The last line has no newline at its end.
    fn no_newline(&mut self);
}

/// Builds the full [`Diff`], every line's text included.
#[derive(Debug, Default)]
pub(crate) struct DiffBuilder {
    files: Vec<FilePatch>,
}

impl DiffBuilder {
    pub fn finish(mut self) -> Diff {
        self.seal();
        Diff { files: self.files }
    }

    /// Gives back what the last hunk reserved and did not fill: its
    /// header's counts bound its lines from above (context lines count on
    /// both sides), and a large diff holds every hunk to its end.
    fn seal(&mut self) {
        if let Some(hunk) = self.hunks().and_then(|h| h.last_mut()) {
            hunk.lines.shrink_to_fit();
        }
    }

    fn hunks(&mut self) -> Option<&mut Vec<Hunk>> {
        self.files.last_mut().map(|f| &mut f.hunks)
    }

    fn last_line(&mut self) -> Option<&mut Line> {
        self.hunks()?.last_mut()?.lines.last_mut()
    }
}

/// A line's content as text, invalid UTF-8 shown as U+FFFD (checked
/// first as a whole: almost every line is valid).
fn text_of(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_owned(),
        Err(_) => String::from_utf8_lossy(bytes).into_owned(),
    }
}

impl Sink for DiffBuilder {
    fn file(&mut self, file: FilePatch, completes_type_change: bool) {
        self.seal();
        match self.files.last_mut() {
            Some(prev) if completes_type_change => {
                prev.status = FileStatus::TypeChanged;
                prev.new_path = file.new_path;
                prev.new_mode = file.new_mode;
                // The new half's binary marker, if any, sets these again.
                prev.binary_size = None;
            }
            _ => self.files.push(file),
        }
    }

    fn binary(&mut self, size: Option<u64>) {
        if let Some(f) = self.files.last_mut() {
            f.binary = true;
            f.binary_size = size;
        }
    }

    fn hunk(&mut self, h: &HunkHeader<'_>) {
        self.seal();
        // Bounded so a lying header cannot reserve gigabytes up front.
        let expected = u64::from(h.old_lines) + u64::from(h.new_lines);
        let capacity = usize::try_from(expected.min(1024)).unwrap_or(0);
        let hunk = Hunk {
            old_start: h.old_start,
            old_lines: h.old_lines,
            new_start: h.new_start,
            new_lines: h.new_lines,
            section: String::from_utf8_lossy(h.section).into_owned(),
            lines: Vec::with_capacity(capacity),
        };
        if let Some(hunks) = self.hunks() {
            hunks.push(hunk);
        }
    }

    fn line(&mut self, line: BodyLine<'_>) {
        if let Some(hunk) = self.hunks().and_then(|h| h.last_mut()) {
            hunk.lines.push(Line {
                kind: line.kind,
                old_line: line.old_line,
                new_line: line.new_line,
                text: text_of(line.text),
                no_newline: false,
            });
        }
    }

    fn no_newline(&mut self) {
        if let Some(line) = self.last_line() {
            line.no_newline = true;
        }
    }
}
