//! The index's cache: what the extractor read of a file, kept by the
//! file's content (its git blob id) and the extractor's version, so that a
//! file is parsed once for a content whatever commit, branch or work tree
//! it appears in, and a review parses only what it has not seen.
//!
//! An entry holds a file's whole facts, not those of one change: the
//! names a review wants are picked out as it is read back. Entries live
//! under `DIR/facts-<crate version>-x<extractor version>/`, one file each,
//! named by blob id and language. What the cache keeps:
//!
//! - an entry is used only when its checksum holds and its header names
//!   the blob, the language and the versions asked for ([`entry`]);
//!   anything else is counted as rejected, read again and written over;
//! - an entry is written to a file of its own and renamed into place, so
//!   that processes writing the same entry at once leave one whole entry,
//!   and a reader never sees half of one;
//! - entries unused for [`MAX_AGE`] are removed, at most once a day
//!   ([`FactsCache::trim_if_due`]); a use refreshes an entry's time at
//!   most once an hour.
//!
//! Failing to write is never an error of the index: the file was read,
//! and the count of failed writes says the cache did not keep it.
//!
//! Entries also travel between machines (a fleet shares them through its
//! coordinator): [`FactsCache::admit`] keeps an entry that came from
//! elsewhere only once it is checked as one read here would be, and
//! [`FactsCache::sealed`] hands out only an entry that checks.

mod codec;
pub mod entry;

use crate::extract::FileFacts;
use crate::lang::Lang;
use entry::{Rejection, Stamp};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

/// The entry layout's version ([`entry`], [`codec`]): bumped when either
/// changes.
pub const LAYOUT: u16 = 1;

/// An entry unused for this long is removed.
pub const MAX_AGE: Duration = Duration::from_secs(7 * 24 * 3600);

/// How often the cache is trimmed.
const TRIM_EVERY: Duration = Duration::from_secs(24 * 3600);

/// How stale an entry's time may get before a use refreshes it.
const TOUCH_AFTER: Duration = Duration::from_secs(3600);

/// A temporary file older than this was left by a process that stopped.
const STALE_TEMP: Duration = Duration::from_secs(3600);

/// A git blob id: the SHA-1 of `blob <length>\0` and the content.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlobId([u8; 20]);

impl BlobId {
    /// The id git gives `content` (`git hash-object --no-filters`).
    pub fn of(content: &[u8]) -> BlobId {
        let mut h = sha1_smol::Sha1::new();
        h.update(format!("blob {}\0", content.len()).as_bytes());
        h.update(content);
        BlobId(h.digest().bytes())
    }

    /// From 40 hex digits; `None` for anything else (a SHA-256
    /// repository's ids among them).
    pub fn from_hex(hex: &str) -> Option<BlobId> {
        let hex = hex.as_bytes();
        if hex.len() != 40 {
            return None;
        }
        let mut out = [0u8; 20];
        for (i, pair) in hex.chunks_exact(2).enumerate() {
            let digit = |b: u8| char::from(b).to_digit(16);
            let byte = digit(pair[0])? * 16 + digit(pair[1])?;
            out[i] = u8::try_from(byte).ok()?;
        }
        Some(BlobId(out))
    }

    pub fn from_bytes(bytes: [u8; 20]) -> BlobId {
        BlobId(bytes)
    }

    pub fn as_bytes(&self) -> &[u8; 20] {
        &self.0
    }
}

impl std::fmt::Display for BlobId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

impl std::fmt::Debug for BlobId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "BlobId({self})")
    }
}

