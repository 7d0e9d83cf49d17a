//! The driver: finds file headers among any surrounding text (mail headers,
//! commit messages, diffstats, signatures) and reads each file's patch.

use super::binary::skip_binary_patch;
use super::error::{DiffError, DiffErrorKind, HunkSide};
use super::header::{RawHeader, build_file, read_git_header, type_differs};
use super::hunk::{HunkHeader, parse_header, read_body};
use super::lines::{Lines, Position, RawLine};
use super::model::{Diff, FilePatch, FileStatus};
use super::path::patch_line_name;
use super::sink::{DiffBuilder, Sink};
use std::sync::Arc;

/// Parses what `git diff`, `git show`, `git format-patch` (one or many
/// mails) or `diff -u` print into one entry per file.
///
/// Text before, between and after the patches is skipped the way `git
/// apply` skips it; anything inside a patch that disagrees with its headers
/// is an error.
pub fn parse(input: &[u8]) -> Result<Diff, DiffError> {
    match std::str::from_utf8(input) {
        Ok(text) => parse_text(&Arc::new(text.to_owned())),
        Err(_) => {
            let mut builder = DiffBuilder::default();
            walk(input, &mut builder)?;
            Ok(builder.finish())
        }
    }
}

/// [`parse`] of a diff that is text: its lines are views of `diff`, which
/// the parsed [`Diff`] shares instead of copying.
pub fn parse_text(diff: &Arc<String>) -> Result<Diff, DiffError> {
    let mut builder = DiffBuilder::sharing(Arc::clone(diff));
    walk(diff.as_bytes(), &mut builder)?;
    Ok(builder.finish())
}

/// The single pass behind [`parse`]: reads `input` once, front to back,
/// and reports each part to `sink`. Errors are the same whatever the sink.
pub(crate) fn walk<S: Sink>(input: &[u8], sink: &mut S) -> Result<(), DiffError> {
    let mut walker = Walker::default();
    walker.segment(input, false, sink)?;
    walker.finish()
}

/// The reader's state between segments of one diff. A diff can be read in
/// segments that each end right before a `diff --git` line (see
/// [`super::segments`]); reading them in order gives exactly what reading
/// the whole diff at once gives, errors and their positions included.
#[derive(Debug)]
pub(crate) struct Walker {
    /// Where the next segment starts.
    at: Position,
    any_file: bool,
    /// Every byte so far was whitespace.
    all_blank: bool,
    /// A deleted file the next header may turn into a type change.
    deletion: Option<Deletion>,
    /// Text was skipped since the last file: a type change is only folded
    /// when its two halves are adjacent, as git prints them.
    skipped: bool,
}

impl Default for Walker {
    fn default() -> Self {
        Walker {
            at: Position::START,
            any_file: false,
            all_blank: true,
            deletion: None,
            skipped: false,
        }
    }
}

impl Walker {
    /// Reads the next segment. `more_follows`: the diff goes on after it,
    /// with a `diff --git` line.
    pub fn segment<S: Sink>(
        &mut self,
        input: &[u8],
        more_follows: bool,
        sink: &mut S,
    ) -> Result<(), DiffError> {
        self.all_blank = self.all_blank && input.iter().all(u8::is_ascii_whitespace);
        let mut lines = Lines::segment(input, self.at, more_follows);
        // Each turn consumes at least one line, or returns.
        while let Some(line) = lines.peek() {
            let b = line.bytes;
            let raw = if b.starts_with(b"diff --git ") {
                lines.next();
                read_git_header(&mut lines, &line)?
            } else if let Some(construct) = combined(b) {
                return Err(line.error(DiffErrorKind::CombinedDiff(construct)));
            } else if let Some(plus) = traditional_start(&lines, &line) {
                lines.next();
                lines.next();
                RawHeader {
                    minus: Some(name_of(&line, b"--- ")?),
                    plus: Some(name_of(&plus, b"+++ ")?),
                    ..RawHeader::default()
                }
            } else if b.starts_with(b"@@ -") && parse_header(b).is_ok() {
                // `git apply` refuses a hunk outside a file for the same
                // reason: a header was lost, and skipping the hunk would
                // hide changes.
                return Err(line.error(DiffErrorKind::HunkWithoutHeader));
            } else {
                lines.next();
                self.skipped = true;
                continue;
            };
            let file = build_file(raw).map_err(|k| line.error(k))?;
            let folds = !self.skipped
                && self
                    .deletion
                    .as_ref()
                    .is_some_and(|d| d.completed_by(&file));
            // A folded pair is complete: a third header cannot fold into it.
            self.deletion = (!folds && file.status == FileStatus::Deleted).then(|| Deletion {
                path: file.old_path.clone(),
                mode: file.old_mode.clone(),
            });
            self.skipped = false;
            self.any_file = true;
            sink.file(file, folds);
            read_content(&mut lines, sink)?;
        }
        self.at = lines.position();
        Ok(())
    }

