//! A summary of an indexed tree, so that the index of a change to it costs
//! what the change touches rather than what the tree holds.
//!
//! A full index of a commit reads every file's facts; its summary keeps
//! what a later change to that tree needs without reading them again:
//! every admitted file (path, blob id, language, size, whether it parsed
//! with errors), the code files by directory and by name, every
//! manifest's text, each file's resolved imports and importers (the import
//! graph), the figures per language, Python's top-level modules, and per
//! name the files whose facts hold it with a [`Mark`] each (postings, by a
//! 60-bit hash of the name).
//!
//! The index of a change against a summarised base tree
//! ([`crate::Indexer::warm`]) resolves imports over the summary's files
//! and manifests, read as they are asked for ([`crate::resolve`]); takes
//! the import graph of every file the change left alone from the
//! summary's edges; counts the definitions of the names the change
//! defines or took away from the postings' marks; and reads the facts
//! (from the facts cache) only of the files where a use of those names may
//! be bound to the changed files ([`warm`] says which). It reads what the
//! change touches, not the tree: a few blocks of the summary, a few
//! entries. It gives the index a full index gives, but for what it cannot
//! see: a file the change did not touch whose import named nothing at the
//! base, or another file, and names a file the change adds. A hash shared
//! by two names (odds of about one in 10^12 for a name asked about in a
//! tree of millions of names) would count the other name's definitions.
//!
//! Summaries live beside the facts cache's entries, one file per tree and
//! file limits ([`format`] has the layout). The head and each block carry
//! a SHA-1 of their bytes: a head that does not check out is not used, and
//! a block that does not check out when read answers nothing and makes
//! [`StoredTree::failed`] say so; the index is then built in full.

pub(crate) mod build;
pub mod format;
mod section;
pub(crate) mod warm;

use crate::cache::BlobId;
use crate::extract::{Binding, FileFacts, Ref};
use crate::lang::Lang;
use section::{Section, Source, u32s};
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

/// A file of a summary read back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeRow<'t> {
    pub path: &'t str,
    pub blob: BlobId,
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

/// What one file's facts say of one name, with the name's key (its hash's
/// top 60 bits) in the high bits and in the low four: how many times it
/// defines it ([`DEFS`], 3 for three or more), that it names it
/// ([`NAMED`]), and whether a use of it there may reach a definition in a
/// file it does not import ([`FAR`]). One word each: a full index keeps
/// one per name of every file until the summary is written.
pub type Mark = u64;
pub const DEFS: u8 = 0b0011;
pub const NAMED: u8 = 0b0100;
/// A reference through a receiver or qualifier (`x.name`, `pkg.Name`,
/// `crate::a::name`), or a bare name inside a class: such a use is bound
/// through the receiver's type, a subclass or an absolute path, not only
/// through the file's imports.
pub const FAR: u8 = 0b1000;

/// The key postings keep `name` by: the top 60 bits of its 64-bit
/// FNV-1a hash.
pub fn name_key(name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in name.as_bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h >> 4
}

/// A mark's name key.
pub fn key_of(mark: Mark) -> u64 {
    mark >> 4
}

/// A mark's bits.
pub fn bits_of(mark: Mark) -> u8 {
    (mark & 0x0f) as u8
}

/// The mark one reference leaves on its name.
pub(crate) fn ref_mark(receiver: bool, class: bool, free: bool, import: bool) -> u8 {
    if receiver || (class && free && !import) {
        NAMED | FAR
    } else {
        NAMED
    }
}

/// Two marks of one name in one file, together.
pub(crate) fn join_marks(a: u8, b: u8) -> u8 {
    let defs = ((a & DEFS) + (b & DEFS)).min(DEFS);
    (a | b) & !DEFS | defs
}

/// Adds a definition to a name's mark.
pub(crate) fn def_mark(a: u8) -> u8 {
    join_marks(a, 1)
}

/// Marks by name, keyed, sorted and each key once.
pub(crate) fn hashed<'n>(named: impl Iterator<Item = (&'n str, u8)>) -> Vec<Mark> {
    let mut out: Vec<Mark> = named
        .map(|(n, m)| (name_key(n) << 4) | u64::from(m & 0x0f))
        .collect();
    out.sort_unstable();
    out.dedup_by(|b, a| {
        if key_of(*a) == key_of(*b) {
            *a = (key_of(*a) << 4) | u64::from(join_marks(bits_of(*a), bits_of(*b)));
            true
        } else {
            false
        }
    });
    out
}

/// The marks `facts`' definitions and references leave on their names.
pub fn marks(facts: &FileFacts) -> Vec<Mark> {
    let mut by_name: std::collections::HashMap<&str, u8> = std::collections::HashMap::new();
    for d in &facts.defs {
        let m = by_name.entry(d.name.as_str()).or_default();
        *m = def_mark(*m);
    }
    for r in &facts.refs {
        let m = by_name.entry(r.name.as_str()).or_default();
        *m = join_marks(*m, mark_of(r));
    }
    hashed(by_name.into_iter())
}

fn mark_of(r: &Ref) -> u8 {
    ref_mark(
        r.receiver.is_some(),
        r.class.is_some(),
        r.binding == Binding::Free,
        r.import,
    )
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
    /// Per file (by index), the marks its facts leave on names.
    pub names: Vec<Vec<Mark>>,
    /// Python's top-level modules under the tree's package roots, and
    /// their roots ([`crate::resolve`]).
    pub python: Vec<(String, Vec<String>)>,
}