#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error("index cache {dir}: {source}")]
    Dir {
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error("index cache entry {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Why an entry that came from elsewhere was not kept.
#[derive(Debug, thiserror::Error)]
pub enum Refused {
    /// Not the entry asked for, or not whole: never trusted.
    #[error("{0}")]
    Rejected(#[from] Rejection),
    /// Whole and right, but not written.
    #[error(transparent)]
    Write(#[from] CacheError),
}

/// What the cache did for one index.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Files whose facts came from the cache.
    pub hits: usize,
    /// Files the cache did not hold (read, then written).
    pub misses: usize,
    /// Entries found but not used: corrupt, truncated, or not what was
    /// asked for (read again and written over).
    pub rejected: usize,
    pub written: usize,
    pub write_failures: usize,
}

/// Facts by blob id, in a directory.
#[derive(Debug)]
pub struct FactsCache {
    top: PathBuf,
    /// This version's entries.
    dir: PathBuf,
    stamp: Stamp,
    hits: AtomicUsize,
    misses: AtomicUsize,
    rejected: AtomicUsize,
    written: AtomicUsize,
    write_failures: AtomicUsize,
}

/// Tells apart the temporary files of one process.
static TEMP: AtomicU64 = AtomicU64::new(0);

impl FactsCache {
    /// The cache in `top`, made if it is not there.
    pub fn open(top: &Path) -> Result<FactsCache, CacheError> {
        let stamp = Stamp::current();
        let dir = top.join(format!(
            "facts-{}-x{}",
            stamp.crate_version, stamp.extractor
        ));
        std::fs::create_dir_all(&dir).map_err(|source| CacheError::Dir {
            dir: dir.clone(),
            source,
        })?;
        Ok(FactsCache {
            top: top.to_path_buf(),
            dir,
            stamp,
            hits: AtomicUsize::new(0),
            misses: AtomicUsize::new(0),
            rejected: AtomicUsize::new(0),
            written: AtomicUsize::new(0),
            write_failures: AtomicUsize::new(0),
        })
    }

    /// The directory the cache was opened in.
    pub fn top(&self) -> &Path {
        &self.top
    }

    /// Who writes this cache's entries: what an entry from elsewhere must
    /// name to be kept.
    pub fn stamp(&self) -> &Stamp {
        &self.stamp
    }

    /// Whether an entry of `blob` read as `lang` is there, unchecked: a
    /// look at the directory, not a read.
    pub fn holds(&self, blob: BlobId, lang: Lang) -> bool {
        self.entry_path(blob, lang).is_file()
    }

    /// Keeps `bytes`, an entry that came from elsewhere, as the entry of
    /// `blob` read as `lang`, once it checks as [`FactsCache::get`] would
    /// check it: a truncated, corrupt or foreign entry is refused, and
    /// nothing is written.
    pub fn admit(&self, blob: BlobId, lang: Lang, bytes: &[u8]) -> Result<(), Refused> {
        entry::open(bytes, &self.stamp, lang, blob, &|_| false, None)?;
        self.write(&self.entry_path(blob, lang), bytes)?;
        Ok(())
    }

    /// The bytes of the entry of `blob` read as `lang`, to hand to
    /// another machine; `None` unless it is there and checks.
    pub fn sealed(&self, blob: BlobId, lang: Lang) -> Option<Vec<u8>> {
        let bytes = std::fs::read(self.entry_path(blob, lang)).ok()?;
        entry::open(&bytes, &self.stamp, lang, blob, &|_| false, None).ok()?;
        Some(bytes)
    }

    /// Where the entry of `blob` read as `lang` lives.
    pub fn entry_path(&self, blob: BlobId, lang: Lang) -> PathBuf {
        let hex = blob.to_string();
        let (fan, rest) = hex.split_at(2);
        self.dir.join(fan).join(format!("{rest}.{}", lang.name()))
    }

    /// The facts of `blob` read as `lang`, keeping the definitions and
    /// references whose name `want` accepts, and the blob's size; `None`
    /// when the cache holds no usable entry.
    pub fn get(
        &self,
        blob: BlobId,
        lang: Lang,
        want: &dyn Fn(&str) -> bool,
    ) -> Option<(FileFacts, u64)> {
        self.get_marked(blob, lang, want, None)
    }

    /// [`FactsCache::get`], and with `marks`, the marks the entry's
    /// definitions and references leave on their names
    /// ([`crate::tree::Mark`]).
    pub fn get_marked(
        &self,
        blob: BlobId,
        lang: Lang,
        want: &dyn Fn(&str) -> bool,
        marks: Option<&mut Vec<crate::tree::Mark>>,
    ) -> Option<(FileFacts, u64)> {
        let path = self.entry_path(blob, lang);
        let Ok((bytes, modified)) = read(&path) else {
            self.misses.fetch_add(1, Ordering::Relaxed);
            return None;
        };
        match entry::open(&bytes, &self.stamp, lang, blob, want, marks) {
            Ok(found) => {
                self.hits.fetch_add(1, Ordering::Relaxed);
                touch(&path, modified);
                Some(found)
            }
            Err(_) => {
                self.rejected.fetch_add(1, Ordering::Relaxed);
                self.misses.fetch_add(1, Ordering::Relaxed);
                None
            }
        }
    }

    /// Why the entry of `blob` read as `lang` is not used; `Ok` when it
    /// would be.
    pub fn check(&self, blob: BlobId, lang: Lang) -> Result<(), Option<Rejection>> {
        let bytes = std::fs::read(self.entry_path(blob, lang)).map_err(|_| None)?;
        entry::open(&bytes, &self.stamp, lang, blob, &|_| false, None)
            .map(|_| ())
            .map_err(Some)
    }

    /// Keeps the whole facts of `blob` (`size` bytes) read as `lang`.
    /// Counts a failure rather than returning it: the index does not
    /// depend on it.
    pub fn put(&self, blob: BlobId, lang: Lang, size: u64, facts: &FileFacts) {
        let bytes = entry::seal(&self.stamp, lang, blob, size, facts);
        match self.write(&self.entry_path(blob, lang), &bytes) {
            Ok(()) => self.written.fetch_add(1, Ordering::Relaxed),
            Err(_) => self.write_failures.fetch_add(1, Ordering::Relaxed),
        };
    }

    /// Writes `bytes` to a file of its own beside `path`, then renames it
    /// into place.
    pub fn write(&self, path: &Path, bytes: &[u8]) -> Result<(), CacheError> {
        let failed = |source| CacheError::Write {
            path: path.to_path_buf(),
            source,
        };
        let n = TEMP.fetch_add(1, Ordering::Relaxed);
        let mut temp = path.as_os_str().to_owned();
        temp.push(format!(".{}.{n}.tmp", std::process::id()));
        let temp = PathBuf::from(temp);
        let mut written = std::fs::write(&temp, bytes);
        // The directory is made the first time one of its entries is.
        if written
            .as_ref()
            .is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
            && let Some(parent) = path.parent()
        {
            std::fs::create_dir_all(parent).map_err(failed)?;
            written = std::fs::write(&temp, bytes);
        }
        if let Err(e) = written {
            let _ = std::fs::remove_file(&temp);
            return Err(failed(e));
        }
        std::fs::rename(&temp, path).map_err(|e| {
            let _ = std::fs::remove_file(&temp);
            failed(e)
        })
    }

    pub fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            rejected: self.rejected.load(Ordering::Relaxed),
            written: self.written.load(Ordering::Relaxed),
            write_failures: self.write_failures.load(Ordering::Relaxed),
        }
    }

    /// Removes what has not been used for `max_age` (entries of every
    /// version, and temporary files a stopped process left), when the last
    /// trim is a day old or more. Returns how many files were removed.
    pub fn trim_if_due(&self, max_age: Duration) -> Result<usize, CacheError> {
        let mark = self.top.join("trimmed");
        let now = SystemTime::now();
        let recent = std::fs::metadata(&mark)
            .and_then(|m| m.modified())
            .is_ok_and(|t| now.duration_since(t).is_ok_and(|age| age < TRIM_EVERY));
        if recent {
            return Ok(0);
        }
        self.write(&mark, b"the last trim of this cache\n")?;
        Ok(trim(&self.top, &mark, now, max_age))
    }
}

/// A file's bytes and the time it was last written.
fn read(path: &Path) -> std::io::Result<(Vec<u8>, Option<SystemTime>)> {
    use std::io::Read;
    let mut file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.read_to_end(&mut bytes)?;
    Ok((bytes, meta.modified().ok()))
}

/// Refreshes the time of an entry just used, once it is an hour old.
fn touch(path: &Path, modified: Option<SystemTime>) {
    let now = SystemTime::now();
    let stale = modified.is_some_and(|t| now.duration_since(t).is_ok_and(|age| age > TOUCH_AFTER));
    if stale && let Ok(file) = std::fs::File::options().append(true).open(path) {
        let _ = file.set_modified(now);
    }
}

/// Removes the files under `dir` older than `max_age` (temporary files
/// after [`STALE_TEMP`]), and the directories that leaves empty.
fn trim(dir: &Path, mark: &Path, now: SystemTime, max_age: Duration) -> usize {
    let Ok(list) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for item in list.flatten() {
        let path = item.path();
        let Ok(meta) = item.metadata() else { continue };
        if meta.is_dir() {
            removed += trim(&path, mark, now, max_age);
            // Only succeeds once empty.
            let _ = std::fs::remove_dir(&path);
            continue;
        }
        if path == mark {
            continue;
        }
        let limit = if path.extension().is_some_and(|e| e == "tmp") {
            STALE_TEMP
        } else {
            max_age
        };
        let old = meta
            .modified()
            .is_ok_and(|t| now.duration_since(t).is_ok_and(|age| age > limit));
        if old && std::fs::remove_file(&path).is_ok() {
            removed += 1;
        }
    }
    removed
}

#[cfg(test)]
mod tests;
