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
            h.lines.iter().filter_map(|l| match (l.kind, l.new_line) {
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
                .any(|l| l.kind != LineKind::Removed && l.new_line == Some(line))
        })
    }

    /// The first head-side line the hunks show (added or context), if any.
    pub fn first_head_line(&self) -> Option<u32> {
        self.hunks
            .iter()
            .flat_map(|h| &h.lines)
            .find(|l| l.kind != LineKind::Removed)
            .and_then(|l| l.new_line)
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
        let n = self.lines.iter().filter(|l| l.kind == kind).count();
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

/// One line of a hunk body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub kind: LineKind,
    /// Base-side line number (context and removed lines).
    pub old_line: Option<u32>,
    /// Head-side line number (context and added lines).
    pub new_line: Option<u32>,
    /// The content without the leading marker and without the line ending:
    /// a view of the diff's text, shared by every line.
    pub text: LineText,
    /// Followed by `\ No newline at end of file`.
    pub no_newline: bool,
}
