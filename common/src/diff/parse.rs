//! The driver: finds file headers among any surrounding text (mail headers,
//! commit messages, diffstats, signatures) and reads each file's patch.

use super::binary::skip_binary_patch;
use super::error::{DiffError, DiffErrorKind, HunkSide};
use super::header::{RawHeader, build_file, read_git_header, type_differs};
use super::hunk::{HunkHeader, parse_header, read_body};
use super::lines::{Lines, RawLine};
use super::model::{Diff, FilePatch, FileStatus};
use super::path::patch_line_name;
use super::sink::{DiffBuilder, Sink};

/// Parses what `git diff`, `git show`, `git format-patch` (one or many
/// mails) or `diff -u` print into one entry per file.
///
/// Text before, between and after the patches is skipped the way `git
/// apply` skips it; anything inside a patch that disagrees with its headers
/// is an error.
pub fn parse(input: &[u8]) -> Result<Diff, DiffError> {
    let mut builder = DiffBuilder::default();
    walk(input, &mut builder)?;
    Ok(builder.finish())
}

/// The single pass behind [`parse`]: reads `input` once, front to back,
/// and reports each part to `sink`. Errors are the same whatever the sink.
pub(crate) fn walk<S: Sink>(input: &[u8], sink: &mut S) -> Result<(), DiffError> {
    let first_line = DiffError {
        line: 1,
        offset: 0,
        kind: DiffErrorKind::Empty,
    };
    if input.iter().all(u8::is_ascii_whitespace) {
        return Err(first_line);
    }
    let mut lines = Lines::new(input);
    let mut any_file = false;
    // The previous file, while a type change's second half may follow it.
    let mut last: Option<LastFile> = None;
    // Whether text was skipped since the last file: a type change is only
    // folded when its two halves are adjacent, as git prints them.
    let mut skipped = false;
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
            // `git apply` refuses a hunk outside a file for the same reason:
            // a header was lost, and skipping the hunk would hide changes.
            return Err(line.error(DiffErrorKind::HunkWithoutHeader));
        } else {
            lines.next();
            skipped = true;
            continue;
        };
        let file = build_file(raw).map_err(|k| line.error(k))?;
        let this = LastFile::of(&file);
        let folds = !skipped && last.as_ref().is_some_and(|prev| prev.completed_by(&this));
        // A folded pair is complete: a third header cannot fold into it.
        last = (!folds).then_some(this);
        skipped = false;
        any_file = true;
        sink.file(file, folds);
        read_content(&mut lines, sink)?;
    }
    if !any_file {
        return Err(DiffError {
            kind: DiffErrorKind::NotADiff,
            ..first_line
        });
    }
    Ok(())
}

/// What the fold test needs of the previous file.
#[derive(Debug)]
struct LastFile {
    status: FileStatus,
    old_path: Option<String>,
    new_path: Option<String>,
    old_mode: Option<String>,
    new_mode: Option<String>,
}

impl LastFile {
    fn of(f: &FilePatch) -> LastFile {
        LastFile {
            status: f.status,
            old_path: f.old_path.clone(),
            new_path: f.new_path.clone(),
            old_mode: f.old_mode.clone(),
            new_mode: f.new_mode.clone(),
        }
    }

    /// Git prints a change of object type (file, symlink, submodule) as a
    /// deletion followed by a creation of the same path, and reports it as
    /// one `T`.
    fn completed_by(&self, next: &LastFile) -> bool {
        self.status == FileStatus::Deleted
            && next.status == FileStatus::Added
            && self.old_path.is_some()
            && self.old_path == next.new_path
            && type_differs(self.old_mode.as_deref(), next.new_mode.as_deref())
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
        let header = parse_header(line.bytes).map_err(|k| line.error(k))?;
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
