//! A summary of an indexed tree, so that the index of a change to it costs
//! what the change touches rather than what the tree holds.
//!
//! A full index of a commit reads every file's facts; its summary keeps
//! what a later change to that tree needs without reading them again:
//! every admitted file (path, blob id, language, size, whether it parsed
//! with errors), every manifest's text, each file's resolved imports (the
//! import graph, as edges between files) and, per name, the files whose
//! facts hold it (postings, by a 32-bit hash of the name: a collision only
//! brings in a file that the names it is read for then leave empty).
//!
//! The index of a change against a summarised base tree
//! ([`crate::Indexer::warm`]) rebuilds the resolver from the summary's
//! paths and manifests, takes the import graph of every file the change
//! left alone from the summary's edges, and reads the facts (from the
//! facts cache) only of the files whose postings name what the change
//! defines or took away, their direct importers, and the importers of a
//! package the change adds a file to. It gives the index a full index
//! gives, but for what it cannot see: a file the change did not touch
//! whose import named nothing at the base, or another file, and names a
//! file the change adds.
//!
//! Summaries live beside the facts cache's entries, one file per tree and
//! file limits ([`format`] has the layout); the part every use reads and
//! each bucket of postings carry a SHA-1 of their bytes, and a summary
//! that does not check out is not used: the index is then built in full.

pub(crate) mod build;
pub mod format;

use crate::cache::BlobId;
use crate::lang::Lang;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

pub use format::TreeError;

/// A file of a summarised tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeFile {
    pub path: String,
    pub blob: BlobId,
    /// `None` for a manifest.
    pub lang: Option<Lang>,
    pub size: u64,
    pub has_errors: bool,
}

/// What names a summary: the tree and the file limits it was indexed
/// under (another limit admits other files).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeKey {
    /// The tree's git id (hex).
    pub tree: String,
    pub max_files: u64,
    pub max_file_bytes: u64,
}

impl TreeKey {
    /// The summary's file name.
    fn file_name(&self) -> String {
        format!(
            "{}-{}-{}.tree",
            self.tree, self.max_files, self.max_file_bytes
        )
    }
}

/// A tree's summary as a full index makes it, before it is written.
#[derive(Debug, Default)]
pub struct Summary {
    /// Sorted by path.
    pub files: Vec<TreeFile>,
    /// (index into `files`, text).
    pub manifests: Vec<(u32, String)>,
    /// Code files the limits left out.
    pub skipped: u64,
    /// Per file (by index), the files its imports resolve to.
    pub imports: Vec<Vec<u32>>,
    /// Per file (by index), the hashes of the names its facts hold.
    pub names: Vec<Vec<u32>>,
}

/// A summary read back: everything but the postings, which are read
/// bucket by bucket as names are asked for.
#[derive(Debug)]
pub struct StoredTree {
    pub files: Vec<TreeFile>,
    pub manifests: Vec<(u32, String)>,
    pub skipped: u64,
    /// `imports[offsets[i]..offsets[i + 1]]` are file `i`'s imports.
    offsets: Vec<u32>,
    imports: Vec<u32>,
    postings: format::Postings,
}

impl StoredTree {
    /// The files file `i` imports.
    pub fn imports_of(&self, i: usize) -> &[u32] {
        let (Some(&from), Some(&to)) = (self.offsets.get(i), self.offsets.get(i + 1)) else {
            return &[];
        };
        self.imports
            .get(from as usize..to as usize)
            .unwrap_or_default()
    }

    /// The index of the file at `path`.
    pub fn find(&self, path: &str) -> Option<u32> {
        self.files
            .binary_search_by(|f| f.path.as_str().cmp(path))
            .ok()
            .and_then(|i| u32::try_from(i).ok())
    }

    /// The files that import one of `targets` (by index).
    pub fn importers_of(&self, targets: &BTreeSet<u32>) -> Vec<u32> {
        (0..self.files.len())
            .filter(|&i| self.imports_of(i).iter().any(|t| targets.contains(t)))
            .filter_map(|i| u32::try_from(i).ok())
            .collect()
    }

