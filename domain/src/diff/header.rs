//! File headers: the `diff --git` line with its extended header lines, or a
//! plain `---`/`+++` pair, turned into a [`FilePatch`] without hunks.

use super::error::{DiffError, DiffErrorKind};
use super::lines::{Lines, RawLine};
use super::model::{FilePatch, FileStatus};
use super::path::{
    GitNames, Name, git_line_names, header_value_name, patch_line_name, same_file, split_unquoted,
    split_with_known, strip_one, strip_pair,
};

/// Everything a file header said, before interpretation.
#[derive(Debug, Default)]
pub(crate) struct RawHeader {
    /// The rest of the `diff --git ` line (absent for plain `diff -u`).
    pub git_line: Option<Vec<u8>>,
    pub minus: Option<Name>,
    pub plus: Option<Name>,
    pub old_mode: Option<String>,
    pub new_mode: Option<String>,
    pub deleted_mode: Option<String>,
    pub new_file_mode: Option<String>,
    pub index_mode: Option<String>,
    pub rename_from: Option<Vec<u8>>,
    pub rename_to: Option<Vec<u8>>,
    pub copy_from: Option<Vec<u8>>,
    pub copy_to: Option<Vec<u8>>,
    pub similarity: Option<u8>,
}

/// Reads the extended header lines after a `diff --git` line (already
/// consumed), stopping before the first line that is not one of them (a
/// hunk, a binary marker, the next file).
pub(crate) fn read_git_header(
    lines: &mut Lines<'_>,
    first: &RawLine<'_>,
) -> Result<RawHeader, DiffError> {
    let rest = first
        .trimmed()
        .get(b"diff --git ".len()..)
        .unwrap_or_default();
    let mut raw = RawHeader {
        git_line: Some(rest.to_vec()),
        ..RawHeader::default()
    };
    while let Some(line) = lines.peek() {
        if !apply_line(&mut raw, line.trimmed()).map_err(|k| line.error(k))? {
            break;
        }
        if let Some(what) = conflict(&raw) {
            return Err(line.error(DiffErrorKind::ConflictingHeaders(what)));
        }
        lines.next();
    }
    Ok(raw)
}

/// Applies one extended header line; `false` when it is not one.
fn apply_line(raw: &mut RawHeader, b: &[u8]) -> Result<bool, DiffErrorKind> {
    if let Some(v) = b.strip_prefix(b"--- ") {
        raw.minus = Some(patch_line_name(v)?);
    } else if let Some(v) = b.strip_prefix(b"+++ ") {
        raw.plus = Some(patch_line_name(v)?);
    } else if let Some(v) = b.strip_prefix(b"old mode ") {
        raw.old_mode = Some(mode(v)?);
    } else if let Some(v) = b.strip_prefix(b"new mode ") {
        raw.new_mode = Some(mode(v)?);
    } else if let Some(v) = b.strip_prefix(b"deleted file mode ") {
        raw.deleted_mode = Some(mode(v)?);
    } else if let Some(v) = b.strip_prefix(b"new file mode ") {
        raw.new_file_mode = Some(mode(v)?);
    } else if let Some(v) = b.strip_prefix(b"copy from ") {
        raw.copy_from = Some(header_value_name(v)?);
    } else if let Some(v) = b.strip_prefix(b"copy to ") {
        raw.copy_to = Some(header_value_name(v)?);
    } else if let Some(v) = b
        .strip_prefix(b"rename from ")
        .or_else(|| b.strip_prefix(b"rename old "))
    {
        raw.rename_from = Some(header_value_name(v)?);
    } else if let Some(v) = b
        .strip_prefix(b"rename to ")
        .or_else(|| b.strip_prefix(b"rename new "))
    {
        raw.rename_to = Some(header_value_name(v)?);
    } else if let Some(v) = b.strip_prefix(b"similarity index ") {
        raw.similarity = Some(percent(v)?);
    } else if let Some(v) = b.strip_prefix(b"dissimilarity index ") {
        // Marks a complete rewrite (`-B`); checked, not kept.
        percent(v)?;
    } else if let Some(v) = b.strip_prefix(b"index ") {
        if let Some(m) = index_mode(v)? {
            raw.index_mode = Some(m);
        }
    } else {
        return Ok(false);
    }
    Ok(true)
}

