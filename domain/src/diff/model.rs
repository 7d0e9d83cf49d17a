//! The parsed form of a git unified diff.

use super::text::LineText;
use serde::{Deserialize, Serialize};

/// A whole diff: one entry per file, in the order git wrote them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diff {
    pub files: Vec<FilePatch>,
}

/// What happened to a file, as `git diff --name-status` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileStatus {
    Added,
    Modified,
    Deleted,
    Renamed,
    Copied,
    TypeChanged,
}

impl FileStatus {
    /// The status in words, as the report serializes it (`type_changed`
    /// reads `type changed`).
    pub fn as_str(self) -> &'static str {
        match self {
            FileStatus::Added => "added",
            FileStatus::Modified => "modified",
            FileStatus::Deleted => "deleted",
            FileStatus::Renamed => "renamed",
            FileStatus::Copied => "copied",
            FileStatus::TypeChanged => "type changed",
        }
    }

    /// The one-letter code of `git diff --name-status`.
    pub fn letter(self) -> char {
        match self {
            FileStatus::Added => 'A',
            FileStatus::Modified => 'M',
            FileStatus::Deleted => 'D',
            FileStatus::Renamed => 'R',
            FileStatus::Copied => 'C',
            FileStatus::TypeChanged => 'T',
        }
    }
}

/// One file's part of a diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePatch {
    /// Path before the change; `None` for an added file.
    pub old_path: Option<String>,
    /// Path after the change; `None` for a deleted file.
    pub new_path: Option<String>,
    pub status: FileStatus,
    /// Octal mode strings as git prints them (`100644`, `100755`, `120000`, `160000`).
    pub old_mode: Option<String>,
    pub new_mode: Option<String>,
    /// `similarity index N%` of a rename or copy.
    pub similarity: Option<u8>,
    /// Git reported the content as binary (`Binary files … differ` or `GIT binary patch`).
    pub binary: bool,
    /// Size in bytes of the new side of a binary file, when a `GIT binary patch`
    /// literal carries it.
    pub binary_size: Option<u64>,
    pub hunks: Vec<Hunk>,
}

impl FilePatch {
    /// The path a reviewer cites: the new path, or the old one for a deleted file.
    pub fn path(&self) -> &str {
        self.new_path
            .as_deref()
            .or(self.old_path.as_deref())
            .unwrap_or_default()
    }

    /// Lines added, as `git diff --numstat` counts them (0 for binary files).
    pub fn added(&self) -> u32 {
        self.hunks.iter().map(Hunk::added).sum()
    }

    /// Lines removed, as `git diff --numstat` counts them (0 for binary files).
    pub fn removed(&self) -> u32 {
        self.hunks.iter().map(Hunk::removed).sum()
    }

    /// Every added line with its head-side line number.
    pub fn added_lines(&self) -> impl Iterator<Item = (u32, &str)> {
        self.hunks.iter().flat_map(|h| {
            h.lines
                .iter()
                .filter_map(|l| match (l.kind(), l.new_line()) {
                    (LineKind::Added, Some(n)) => Some((n, l.text.as_str())),
                    _ => None,
                })
        })
    }

    /// Whether `line` exists on the head side within the hunks of this patch
    /// (an added or context line).
    pub fn has_head_line(&self, line: u32) -> bool {
        self.hunks.iter().any(|h| {
            h.lines
                .iter()
                .any(|l| l.kind() != LineKind::Removed && l.new_line() == Some(line))
        })
    }

    /// The first head-side line the hunks show (added or context), if any.
    pub fn first_head_line(&self) -> Option<u32> {
        self.hunks
            .iter()
            .flat_map(|h| &h.lines)
            .find(|l| l.kind() != LineKind::Removed)
            .and_then(|l| l.new_line())
    }

    /// The line a finding on the whole file cites: its first added line,
    /// else the first head-side line its hunks show, else 1 (a binary or
    /// deleted file has no line to show).
    pub fn anchor_line(&self) -> u32 {
        self.added_lines()
            .next()
            .map(|(n, _)| n)
            .or_else(|| self.first_head_line())
            .unwrap_or(1)
    }

    /// Whether `line` is an added line of this patch.
    pub fn is_added_line(&self, line: u32) -> bool {
        self.added_lines().any(|(n, _)| n == line)
    }
}

/// One `@@ -a,b +c,d @@` hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    pub old_start: u32,
    pub old_lines: u32,
    pub new_start: u32,
    pub new_lines: u32,
    /// The text after the closing `@@` (function context), without the
    /// leading space: a view of the diff, as a line's text is.
    pub section: LineText,
    pub lines: Vec<Line>,
}

impl Hunk {
    pub fn added(&self) -> u32 {
        self.count(LineKind::Added)
    }

    pub fn removed(&self) -> u32 {
        self.count(LineKind::Removed)
    }

