//! File names: reading them from header lines and removing the `a/` `b/`
//! (or custom, or absent) prefixes.

use super::error::DiffErrorKind;
use super::quote::unquote;

/// A name from a `---` / `+++` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Name {
    DevNull,
    Path(Vec<u8>),
}

impl Name {
    pub fn path(&self) -> Option<&[u8]> {
        match self {
            Name::DevNull => None,
            Name::Path(p) => Some(p),
        }
    }
}

/// The names of a `diff --git` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum GitNames {
    /// Quoting made the split unambiguous: both names, prefixes still on.
    Exact(Vec<u8>, Vec<u8>),
    /// Both names unquoted: the split is found later with more context.
    Unquoted(Vec<u8>),
}

/// Reads the value of a `---` / `+++` line. An unquoted name ends at a tab:
/// git appends one after names holding a space, GNU diff puts the timestamp
/// after one, and git always quotes names that themselves hold a tab.
pub(crate) fn patch_line_name(value: &[u8]) -> Result<Name, DiffErrorKind> {
    let name = if value.first() == Some(&b'"') {
        unquote(value)?.0
    } else {
        let end = value
            .iter()
            .position(|&b| b == b'\t')
            .unwrap_or(value.len());
        value.get(..end).unwrap_or(value).to_vec()
    };
    if name == b"/dev/null" {
        Ok(Name::DevNull)
    } else if name.is_empty() {
        Err(DiffErrorKind::MissingPath)
    } else {
        Ok(Name::Path(name))
    }
}

/// Reads the value of `rename from` and its kin: quoted, or the whole rest
/// of the line.
pub(crate) fn header_value_name(value: &[u8]) -> Result<Vec<u8>, DiffErrorKind> {
    let name = if value.first() == Some(&b'"') {
        unquote(value)?.0
    } else {
        value.to_vec()
    };
    if name.is_empty() {
        return Err(DiffErrorKind::MissingPath);
    }
    Ok(name)
}

/// Splits the rest of a `diff --git ` line into its two names where quoting
/// makes that possible.
pub(crate) fn git_line_names(rest: &[u8]) -> Result<GitNames, DiffErrorKind> {
    if rest.first() == Some(&b'"') {
        let (first, used) = unquote(rest)?;
        let tail = rest.get(used..).unwrap_or_default();
        let start = tail.iter().position(|b| !b.is_ascii_whitespace());
        let second = match start.and_then(|s| tail.get(s..)) {
            Some(q) if q.first() == Some(&b'"') => unquote(q)?.0,
            Some(raw) => raw.to_vec(),
            None => return Err(DiffErrorKind::MissingPath),
        };
        return exact(first, second);
    }
    // An unquoted name never holds `"`, so a quote opens the second name.
    if let Some(q) = rest.iter().position(|&b| b == b'"') {
        let first = rest.get(..q).unwrap_or_default();
        let first = first.strip_suffix(b" ").unwrap_or(first);
        let second = unquote(rest.get(q..).unwrap_or_default())?.0;
        return exact(first.to_vec(), second);
    }
    Ok(GitNames::Unquoted(rest.to_vec()))
}

fn exact(first: Vec<u8>, second: Vec<u8>) -> Result<GitNames, DiffErrorKind> {
    if first.is_empty() || second.is_empty() {
        return Err(DiffErrorKind::MissingPath);
    }
    Ok(GitNames::Exact(first, second))
}

/// The path both prefixed names share, if they name the same file:
/// `a/x`+`b/x`, equal names (`--no-prefix`), or a common tail after any
/// `/`-terminated prefixes (`--src-prefix=old/ --dst-prefix=new/`).
pub(crate) fn same_file<'n>(old: &'n [u8], new: &[u8]) -> Option<&'n [u8]> {
    if let (Some(o), Some(n)) = (old.strip_prefix(b"a/"), new.strip_prefix(b"b/"))
        && o == n
        && !o.is_empty()
    {
        return Some(o);
    }
    if old == new {
        return (!old.is_empty()).then_some(old);
    }
    let common = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    (1..=common).rev().find_map(|k| {
        let at_boundary = |s: &[u8]| {
            let cut = s.len() - k;
            cut == 0 || s.get(cut - 1) == Some(&b'/')
        };
        if at_boundary(old) && at_boundary(new) {
            old.get(old.len() - k..)
        } else {
            None
        }
    })
}

/// Removes the standard prefixes from two names that need not match (a
/// rename in a plain `diff -u`); other names are kept as written.
pub(crate) fn strip_pair(old: &[u8], new: &[u8]) -> (Vec<u8>, Vec<u8>) {
    match (old.strip_prefix(b"a/"), new.strip_prefix(b"b/")) {
        (Some(o), Some(n)) if !o.is_empty() && !n.is_empty() => (o.to_vec(), n.to_vec()),
        _ => (old.to_vec(), new.to_vec()),
    }
}

/// Removes one standard prefix from a lone name (the other side being
/// `/dev/null` with no `diff --git` line to compare against).
pub(crate) fn strip_one<'n>(name: &'n [u8], prefix: &[u8]) -> &'n [u8] {
    match name.strip_prefix(prefix) {
        Some(rest) if !rest.is_empty() => rest,
        _ => name,
    }
}

/// The file an unquoted `diff --git` line names, using git's rule that both
/// halves name the same file. The middle split (equal prefix lengths) is
/// tried first; otherwise the split sharing the longest path wins.
pub(crate) fn split_unquoted(rest: &[u8]) -> Option<&[u8]> {
    let half = rest.len() / 2;
    if rest.len() % 2 == 1
        && rest.get(half) == Some(&b' ')
        && let Some(p) = same_file(rest.get(..half)?, rest.get(half + 1..)?)
    {
        return Some(p);
    }
    rest.iter()
        .enumerate()
        .filter(|&(_, &b)| b == b' ')
        .filter_map(|(i, _)| same_file(rest.get(..i)?, rest.get(i + 1..)?))
        .max_by_key(|p| p.len())
}

/// The shared path of a `diff --git` line when one side's prefixed name is
/// known from a `---`/`+++` line (added or deleted files).
pub(crate) fn split_with_known(rest: &[u8], known: &[u8], known_is_old: bool) -> Option<Vec<u8>> {
    let (old, new) = if known_is_old {
        let tail = rest.strip_prefix(known)?.strip_prefix(b" ")?;
        (known, tail)
    } else {
        let head = rest.strip_suffix(known)?.strip_suffix(b" ")?;
        (head, known)
    };
    same_file(old, new).map(<[u8]>::to_vec)
}

#[cfg(test)]
#[path = "path_tests.rs"]
mod tests;