/// A summary read back: its head, and its sections, each block read and
/// checked when first asked for. A block that cannot be read answers
/// nothing; [`StoredTree::failed`] then says why, and what was answered
/// from it must not be used.
#[derive(Debug)]
pub struct StoredTree {
    src: Source,
    pub skipped: u64,
    /// Per language: code files, and those with syntax errors.
    pub languages: Vec<(Lang, u64, u64)>,
    pub python: Vec<(String, Vec<String>)>,
    files: Section,
    dirs: Section,
    names: Section,
    imports: Section,
    importers: Section,
    postings: Section,
    manifests: Section,
}

impl StoredTree {
    /// The first failure to read a block, if any.
    pub fn failed(&self) -> Option<String> {
        self.src.failed.lock().ok().and_then(|f| f.clone())
    }

    fn fail(&self, why: &'static str) {
        self.src.fail(&TreeError::Malformed(why));
    }

    /// How many files it holds.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.len() == 0
    }

    /// File `i`.
    pub fn file(&self, i: usize) -> Option<TreeRow<'_>> {
        let (path, v) = self.files.record(&self.src, i)?;
        let row = || -> Option<TreeRow<'_>> {
            let path = std::str::from_utf8(path).ok()?;
            let blob: [u8; 20] = v.get(..20)?.try_into().ok()?;
            let lang = format::lang_of(*v.get(20)?).ok()?;
            let size = u64::from_le_bytes(v.get(21..29)?.try_into().ok()?);
            let has_errors = *v.get(29)? != 0;
            (v.len() == 30).then_some(TreeRow {
                path,
                blob: BlobId::from_bytes(blob),
                lang,
                size,
                has_errors,
            })
        };
        let found = row();
        if found.is_none() {
            self.fail("a file's row");
        }
        found
    }

    /// The index of the file at `path`.
    pub fn find(&self, path: &str) -> Option<u32> {
        let (i, _) = self.files.find(&self.src, path.as_bytes())?;
        u32::try_from(i).ok()
    }

    /// The code files directly in `dir`; `None` when it holds none.
    pub fn in_dir(&self, dir: &str) -> Option<Vec<u32>> {
        let (_, value) = self.dirs.find(&self.src, dir.as_bytes())?;
        Some(u32s(value).collect())
    }

    /// The code files named `name` (the last part of their path).
    pub fn named(&self, name: &str) -> Vec<u32> {
        self.names
            .find(&self.src, name.as_bytes())
            .map(|(_, v)| u32s(v).collect())
            .unwrap_or_default()
    }

    /// Every directory holding code files, with them: every block of the
    /// listing is read.
    pub fn each_dir(&self, mut f: impl FnMut(&str, Vec<u32>)) {
        self.dirs.each(&self.src, |k, v| {
            if let Ok(dir) = std::str::from_utf8(k) {
                f(dir, u32s(v).collect());
            }
        });
    }

    /// The files file `i`'s imports resolve to.
    pub fn imports_of(&self, i: usize) -> Vec<u32> {
        self.imports
            .value(&self.src, i)
            .map(|v| u32s(v).collect())
            .unwrap_or_default()
    }

    /// The files whose imports resolve to file `i`.
    pub fn importers_of(&self, i: usize) -> Vec<u32> {
        self.importers
            .value(&self.src, i)
            .map(|v| u32s(v).collect())
            .unwrap_or_default()
    }

    /// The files whose facts may name `name` (a hash shared by two names
    /// brings both names' files), each with its mark and its language.
    pub fn postings(&self, name: &str) -> Vec<(u32, u8, Option<Lang>)> {
        let Some((_, value)) = self.postings.find(&self.src, &name_key(name).to_be_bytes()) else {
            return Vec::new();
        };
        let mut out = Vec::with_capacity(value.len() / 5);
        for c in value.chunks_exact(5) {
            let file = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            let lang = format::lang_of(c[4] >> 4);
            match lang {
                Ok(lang) if (file as usize) < self.len() => out.push((file, c[4] & 0x0f, lang)),
                _ => self.fail("a posting names no file"),
            }
        }
        out
    }

    /// The manifests of `kind` ([`crate::resolve::manifest_kind`]): path
    /// and text, in path order.
    pub fn manifests_of(&self, kind: &str) -> Vec<(String, String)> {
        let prefix = format::manifest_key(kind, "");
        let mut out = Vec::new();
        self.manifests.each_prefixed(&self.src, &prefix, |k, v| {
            let path = k.get(prefix.len()..).map(std::str::from_utf8);
            match (path, std::str::from_utf8(v)) {
                (Some(Ok(path)), Ok(text)) => out.push((path.to_owned(), text.to_owned())),
                _ => self.fail("a manifest not UTF-8"),
            }
        });
        out
    }

    /// Every manifest: its path and text.
    pub fn manifests(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = ["cargo", "go", "npm", "py", "ts"]
            .into_iter()
            .flat_map(|kind| self.manifests_of(kind))
            .collect();
        out.sort();
        out
    }
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
        let temp = path.with_extension(format!("{}.tmp", std::process::id()));
        let written = std::fs::File::create(&temp).and_then(|file| {
            let mut out = std::io::BufWriter::new(file);
            format::write(key, summary, &mut out)?;
            std::io::Write::flush(&mut out)
        });
        if let Err(e) = written {
            let _ = std::fs::remove_file(&temp);
            return Err(TreeError::Io(temp, e));
        }
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
