//! Reading the repository's files on several threads, from the cache
//! where it holds them.
//!
//! Files come in one of two ways. Listed with their blob id and size
//! ([`scan_listed`]), a file's facts are taken from the cache without its
//! contents; those the cache does not hold, and those whose lines must be
//! quoted, are handed back to be read. With their contents ([`scan`]), a
//! file's blob id is computed from them: from the cache again, else parsed
//! whole, kept in the cache, and narrowed to the names the change wants.
//! Either way a file is admitted in the order it comes, by the same limits
//! ([`Admission`]), so the index does not depend on the way in.

use crate::cache::{BlobId, FactsCache};
use crate::extract::{FileFacts, Readers};
use crate::lang::Lang;
use crate::resolve::is_manifest;
use crate::tree::Mark;
use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, mpsc};

/// Bounds on what the scan reads.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Files parsed at most; the rest are counted as skipped.
    pub max_files: usize,
    /// A larger file is skipped (generated or minified, as a rule).
    pub max_file_bytes: usize,
    /// Threads that parse.
    pub threads: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_files: 200_000,
            max_file_bytes: 1024 * 1024,
            threads: std::thread::available_parallelism().map_or(2, |n| n.get().min(8)),
        }
    }
}

/// One file as the scan read it.
#[derive(Debug, Default)]
pub struct ScannedFile {
    pub path: String,
    pub lang: Option<Lang>,
    pub facts: FileFacts,
    /// Lines holding a use of a name that may be stale, by line number.
    pub quotes: HashMap<u32, String>,
    /// A manifest's text (`go.mod`, `package.json`…: see
    /// [`crate::resolve::Resolver::manifest`]).
    pub manifest: Option<String>,
    /// Its blob, when known (listed, or read with the cache on).
    pub blob: Option<BlobId>,
    pub size: u64,
    /// The marks its facts leave on names, when the scan keeps a summary
    /// of the tree ([`crate::tree::Mark`]).
    pub names: Vec<Mark>,
}

/// A file of the repository at head, by its blob.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub path: String,
    pub blob: BlobId,
    /// The blob's size in bytes.
    pub size: u64,
}

/// Directories whose code is not the repository's own.
const FOREIGN_DIRS: [&str; 6] = [
    "node_modules",
    "vendor",
    "third_party",
    ".git",
    "target",
    "dist",
];

pub(crate) fn wanted_path(path: &str) -> bool {
    if path.split('/').any(|seg| FOREIGN_DIRS.contains(&seg)) || path.ends_with(".min.js") {
        return false;
    }
    is_manifest(path) || Lang::of(path).is_some()
}

/// Longest line kept as a quote.
const MAX_QUOTE: usize = 200;

pub(crate) fn quote(src: &[u8], line: u32) -> Option<String> {
    let text = src
        .split(|&b| b == b'\n')
        .nth(usize::try_from(line).ok()?.checked_sub(1)?)?;
    Some(quoted_line(text))
}

/// The quotes of `lines` of `src`, as [`quote`] gives them, finding each
/// line once rather than reading the file from its start for each.
fn quotes(src: &[u8], lines: impl Iterator<Item = u32>) -> HashMap<u32, String> {
    // Lines count from 1.
    let mut lines: Vec<u32> = lines.filter(|&l| l > 0).collect();
    if lines.is_empty() {
        return HashMap::new();
    }
    lines.sort_unstable();
    lines.dedup();
    let mut out = HashMap::with_capacity(lines.len());
    let mut wanted = lines.into_iter().peekable();
    for (text, n) in src.split(|&b| b == b'\n').zip(1u32..) {
        let Some(&next) = wanted.peek() else { break };
        if next == n {
            out.insert(n, quoted_line(text));
            wanted.next();
        }
    }
    out
}

fn quoted_line(text: &[u8]) -> String {
    let text = String::from_utf8_lossy(text);
    let text = text.trim();
    let mut cut = text.len().min(MAX_QUOTE);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    text[..cut].to_owned()
}

