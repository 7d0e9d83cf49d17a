//! The driver: finds file headers among any surrounding text (mail headers,
//! commit messages, diffstats, signatures) and reads each file's patch.

use super::binary::skip_binary_patch;
use super::error::{DiffError, DiffErrorKind, HunkSide};
use super::header::{RawHeader, build_file, read_git_header, type_differs};
use super::hunk::{parse_header, read_body};
use super::lines::{Lines, RawLine};
use super::model::{Diff, FilePatch, FileStatus};
use super::path::patch_line_name;

/// Parses what `git diff`, `git show`, `git format-patch` (one or many
/// mails) or `diff -u` print into one entry per file.
///
/// Text before, between and after the patches is skipped the way `git
/// apply` skips it; anything inside a patch that disagrees with its headers
/// is an error.
pub fn parse(input: &[u8]) -> Result<Diff, DiffError> {
    let first_line = DiffError {
        line: 1,
        offset: 0,
        kind: DiffErrorKind::Empty,
    };
    if input.iter().all(u8::is_ascii_whitespace) {
        return Err(first_line);
    }
    let mut lines = Lines::new(input);
    let mut files: Vec<FilePatch> = Vec::new();
    // Whether text was skipped since the last file: a type change is only
    // folded when its two halves are adjacent, as git prints them.
    let mut skipped = false;
    while let Some(line) = lines.peek() {
        let b = line.bytes;
        let file = if b.starts_with(b"diff --git ") {
            lines.next();
            let raw = read_git_header(&mut lines, &line)?;
            Some(read_file(&mut lines, &line, raw)?)
        } else if let Some(construct) = combined(b) {
            return Err(line.error(DiffErrorKind::CombinedDiff(construct)));
        } else if let Some(plus) = traditional_start(&lines, &line) {
            lines.next();
            lines.next();
            let raw = RawHeader {
                minus: Some(name_of(&line, b"--- ")?),
                plus: Some(name_of(&plus, b"+++ ")?),
                ..RawHeader::default()
            };
            Some(read_file(&mut lines, &line, raw)?)
        } else if b.starts_with(b"@@ -") && parse_header(b).is_ok() {
            // `git apply` refuses a hunk outside a file for the same reason:
            // a header was lost, and skipping the hunk would hide changes.
            return Err(line.error(DiffErrorKind::HunkWithoutHeader));
        } else {
            lines.next();
            skipped = true;
            None
        };
        if let Some(file) = file {
            push_file(&mut files, file, !skipped);
            skipped = false;
        }
    }
    if files.is_empty() {
        return Err(DiffError {
            kind: DiffErrorKind::NotADiff,
            ..first_line
        });
    }
    Ok(Diff { files })
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
fn read_file(
    lines: &mut Lines<'_>,
    head: &RawLine<'_>,
    raw: RawHeader,
) -> Result<FilePatch, DiffError> {
    let mut file = build_file(raw).map_err(|k| head.error(k))?;
    if let Some(line) = lines.peek() {
        let b = line.trimmed();
        if b == b"GIT binary patch" {
            lines.next();
            file.binary = true;
            file.binary_size = skip_binary_patch(lines)?;
            return Ok(file);
        }
        if b.starts_with(b"Binary files ") && b.ends_with(b" differ") {
            lines.next();
            file.binary = true;
            return Ok(file);
        }
    }
    while let Some(line) = lines.peek()
        && line.bytes.starts_with(b"@@ -")
    {
        let hunk = parse_header(line.bytes).map_err(|k| line.error(k))?;
        lines.next();
        file.hunks.push(read_body(lines, hunk)?);
    }
    if let Some(last) = file.hunks.last() {
        check_after_hunks(lines, last)?;
    }
    Ok(file)
}

/// The line right after a file's last hunk must not look like more hunk
/// body: that would mean the header counts are wrong. A signature (`-- `)
/// or the next plain `---`/`+++` header is fine.
fn check_after_hunks(lines: &mut Lines<'_>, last: &super::model::Hunk) -> Result<(), DiffError> {
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

/// Appends a file, folding git's split type change back together: git
/// prints a change of object type (file, symlink, submodule) as a deletion
/// followed by a creation of the same path, and reports it as one `T`.
fn push_file(files: &mut Vec<FilePatch>, file: FilePatch, adjacent: bool) {
    let fold = adjacent
        && matches!(files.last(), Some(prev)
        if prev.status == FileStatus::Deleted
            && file.status == FileStatus::Added
            && prev.old_path.is_some()
            && prev.old_path == file.new_path
            && type_differs(prev.old_mode.as_deref(), file.new_mode.as_deref()));
    match files.last_mut() {
        Some(prev) if fold => {
            prev.status = FileStatus::TypeChanged;
            prev.new_path = file.new_path;
            prev.new_mode = file.new_mode;
            prev.binary |= file.binary;
            prev.binary_size = file.binary_size;
            prev.hunks.extend(file.hunks);
        }
        _ => files.push(file),
    }
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