    /// Ends the diff: an input without any file is an error.
    pub fn finish(&self) -> Result<(), DiffError> {
        if self.any_file {
            return Ok(());
        }
        let kind = if self.all_blank {
            DiffErrorKind::Empty
        } else {
            DiffErrorKind::NotADiff
        };
        Err(DiffError {
            line: 1,
            offset: 0,
            kind,
        })
    }
}

/// A deleted file, kept while the next header may complete a type change.
#[derive(Debug)]
struct Deletion {
    path: Option<String>,
    mode: Option<String>,
}

impl Deletion {
    /// Git prints a change of object type (file, symlink, submodule) as a
    /// deletion followed by a creation of the same path, and reports it as
    /// one `T`.
    fn completed_by(&self, next: &FilePatch) -> bool {
        next.status == FileStatus::Added
            && self.path.is_some()
            && self.path == next.new_path
            && type_differs(self.mode.as_deref(), next.new_mode.as_deref())
    }
}

fn combined(b: &[u8]) -> Option<&'static str> {
    if b.starts_with(b"diff --cc ") {
        Some("diff --cc")
    } else if b.starts_with(b"diff --combined ") {
        Some("diff --combined")
    } else {
        None
    }
}

/// A plain unified header: `--- `, then `+++ `, then a hunk header (git
/// apply's test, which keeps a `---` line in a commit message from
/// starting a patch). Returns the `+++` line.
fn traditional_start<'a>(lines: &Lines<'a>, line: &RawLine<'a>) -> Option<RawLine<'a>> {
    if !line.bytes.starts_with(b"--- ") {
        return None;
    }
    let plus = lines.after(line).filter(|l| l.bytes.starts_with(b"+++ "))?;
    let hunk = lines.after(&plus)?;
    hunk.bytes.starts_with(b"@@ -").then_some(plus)
}

fn name_of(line: &RawLine<'_>, prefix: &[u8]) -> Result<super::path::Name, DiffError> {
    let value = line.trimmed().get(prefix.len()..).unwrap_or_default();
    patch_line_name(value).map_err(|k| line.error(k))
}

/// Reads what follows a file header: a binary marker, or hunks.
fn read_content<S: Sink>(lines: &mut Lines<'_>, sink: &mut S) -> Result<(), DiffError> {
    if let Some(line) = lines.peek() {
        let b = line.trimmed();
        if b == b"GIT binary patch" {
            lines.next();
            let size = skip_binary_patch(lines)?;
            sink.binary(size);
            return Ok(());
        }
        if b.starts_with(b"Binary files ") && b.ends_with(b" differ") {
            lines.next();
            sink.binary(None);
            return Ok(());
        }
    }
    let mut last = None;
    // Each turn consumes the hunk header line, or returns.
    while let Some(line) = lines.peek()
        && line.bytes.starts_with(b"@@ -")
    {
        let header = parse_header(line.bytes)
            .map_err(|k| line.error(k))?
            .placed(line.offset);
        lines.next();
        sink.hunk(&header);
        read_body(lines, &header, sink)?;
        last = Some(header);
    }
    match last {
        Some(last) => check_after_hunks(lines, &last),
        None => Ok(()),
    }
}

/// The line right after a file's last hunk must not look like more hunk
/// body: that would mean the header counts are wrong. A signature (`-- `)
/// or the next plain `---`/`+++` header is fine.
fn check_after_hunks(lines: &mut Lines<'_>, last: &HunkHeader<'_>) -> Result<(), DiffError> {
    let Some(line) = lines.peek() else {
        return Ok(());
    };
    let b = line.trimmed();
    let side = match b.first() {
        Some(b'+') => HunkSide::New,
        Some(b' ') => HunkSide::Old,
        Some(b'-') if is_signature(b) || traditional_start(lines, &line).is_some() => {
            return Ok(());
        }
        Some(b'-') => HunkSide::Old,
        _ => return Ok(()),
    };
    let expected = match side {
        HunkSide::Old => last.old_lines,
        HunkSide::New => last.new_lines,
    };
    Err(line.error(DiffErrorKind::HunkOverflow { side, expected }))
}

/// The mail signature separator `format-patch` writes (`-- `), also with
/// its trailing space stripped by a mail client.
fn is_signature(b: &[u8]) -> bool {
    b == b"-- " || b == b"--"
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
