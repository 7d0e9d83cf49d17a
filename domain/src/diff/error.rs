//! Errors of the diff reader: where the input went wrong, and how.

use std::fmt;

/// A diff the reader refuses, with the place it stopped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line} (byte {offset}): {kind}")]
pub struct DiffError {
    /// 1-based line number of the offending line (one past the last line
    /// when the input ended too early).
    pub line: usize,
    /// Byte offset of the start of that line.
    pub offset: usize,
    pub kind: DiffErrorKind,
}

/// Reading a diff from a stream failed: the stream, or the diff in it.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("reading the diff: {0}")]
    Io(#[source] std::io::Error),
    #[error(transparent)]
    Diff(#[from] DiffError),
}

/// One side of a hunk, for count errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HunkSide {
    Old,
    New,
}

impl fmt::Display for HunkSide {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            HunkSide::Old => "old-side",
            HunkSide::New => "new-side",
        })
    }
}

/// What is wrong with the input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiffErrorKind {
    #[error("input is empty")]
    Empty,
    #[error("not a diff: no `diff --git` or `---`/`+++` header found")]
    NotADiff,
    /// `diff --cc` / `diff --combined` (merge diffs) have no per-file
    /// old/new pair, so they are refused rather than half-read.
    #[error("combined diff (`{0}`) is not supported")]
    CombinedDiff(&'static str),
    #[error("malformed hunk header")]
    MalformedHunkHeader,
    #[error("hunk header numbers run past line 2147483647")]
    CountOverflow,
    #[error("{}", truncated_message(*.old_seen, *.old_expected, *.new_seen, *.new_expected))]
    HunkTruncated {
        old_seen: u32,
        old_expected: u32,
        new_seen: u32,
        new_expected: u32,
    },
    #[error("hunk body has more {side} lines than the {expected} its header counts")]
    HunkOverflow { side: HunkSide, expected: u32 },
    #[error("`\\` no-newline marker without a line before it")]
    StrayNoNewlineMarker,
    #[error("hunk header without a file header before it")]
    HunkWithoutHeader,
    #[error("invalid quoted path")]
    InvalidQuotedPath,
    #[error("invalid file mode")]
    InvalidMode,
    #[error("invalid similarity index")]
    InvalidSimilarity,
    #[error("conflicting header lines: {0}")]
    ConflictingHeaders(&'static str),
    #[error("file header lacks path information")]
    MissingPath,
    #[error("corrupt binary patch")]
    CorruptBinaryPatch,
}

impl DiffErrorKind {
    /// The variant name (`HunkTruncated`, `CombinedDiff`, ...), stable for
    /// tests and logs.
    pub fn name(&self) -> &'static str {
        match self {
            DiffErrorKind::Empty => "Empty",
            DiffErrorKind::NotADiff => "NotADiff",
            DiffErrorKind::CombinedDiff(_) => "CombinedDiff",
            DiffErrorKind::MalformedHunkHeader => "MalformedHunkHeader",
            DiffErrorKind::CountOverflow => "CountOverflow",
            DiffErrorKind::HunkTruncated { .. } => "HunkTruncated",
            DiffErrorKind::HunkOverflow { .. } => "HunkOverflow",
            DiffErrorKind::StrayNoNewlineMarker => "StrayNoNewlineMarker",
            DiffErrorKind::HunkWithoutHeader => "HunkWithoutHeader",
            DiffErrorKind::InvalidQuotedPath => "InvalidQuotedPath",
            DiffErrorKind::InvalidMode => "InvalidMode",
            DiffErrorKind::InvalidSimilarity => "InvalidSimilarity",
            DiffErrorKind::ConflictingHeaders(_) => "ConflictingHeaders",
            DiffErrorKind::MissingPath => "MissingPath",
            DiffErrorKind::CorruptBinaryPatch => "CorruptBinaryPatch",
        }
    }
}

/// Names only the side(s) that came up short.
fn truncated_message(old_seen: u32, old_expected: u32, new_seen: u32, new_expected: u32) -> String {
    let old_short = old_seen < old_expected;
    let new_short = new_seen < new_expected;
    match (old_short, new_short) {
        (true, true) => format!(
            "hunk body ends after {old_seen} of {old_expected} old-side and \
             {new_seen} of {new_expected} new-side lines"
        ),
        (true, false) => {
            format!("hunk body ends after {old_seen} of {old_expected} old-side lines")
        }
        _ => format!("hunk body ends after {new_seen} of {new_expected} new-side lines"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_is_one_lowercase_line() {
        let err = DiffError {
            line: 12,
            offset: 340,
            kind: DiffErrorKind::HunkTruncated {
                old_seen: 5,
                old_expected: 5,
                new_seen: 3,
                new_expected: 5,
            },
        };
        assert_eq!(
            err.to_string(),
            "line 12 (byte 340): hunk body ends after 3 of 5 new-side lines"
        );
        let both = DiffErrorKind::HunkTruncated {
            old_seen: 1,
            old_expected: 4,
            new_seen: 3,
            new_expected: 5,
        };
        assert_eq!(
            both.to_string(),
            "hunk body ends after 1 of 4 old-side and 3 of 5 new-side lines"
        );
        let over = DiffErrorKind::HunkOverflow {
            side: HunkSide::Old,
            expected: 2,
        };
        assert_eq!(
            over.to_string(),
            "hunk body has more old-side lines than the 2 its header counts"
        );
        assert_eq!(
            DiffErrorKind::CombinedDiff("diff --cc").to_string(),
            "combined diff (`diff --cc`) is not supported"
        );
    }
}