/// Which files the scan reads, in the order they come: every manifest
/// within the size limit, and the code files within it up to the file
/// limit.
#[derive(Debug, Default)]
pub(crate) struct Admission {
    parsed: usize,
    pub skipped: usize,
    /// The file limit left some file out.
    pub capped: bool,
}

impl Admission {
    fn admit(&mut self, path: &str, size: u64, options: &Options) -> bool {
        if !wanted_path(path) {
            return false;
        }
        let is_code = Lang::of(path).is_some();
        let too_large = size > u64::try_from(options.max_file_bytes).unwrap_or(u64::MAX);
        if !is_code && too_large {
            return false;
        }
        if is_code && (too_large || self.parsed >= options.max_files) {
            self.capped |= !too_large;
            self.skipped += 1;
            return false;
        }
        self.parsed += usize::from(is_code);
        true
    }
}

/// What is known of an admitted file before its contents are read.
#[derive(Debug)]
pub(crate) enum Known {
    /// Nothing yet: the cache is asked.
    Nothing,
    /// The cache does not hold it: parsed and kept.
    Missed,
    /// Its facts, from the cache (and the marks on its names when they
    /// are kept): only its quotes are left to read.
    Facts(FileFacts, Vec<Mark>),
}

/// What the scan reads with.
pub(crate) struct Scan<'a> {
    pub options: &'a Options,
    pub wanted: &'a HashSet<String>,
    pub quoted: &'a HashSet<String>,
    pub cache: Option<&'a FactsCache>,
    /// Keep the marks every file leaves on names, for a summary of the
    /// tree.
    pub record: bool,
}

/// A listed file read from the cache, or handed back to be read.
enum FromList {
    Done(ScannedFile),
    Read(Listed, Known),
}

impl Scan<'_> {
    /// The files of `files` the cache answers; the rest are returned with
    /// what is known of them, to be read.
    pub fn listed(
        &self,
        files: impl Iterator<Item = Listed>,
        admission: &mut Admission,
    ) -> (Vec<ScannedFile>, Vec<(Listed, Known)>) {
        let admitted = files.filter(|f| admission.admit(&f.path, f.size, self.options));
        let results = in_parallel(admitted, self.options.threads, &|_, file| {
            Some(self.cached(file))
        });
        let mut done = Vec::new();
        let mut to_read = Vec::new();
        for r in results {
            match r {
                FromList::Done(f) => done.push(f),
                FromList::Read(f, known) => to_read.push((f, known)),
            }
        }
        to_read.sort_by(|a, b| a.0.path.cmp(&b.0.path));
        (done, to_read)
    }

    fn cached(&self, file: Listed) -> FromList {
        let (Some(cache), Some(lang)) = (self.cache, Lang::of(&file.path)) else {
            return FromList::Read(file, Known::Nothing);
        };
        let mut names = Vec::new();
        let want = |name: &str| self.wanted.contains(name);
        let marks = self.record.then_some(&mut names);
        let Some((facts, _)) = cache.get_marked(file.blob, lang, &want, marks) else {
            return FromList::Read(file, Known::Missed);
        };
        if facts.refs.iter().any(|r| self.quoted.contains(&r.name)) {
            return FromList::Read(file, Known::Facts(facts, names));
        }
        FromList::Done(ScannedFile {
            path: file.path,
            lang: Some(lang),
            facts,
            blob: Some(file.blob),
            size: file.size,
            names,
            ..ScannedFile::default()
        })
    }

    /// Reads `files`: those in `known` were admitted already, the rest
    /// are admitted as they come.
    pub fn contents(
        &self,
        files: impl Iterator<Item = (String, Vec<u8>)>,
        known: &mut HashMap<String, Known>,
        admission: &mut Admission,
    ) -> Vec<ScannedFile> {
        let admitted = files.filter_map(|(path, bytes)| {
            if let Some(k) = known.remove(&path) {
                return Some((path, bytes, k));
            }
            let size = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
            admission
                .admit(&path, size, self.options)
                .then_some((path, bytes, Known::Nothing))
        });
        in_parallel(
            admitted,
            self.options.threads,
            &|readers, (path, bytes, k)| self.read(readers, path, &bytes, k),
        )
    }

    fn read(
        &self,
        readers: &mut Readers,
        path: String,
        bytes: &[u8],
        known: Known,
    ) -> Option<ScannedFile> {
        let size = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
        let blob = self.cache.map(|_| BlobId::of(bytes));
        let Some(lang) = Lang::of(&path) else {
            return Some(ScannedFile {
                manifest: Some(String::from_utf8_lossy(bytes).into_owned()),
                path,
                blob,
                size,
                ..ScannedFile::default()
            });
        };
        let mut names = Vec::new();
        let want = |name: &str| self.wanted.contains(name);
        let facts = match (known, self.cache, blob) {
            (Known::Facts(facts, kept), _, _) => {
                names = kept;
                facts
            }
            (known, Some(cache), Some(blob)) => {
                let cached = match known {
                    Known::Nothing => {
                        let marks = self.record.then_some(&mut names);
                        cache.get_marked(blob, lang, &want, marks).map(|(f, _)| f)
                    }
                    _ => None,
                };
                match cached {
                    Some(facts) => facts,
                    None => {
                        let all = readers.read(lang, bytes, &|_| true)?;
                        cache.put(blob, lang, size, &all);
                        if self.record {
                            names = crate::tree::marks(&all);
                        }
                        all.keep(&|n| self.wanted.contains(n))
                    }
                }
            }
            _ => readers.read(lang, bytes, &want)?,
        };
        let lines = facts
            .refs
            .iter()
            .filter(|r| self.quoted.contains(&r.name))
            .map(|r| r.line);
        let quotes = quotes(bytes, lines);
        Some(ScannedFile {
            path,
            lang: Some(lang),
            facts,
            quotes,
            manifest: None,
            blob,
            size,
            names,
        })
    }
}