    /// The files whose facts may hold one of `names` (a superset: a hash
    /// shared by two names brings both names' files).
    pub fn files_naming<'n>(
        &self,
        names: impl Iterator<Item = &'n str>,
    ) -> Result<BTreeSet<u32>, TreeError> {
        let mut hashes: Vec<u32> = names.map(name_hash).collect();
        hashes.sort_unstable();
        hashes.dedup();
        let mut out = BTreeSet::new();
        for ids in self.postings.lookup(&hashes)? {
            for id in ids {
                if (id as usize) >= self.files.len() {
                    return Err(TreeError::Malformed("a posting names no file"));
                }
                out.insert(id);
            }
        }
        Ok(out)
    }
}

/// The 32-bit FNV-1a hash of `name`, which postings are kept by.
pub fn name_hash(name: &str) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for &b in name.as_bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// The hashes of the names `facts`' definitions and references carry,
/// each once.
pub fn name_hashes(facts: &crate::extract::FileFacts) -> Vec<u32> {
    let mut out: Vec<u32> = facts
        .defs
        .iter()
        .map(|d| d.name.as_str())
        .chain(facts.refs.iter().map(|r| r.name.as_str()))
        .map(name_hash)
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Where a cache directory keeps summaries: beside the facts, by the
/// same versions.
#[derive(Debug, Clone)]
pub struct TreeStore {
    dir: PathBuf,
}

/// Summaries kept at most: each is the size of a tree's listing and
/// postings, so only the latest few trees a runner indexed are kept.
pub const MAX_TREES: usize = 8;

/// A temporary file older than this was left by a process that stopped.
const STALE_TEMP: std::time::Duration = std::time::Duration::from_secs(3600);

impl TreeStore {
    /// The store of the cache in `top`.
    pub fn in_cache(top: &Path) -> TreeStore {
        let stamp = crate::cache::entry::Stamp::current();
        TreeStore {
            dir: top.join(format!(
                "trees-{}-x{}",
                stamp.crate_version, stamp.extractor
            )),
        }
    }

    pub fn path(&self, key: &TreeKey) -> PathBuf {
        self.dir.join(key.file_name())
    }

    /// The summary of `key`'s tree, if one is kept and checks out.
    pub fn open(&self, key: &TreeKey) -> Result<StoredTree, TreeError> {
        let path = self.path(key);
        let tree = format::open(&path, key)?;
        // A use keeps the summary among the latest.
        let _ = std::fs::File::options()
            .append(true)
            .open(&path)
            .and_then(|f| f.set_modified(std::time::SystemTime::now()));
        Ok(tree)
    }

    /// Keeps `summary` as `key`'s, then removes all but the
    /// [`MAX_TREES`] latest used.
    pub fn keep(&self, key: &TreeKey, summary: &Summary) -> Result<(), TreeError> {
        std::fs::create_dir_all(&self.dir).map_err(|e| TreeError::Io(self.dir.clone(), e))?;
        let path = self.path(key);
        let bytes = format::encode(key, summary);
        let temp = path.with_extension(format!("{}.tmp", std::process::id()));
        std::fs::write(&temp, &bytes).map_err(|e| TreeError::Io(temp.clone(), e))?;
        std::fs::rename(&temp, &path).map_err(|e| {
            let _ = std::fs::remove_file(&temp);
            TreeError::Io(path.clone(), e)
        })?;
        self.trim();
        Ok(())
    }

    fn trim(&self) {
        let Ok(list) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let now = std::time::SystemTime::now();
        let mut trees: Vec<(std::time::SystemTime, PathBuf)> = Vec::new();
        for e in list.flatten() {
            let Some(modified) = e.metadata().ok().and_then(|m| m.modified().ok()) else {
                continue;
            };
            match e.path().extension().and_then(|x| x.to_str()) {
                Some("tree") => trees.push((modified, e.path())),
                // Left by a process that stopped while writing.
                Some("tmp") if now.duration_since(modified).is_ok_and(|a| a > STALE_TEMP) => {
                    let _ = std::fs::remove_file(e.path());
                }
                _ => {}
            }
        }
        trees.sort_by_key(|t| std::cmp::Reverse(t.0));
        for (_, path) in trees.into_iter().skip(MAX_TREES) {
            let _ = std::fs::remove_file(path);
        }
    }
}

#[cfg(test)]
mod tests;
