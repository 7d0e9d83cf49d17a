//! Reading the repository's files on several threads.

use crate::extract::{FileFacts, Readers};
use crate::lang::Lang;
use revu_common::code_index::IndexStats;
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
    /// A `go.mod` or `Cargo.toml`'s text.
    pub manifest: Option<String>,
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

pub(crate) fn is_manifest(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name == "go.mod" || name == "Cargo.toml"
}

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
    let text = String::from_utf8_lossy(text);
    let text = text.trim();
    let mut cut = text.len().min(MAX_QUOTE);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    Some(text[..cut].to_owned())
}

pub(crate) fn scan(
    files: impl Iterator<Item = (String, Vec<u8>)>,
    options: &Options,
    wanted: &HashSet<String>,
    quoted: &HashSet<String>,
) -> (Vec<ScannedFile>, IndexStats) {
    let (tx, rx) = mpsc::sync_channel::<(String, Vec<u8>)>(64);
    let rx = Mutex::new(rx);
    let mut stats = IndexStats::default();
    let mut out = Vec::new();
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..options.threads.max(1))
            .map(|_| s.spawn(|| read_files(&rx, wanted, quoted)))
            .collect();
        let mut parsed = 0usize;
        for (path, bytes) in files {
            if !wanted_path(&path) {
                continue;
            }
            let is_code = Lang::of(&path).is_some();
            if is_code && (bytes.len() > options.max_file_bytes || parsed >= options.max_files) {
                stats.skipped += 1;
                continue;
            }
            parsed += usize::from(is_code);
            if tx.send((path, bytes)).is_err() {
                break;
            }
        }
        drop(tx);
        for w in workers {
            if let Ok(files) = w.join() {
                out.extend(files);
            }
        }
    });
    for f in &out {
        if let Some(lang) = f.lang {
            stats.files += 1;
            stats.with_errors += usize::from(f.facts.has_errors);
            *stats.languages.entry(lang.name().to_owned()).or_default() += 1;
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    (out, stats)
}

fn read_files(
    rx: &Mutex<mpsc::Receiver<(String, Vec<u8>)>>,
    wanted: &HashSet<String>,
    quoted: &HashSet<String>,
) -> Vec<ScannedFile> {
    let mut readers = Readers::default();
    let mut out = Vec::new();
    let want = |name: &str| wanted.contains(name);
    loop {
        let next = match rx.lock() {
            Ok(rx) => rx.recv(),
            Err(_) => break,
        };
        let Ok((path, bytes)) = next else { break };
        let Some(lang) = Lang::of(&path) else {
            out.push(ScannedFile {
                manifest: Some(String::from_utf8_lossy(&bytes).into_owned()),
                path,
                ..ScannedFile::default()
            });
            continue;
        };
        let Some(facts) = readers.read(lang, &bytes, &want) else {
            continue;
        };
        let quotes = facts
            .refs
            .iter()
            .filter(|r| quoted.contains(&r.name))
            .filter_map(|r| Some((r.line, quote(&bytes, r.line)?)))
            .collect();
        out.push(ScannedFile {
            path,
            lang: Some(lang),
            facts,
            quotes,
            manifest: None,
        });
    }
    out
}