/// `work` on each of `items`, on `threads` threads, each with readers of
/// its own; the results in no particular order.
fn in_parallel<I: Send, O: Send>(
    items: impl Iterator<Item = I>,
    threads: usize,
    work: &(dyn Fn(&mut Readers, I) -> Option<O> + Sync),
) -> Vec<O> {
    let (tx, rx) = mpsc::sync_channel::<I>(64);
    let rx = Mutex::new(rx);
    let mut out = Vec::new();
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads.max(1))
            .map(|_| {
                s.spawn(|| {
                    let mut readers = Readers::default();
                    let mut done = Vec::new();
                    loop {
                        let next = match rx.lock() {
                            Ok(rx) => rx.recv(),
                            Err(_) => break,
                        };
                        let Ok(item) = next else { break };
                        done.extend(work(&mut readers, item));
                    }
                    done
                })
            })
            .collect();
        for item in items {
            if tx.send(item).is_err() {
                break;
            }
        }
        drop(tx);
        for w in workers {
            if let Ok(done) = w.join() {
                out.extend(done);
            }
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quotes_of_a_file_are_its_lines_quoted_one_by_one() {
        let long = "é".repeat(150);
        let src = format!("first\n  second  \n\n{long}\nlast\n");
        let lines = [0, 1, 2, 3, 4, 4, 5, 6, 7, 99];
        let one_by_one: HashMap<u32, String> = lines
            .iter()
            .filter_map(|&l| Some((l, quote(src.as_bytes(), l)?)))
            .collect();
        assert_eq!(quotes(src.as_bytes(), lines.into_iter()), one_by_one);
        assert_eq!(one_by_one.get(&2).map(String::as_str), Some("second"));
        assert_eq!(one_by_one.get(&6).map(String::as_str), Some(""));
        assert!(one_by_one.get(&4).is_some_and(|q| q.len() <= MAX_QUOTE));
        assert_eq!(one_by_one.len(), 6);
    }
}