/// Git's `check_header_line`: a file is at most one of new, deleted,
/// renamed, copied.
fn conflict(raw: &RawHeader) -> Option<&'static str> {
    let renamed = raw.rename_from.is_some() || raw.rename_to.is_some();
    let copied = raw.copy_from.is_some() || raw.copy_to.is_some();
    let kinds = [
        raw.new_file_mode.is_some(),
        raw.deleted_mode.is_some(),
        renamed,
        copied,
    ];
    (kinds.iter().filter(|&&k| k).count() > 1)
        .then_some("a file is at most one of new, deleted, renamed, copied")
}

/// An octal mode such as `100644`, kept as written.
fn mode(v: &[u8]) -> Result<String, DiffErrorKind> {
    let digits = v.iter().take_while(|b| (b'0'..=b'7').contains(*b)).count();
    let tail = v.get(digits..).unwrap_or_default();
    if digits == 0 || digits > 6 || !tail.iter().all(u8::is_ascii_whitespace) {
        return Err(DiffErrorKind::InvalidMode);
    }
    Ok(String::from_utf8_lossy(v.get(..digits).unwrap_or_default()).into_owned())
}

/// `87%` of a similarity line.
fn percent(v: &[u8]) -> Result<u8, DiffErrorKind> {
    let bad = DiffErrorKind::InvalidSimilarity;
    let digits = v.strip_suffix(b"%").ok_or(bad.clone())?;
    if digits.is_empty() || digits.len() > 3 || !digits.iter().all(u8::is_ascii_digit) {
        return Err(bad);
    }
    let n = digits
        .iter()
        .fold(0u16, |n, d| n * 10 + u16::from(d - b'0'));
    u8::try_from(n).ok().filter(|&n| n <= 100).ok_or(bad)
}

/// The mode of `index abc123..def456 100644`. Git ignores index lines it
/// cannot read, and so does this.
fn index_mode(v: &[u8]) -> Result<Option<String>, DiffErrorKind> {
    let mut parts = v.split(|&b| b == b' ').filter(|p| !p.is_empty());
    let ids = parts.next().unwrap_or_default();
    let looks_like_ids = ids
        .iter()
        .all(|b| b.is_ascii_hexdigit() || *b == b'.' || *b == b',');
    match parts.next() {
        Some(m) if looks_like_ids => mode(m).map(Some),
        _ => Ok(None),
    }
}

/// The mode's file type bits (regular, symlink, gitlink...).
fn file_type(mode: Option<&str>) -> Option<u32> {
    mode.and_then(|m| u32::from_str_radix(m, 8).ok())
        .map(|m| m & 0o170_000)
}

/// Whether two modes name different kinds of object: git shows that change
/// as a deletion and a creation of the same path, and calls it `T`.
pub(crate) fn type_differs(old: Option<&str>, new: Option<&str>) -> bool {
    matches!((file_type(old), file_type(new)), (Some(a), Some(b)) if a != b)
}

