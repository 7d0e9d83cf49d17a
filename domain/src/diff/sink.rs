//! The reader reports what it finds to a [`Sink`], in input order, so one
//! single-pass reader serves two consumers: the [`DiffBuilder`] that keeps
//! every line (the review pipeline) and the facts scanner that keeps only
//! counts and line numbers (`revu facts` on very large diffs).

use super::hunk::HunkHeader;
use super::model::{Diff, FilePatch, FileStatus, Hunk, Line, LineKind};
use super::text::LineText;
use std::sync::Arc;

/// One hunk body line, borrowed from the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BodyLine<'a> {
    pub kind: LineKind,
    pub old_line: Option<u32>,
    pub new_line: Option<u32>,
    /// The content without the marker and without the line ending.
    pub text: &'a [u8],
    /// Where `text` starts in the whole diff.
    pub at: usize,
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
    texts: Texts,
}

/// Where the lines' text lives.
#[derive(Debug)]
enum Texts {
    /// In the diff itself, which is UTF-8: a line is a view of it.
    Shared(Arc<String>),
    /// In chunks of text decoded line by line (a diff that is not UTF-8
    /// as a whole, or read in segments).
    Decoded(Chunk),
}

/// The text of the current hunk's decoded lines from `from` on, which
/// point at `unsealed` until the chunk is sealed and they point into it.
#[derive(Debug, Default)]
struct Chunk {
    text: String,
    from: usize,
    unsealed: Arc<String>,
}

impl Default for Texts {
    fn default() -> Self {
        Texts::Decoded(Chunk::default())
    }
}

impl DiffBuilder {
    /// A builder whose lines are views of `diff`, the text being read.
    pub fn sharing(diff: Arc<String>) -> Self {
        DiffBuilder {
            files: Vec::new(),
            texts: Texts::Shared(diff),
        }
    }

    pub fn finish(mut self) -> Diff {
        self.seal_file();
        self.files.shrink_to_fit();
        Diff { files: self.files }
    }

    /// Ends the last file: its last hunk is sealed, and its list of hunks
    /// gives back what it grew and did not fill, as the list of files does
    /// at the end (on a large diff, a few hundred KB held to the end).
    fn seal_file(&mut self) {
        self.seal();
        if let Some(hunks) = self.hunks() {
            hunks.shrink_to_fit();
        }
    }

    /// Ends the last hunk: its decoded lines get their text, and it gives
    /// back what it reserved and did not fill (its header's counts bound
    /// its lines from above, and a large diff holds every hunk to its end).
    fn seal(&mut self) {
        self.seal_chunk();
        if let Some(hunk) = self.hunks().and_then(|h| h.last_mut()) {
            hunk.lines.shrink_to_fit();
        }
    }

    /// Points the current hunk's decoded lines into their chunk.
    fn seal_chunk(&mut self) {
        let Texts::Decoded(chunk) = &mut self.texts else {
            return;
        };
        let first = std::mem::take(&mut chunk.from);
        if chunk.text.is_empty() {
            return;
        }
        let buf = Arc::new(std::mem::take(&mut chunk.text));
        let Some(hunk) = self.files.last_mut().and_then(|f| f.hunks.last_mut()) else {
            return;
        };
        for line in hunk.lines.iter_mut().skip(first) {
            line.text.seal(&chunk.unsealed, &buf);
        }
    }

    fn hunks(&mut self) -> Option<&mut Vec<Hunk>> {
        self.files.last_mut().map(|f| &mut f.hunks)
    }

    fn last_line(&mut self) -> Option<&mut Line> {
        self.hunks()?.last_mut()?.lines.last_mut()
    }

    /// A hunk's section text: a view of the diff when it is text.
    fn section(&self, h: &HunkHeader<'_>) -> LineText {
        let view = match &self.texts {
            Texts::Shared(diff) => LineText::view(diff, h.section_at, h.section.len()),
            Texts::Decoded(_) => None,
        };
        view.unwrap_or_else(|| LineText::from(String::from_utf8_lossy(h.section).into_owned()))
    }

    /// The text of a line about to be the `index`th of the current hunk.
    /// A line that does not fit the offsets (past 4 GiB) holds its own text.
    fn text(&mut self, line: &BodyLine<'_>, index: usize) -> LineText {
        if let Texts::Shared(diff) = &self.texts {
            return LineText::view(diff, line.at, line.text.len())
                .unwrap_or_else(|| LineText::from(text_of(line.text)));
        }
        let text = text_of(line.text);
        let fits = |used: usize| used.saturating_add(text.len()) <= u32::MAX as usize;
        if !fits(0) {
            return LineText::from(text);
        }
        if matches!(&self.texts, Texts::Decoded(chunk) if !fits(chunk.text.len())) {
            self.seal_chunk();
        }
        let Texts::Decoded(chunk) = &mut self.texts else {
            return LineText::from(text);
        };
        if chunk.text.is_empty() {
            chunk.from = index;
        }
        let start = chunk.text.len();
        chunk.text.push_str(&text);
        LineText::unsealed(&chunk.unsealed, start, text.len())
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
        self.seal_file();
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
            section: self.section(h),
            lines: Vec::with_capacity(capacity),
        };
        if let Some(hunks) = self.hunks() {
            hunks.push(hunk);
        }
    }

    fn line(&mut self, line: BodyLine<'_>) {
        let Some(index) = self.hunks().and_then(|h| h.last()).map(|h| h.lines.len()) else {
            return;
        };
        let text = self.text(&line, index);
        if let Some(hunk) = self.hunks().and_then(|h| h.last_mut()) {
            hunk.lines
                .push(Line::new(line.kind, line.old_line, line.new_line, text));
        }
    }

    fn no_newline(&mut self) {
        if let Some(line) = self.last_line() {
            line.mark_no_newline();
        }
    }
}
