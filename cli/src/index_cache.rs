//! Where the code index keeps what it read of each file
//! ([`revu_index::cache`]): `--index-cache DIR` (`REVU_INDEX_CACHE`), else
//! the user's cache directory, as build tools keep theirs (Go's build
//! cache, pip, uv): `$XDG_CACHE_HOME/revu/index`, else
//! `~/.cache/revu/index` (`~/Library/Caches/revu/index` on macOS,
//! `%LOCALAPPDATA%\revu\index` on Windows). `--no-index-cache`
//! (`REVU_NO_INDEX_CACHE`) builds the index without it.

use crate::error::CliError;
use crate::source::git;
use revu_index::{BlobId, FactsCache, Listed};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The cache directory the flags and the environment name; `None` when
/// the cache is off or no directory can be told.
pub fn dir(
    flag: Option<&Path>,
    off: bool,
    env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
) -> Option<PathBuf> {
    if off {
        return None;
    }
    if let Some(dir) = flag.filter(|d| !d.as_os_str().is_empty()) {
        return Some(dir.to_path_buf());
    }
    user_cache_dir(env).map(|d| d.join("revu").join("index"))
}

/// The user's cache directory, as the platform has it.
fn user_cache_dir(env: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    let absolute = |name: &str| env(name).map(PathBuf::from).filter(|p| p.is_absolute());
    if cfg!(windows) {
        return absolute("LOCALAPPDATA");
    }
    if cfg!(target_os = "macos") {
        return absolute("HOME").map(|h| h.join("Library").join("Caches"));
    }
    absolute("XDG_CACHE_HOME").or_else(|| absolute("HOME").map(|h| h.join(".cache")))
}

/// The cache in `dir`; without it (saying why on stderr) when it cannot
/// be made there: the index is the same, only slower.
pub fn open(dir: Option<PathBuf>) -> Option<Arc<FactsCache>> {
    let dir = dir?;
    match FactsCache::open(&dir) {
        Ok(cache) => Some(Arc::new(cache)),
        Err(e) => {
            eprintln!("revu: {e}; the code index is built without its cache");
            None
        }
    }
}

/// The files of commit `rev` the index reads, with their blob ids and
/// sizes, in git's order; `None` when git's ids are not SHA-1 (a SHA-256
/// repository): the contents are then read and hashed instead.
pub fn list_commit(top: &Path, rev: &str) -> Result<Option<Vec<Listed>>, CliError> {
    let out = git(top)
        .args(["ls-tree", "-r", "-l", "-z", "--full-tree", rev])
        .output()
        .map_err(|e| CliError::Internal(format!("listing the repository's files: {e}")))?;
    if !out.status.success() {
        return Err(CliError::Internal(format!(
            "listing the repository's files: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let mut files = Vec::new();
    for line in out.stdout.split(|&b| b == 0).filter(|l| !l.is_empty()) {
        let Some(file) = parse_tree_line(line) else {
            continue;
        };
        match file {
            TreeLine::Blob(f) if revu_index::Indexer::wants(&f.path) => files.push(f),
            TreeLine::Blob(_) | TreeLine::Other => {}
            TreeLine::NotSha1 => return Ok(None),
        }
    }
    Ok(Some(files))
}

enum TreeLine {
    Blob(Listed),
    /// A submodule's commit, a tree.
    Other,
    NotSha1,
}

/// `<mode> SP <type> SP <id> SP+ <size> TAB <path>`, as `git ls-tree -l`
/// writes it.
fn parse_tree_line(line: &[u8]) -> Option<TreeLine> {
    let tab = line.iter().position(|&b| b == b'\t')?;
    let (meta, path) = (&line[..tab], &line[tab + 1..]);
    let meta = std::str::from_utf8(meta).ok()?;
    let mut fields = meta.split_ascii_whitespace();
    let (_mode, kind, id, size) = (
        fields.next()?,
        fields.next()?,
        fields.next()?,
        fields.next()?,
    );
    if kind != "blob" {
        return Some(TreeLine::Other);
    }
    let Some(blob) = BlobId::from_hex(id) else {
        return Some(TreeLine::NotSha1);
    };
    Some(TreeLine::Blob(Listed {
        path: std::str::from_utf8(path).ok()?.to_owned(),
        blob,
        size: size.parse().ok()?,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    #[cfg(all(unix, not(target_os = "macos")))]
    fn the_flag_then_xdg_cache_home_then_home() {
        let flag = Path::new("/ci/cache");
        let both = env(&[("XDG_CACHE_HOME", "/x"), ("HOME", "/home/u")]);
        assert_eq!(dir(Some(flag), false, &both), Some(flag.to_path_buf()));
        assert_eq!(
            dir(None, false, &both),
            Some(PathBuf::from("/x/revu/index"))
        );
        let home = env(&[("HOME", "/home/u")]);
        assert_eq!(
            dir(None, false, &home),
            Some(PathBuf::from("/home/u/.cache/revu/index"))
        );
        // The XDG spec ignores a relative path.
        let relative = env(&[("XDG_CACHE_HOME", "rel"), ("HOME", "/home/u")]);
        assert_eq!(
            dir(None, false, &relative),
            Some(PathBuf::from("/home/u/.cache/revu/index"))
        );
        assert_eq!(dir(None, false, &env(&[])), None);
        assert_eq!(dir(Some(flag), true, &both), None);
    }

    #[test]
    fn a_tree_line_gives_the_blob_its_size_and_path() {
        let line = b"100644 blob ce013625030ba8dba906f756967f9e9ca394464a       6\tsrc/a b.py";
        let Some(TreeLine::Blob(f)) = parse_tree_line(line) else {
            panic!("not read as a blob");
        };
        assert_eq!(f.path, "src/a b.py");
        assert_eq!(f.size, 6);
        assert_eq!(f.blob, BlobId::of(b"hello\n"));
        let module = b"160000 commit ce013625030ba8dba906f756967f9e9ca394464a       -\tlib";
        assert!(matches!(parse_tree_line(module), Some(TreeLine::Other)));
        let sha256 = format!("100644 blob {}  6\tx.py", "a".repeat(64));
        assert!(matches!(
            parse_tree_line(sha256.as_bytes()),
            Some(TreeLine::NotSha1)
        ));
    }
}