/// Interprets a header: status, paths, modes. Hunks are filled in later.
pub(crate) fn build_file(raw: RawHeader) -> Result<FilePatch, DiffErrorKind> {
    let minus_null = raw.minus == Some(Name::DevNull);
    let plus_null = raw.plus == Some(Name::DevNull);
    let is_new = raw.new_file_mode.is_some() || minus_null;
    let is_delete = raw.deleted_mode.is_some() || plus_null;
    let conflicting = DiffErrorKind::ConflictingHeaders;
    if is_new && is_delete {
        return Err(conflicting("a file cannot be both new and deleted"));
    }
    if (is_new && raw.minus.as_ref().is_some_and(|n| n.path().is_some()))
        || (is_delete && raw.plus.as_ref().is_some_and(|n| n.path().is_some()))
    {
        return Err(conflicting(
            "a new or deleted file names a path where /dev/null belongs",
        ));
    }
    let renamed = raw.rename_from.is_some() || raw.rename_to.is_some();
    let copied = raw.copy_from.is_some() || raw.copy_to.is_some();
    if (renamed || copied) && (minus_null || plus_null) {
        return Err(conflicting("a renamed or copied file names /dev/null"));
    }
    let old_mode = if is_new {
        None
    } else {
        raw.old_mode
            .clone()
            .or(raw.deleted_mode.clone())
            .or(raw.index_mode.clone())
    };
    let new_mode = if is_delete {
        None
    } else {
        raw.new_mode
            .clone()
            .or(raw.new_file_mode.clone())
            .or(raw.index_mode.clone())
    };
    let status = if is_new {
        FileStatus::Added
    } else if is_delete {
        FileStatus::Deleted
    } else if renamed {
        FileStatus::Renamed
    } else if copied {
        FileStatus::Copied
    } else if type_differs(old_mode.as_deref(), new_mode.as_deref()) {
        FileStatus::TypeChanged
    } else {
        FileStatus::Modified
    };
    let (old, new) = paths(&raw, is_new, is_delete)?;
    let text = |p: Vec<u8>| String::from_utf8_lossy(&p).into_owned();
    Ok(FilePatch {
        old_path: old.map(text),
        new_path: new.map(text),
        status,
        old_mode,
        new_mode,
        similarity: raw.similarity.filter(|_| renamed || copied),
        binary: false,
        binary_size: None,
        hunks: Vec::new(),
    })
}

type Paths = (Option<Vec<u8>>, Option<Vec<u8>>);

fn paths(raw: &RawHeader, is_new: bool, is_delete: bool) -> Result<Paths, DiffErrorKind> {
    let pair = |from: &Option<Vec<u8>>, to: &Option<Vec<u8>>| match (from, to) {
        (Some(f), Some(t)) => Ok((Some(f.clone()), Some(t.clone()))),
        _ => Err(DiffErrorKind::MissingPath),
    };
    // Rename and copy lines carry the names without any prefix.
    if raw.rename_from.is_some() || raw.rename_to.is_some() {
        return pair(&raw.rename_from, &raw.rename_to);
    }
    if raw.copy_from.is_some() || raw.copy_to.is_some() {
        return pair(&raw.copy_from, &raw.copy_to);
    }
    let minus = raw.minus.as_ref().and_then(Name::path);
    let plus = raw.plus.as_ref().and_then(Name::path);
    let git = raw.git_line.as_deref().map(git_line_names).transpose()?;
    let path = match (minus, plus) {
        (Some(o), Some(n)) => match same_file(o, n) {
            Some(p) => p.to_vec(),
            None => {
                let (o, n) = strip_pair(o, n);
                return Ok((Some(o), Some(n)));
            }
        },
        (Some(known), None) | (None, Some(known)) => {
            let known_is_old = minus.is_some();
            let from_git = match &git {
                Some(GitNames::Exact(l, r)) => same_file(l, r).map(<[u8]>::to_vec),
                Some(GitNames::Unquoted(rest)) => split_with_known(rest, known, known_is_old),
                None => None,
            };
            from_git.unwrap_or_else(|| {
                strip_one(known, if known_is_old { b"a/" } else { b"b/" }).to_vec()
            })
        }
        (None, None) => match &git {
            Some(GitNames::Exact(l, r)) => match same_file(l, r) {
                Some(p) => p.to_vec(),
                None => {
                    let (o, n) = strip_pair(l, r);
                    return Ok((Some(o), Some(n)));
                }
            },
            Some(GitNames::Unquoted(rest)) => split_unquoted(rest)
                .ok_or(DiffErrorKind::MissingPath)?
                .to_vec(),
            None => return Err(DiffErrorKind::MissingPath),
        },
    };
    Ok(match (is_new, is_delete) {
        (true, _) => (None, Some(path)),
        (_, true) => (Some(path), None),
        _ => (Some(path.clone()), Some(path)),
    })
}

#[cfg(test)]
#[path = "header_tests.rs"]
mod tests;