    fn count(&self, kind: LineKind) -> u32 {
        let n = self.lines.iter().filter(|l| l.kind() == kind).count();
        u32::try_from(n).unwrap_or(u32::MAX)
    }
}

/// The role of a line inside a hunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LineKind {
    Context,
    Added,
    Removed,
}

/// The largest line number a hunk may reach (`start + count` of either
/// side): a parsed line keeps its numbers in 31 bits.
pub const MAX_LINE_NUMBER: u32 = (1 << 31) - 1;

/// One line of a hunk body: 24 bytes, as a large diff holds hundreds of
/// thousands of them. Its kind follows from the sides it has a number on
/// (an added line only the head's, a removed line only the base's, a
/// context line both), and the flag that it ends without a newline rides
/// in the head-side number's top bit.
#[derive(Clone, PartialEq, Eq)]
pub struct Line {
    /// The content without the leading marker and without the line ending:
    /// a view of the diff's text, shared by every line.
    pub text: LineText,
    /// Base-side line number; 0 for none.
    old: u32,
    /// Head-side line number (0 for none) in the low 31 bits; the top bit
    /// is set when `\ No newline at end of file` follows the line.
    new: u32,
}

const NO_NEWLINE: u32 = 1 << 31;

impl Line {
    /// A line of `kind` at the numbers its sides have: an added line's
    /// head-side number, a removed line's base-side one, both for context.
    /// A number the kind does not have, or past [`MAX_LINE_NUMBER`], is
    /// dropped (a parsed diff never has one); a context line given only
    /// one number reads back as the kind that number makes it.
    pub fn new(
        kind: LineKind,
        old_line: Option<u32>,
        new_line: Option<u32>,
        text: impl Into<LineText>,
    ) -> Line {
        let fit = |n: Option<u32>| n.filter(|&n| n <= MAX_LINE_NUMBER).unwrap_or(0);
        let (old, new) = match kind {
            LineKind::Added => (0, fit(new_line)),
            LineKind::Removed => (fit(old_line), 0),
            LineKind::Context => (fit(old_line), fit(new_line)),
        };
        Line {
            text: text.into(),
            old,
            new,
        }
    }

    /// The same line, marked as followed by `\ No newline at end of file`.
    pub fn without_newline(mut self) -> Line {
        self.mark_no_newline();
        self
    }

    pub(crate) fn mark_no_newline(&mut self) {
        self.new |= NO_NEWLINE;
    }

    /// The role of the line inside its hunk.
    pub fn kind(&self) -> LineKind {
        match (self.old != 0, self.new & !NO_NEWLINE != 0) {
            (true, true) => LineKind::Context,
            (true, false) => LineKind::Removed,
            (false, _) => LineKind::Added,
        }
    }

    /// Base-side line number (context and removed lines).
    pub fn old_line(&self) -> Option<u32> {
        (self.old != 0).then_some(self.old)
    }

    /// Head-side line number (context and added lines).
    pub fn new_line(&self) -> Option<u32> {
        let n = self.new & !NO_NEWLINE;
        (n != 0).then_some(n)
    }

    /// Followed by `\ No newline at end of file`.
    pub fn no_newline(&self) -> bool {
        self.new & NO_NEWLINE != 0
    }
}

impl std::fmt::Debug for Line {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Line")
            .field("kind", &self.kind())
            .field("old_line", &self.old_line())
            .field("new_line", &self.new_line())
            .field("text", &self.text)
            .field("no_newline", &self.no_newline())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_24_bytes_and_keeps_what_it_was_given() {
        assert_eq!(std::mem::size_of::<Line>(), 24);
        let cases = [
            (LineKind::Added, None, Some(7)),
            (LineKind::Removed, Some(3), None),
            (LineKind::Context, Some(1), Some(MAX_LINE_NUMBER)),
        ];
        for (kind, old, new) in cases {
            for no_newline in [false, true] {
                let mut line = Line::new(kind, old, new, "x");
                if no_newline {
                    line = line.without_newline();
                }
                assert_eq!(
                    (line.kind(), line.old_line(), line.new_line()),
                    (kind, old, new)
                );
                assert_eq!(line.no_newline(), no_newline);
                assert_eq!(line.text, "x");
            }
        }
    }

    #[test]
    fn a_number_the_kind_does_not_have_or_past_the_last_is_dropped() {
        let added = Line::new(LineKind::Added, Some(4), Some(5), "");
        assert_eq!((added.old_line(), added.new_line()), (None, Some(5)));
        let removed = Line::new(LineKind::Removed, Some(4), Some(5), "");
        assert_eq!((removed.old_line(), removed.new_line()), (Some(4), None));
        let past = Line::new(LineKind::Removed, Some(MAX_LINE_NUMBER + 1), None, "");
        assert_eq!(past.old_line(), None);
    }
}
