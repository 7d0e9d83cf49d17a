//! The code index a client builds from the repository at head: definitions,
//! references and imports read by tree-sitter (Python, JavaScript,
//! TypeScript, Go, Rust, Java), and from them, for each changed file, who
//! imports it and who calls what it defines, and which uses at head the
//! change left behind (a renamed or removed symbol, a changed arity).
//!
//! A name counts as a use of a changed symbol only once it resolves to it
//! through its binding: locals and parameters shadow, imports bind names to
//! their modules, qualifiers and receivers' declared types decide member
//! accesses (`extract::bind`, `analyze::uses`). Where that cannot be shown
//! with certainty the use is kept as a doubt, never as certain. This is no
//! type checker: what travels through calls is a receiver of unknown type.
//! The result is a bounded
//! [`revu_common::code_index::CodeIndex`] that travels in the review bundle.

mod analyze;
pub mod downstream;
pub mod extract;
pub mod lang;
pub mod resolve;
mod scan;

pub use lang::Lang;
pub use scan::{Options, ScannedFile};

use extract::FileFacts;
use revu_common::code_index::{CodeIndex, IndexStats};
use revu_common::diff::Diff;
use std::collections::{BTreeMap, HashSet};

/// The change the index is built for: its diff, and the two sides of each
/// changed file.
#[derive(Debug, Default)]
pub struct ChangeInput {
    pub diff: Diff,
    /// Head contents of changed files, by head path.
    pub head: BTreeMap<String, Vec<u8>>,
    /// Base contents of changed files, by base path.
    pub base: BTreeMap<String, Vec<u8>>,
}

/// Builds the index: [`Indexer::new`] reads the changed files, [`scan`]
/// the rest of the repository, [`Indexer::finish`] puts them together.
///
/// [`scan`]: Indexer::scan
#[derive(Debug)]
pub struct Indexer {
    change: ChangeInput,
    options: Options,
    /// Full facts of each changed file at head, and on the base side.
    heads: BTreeMap<String, (Lang, FileFacts)>,
    bases: BTreeMap<String, (Lang, FileFacts)>,
    /// Names whose definitions and references the scan keeps.
    wanted: HashSet<String>,
    /// Names whose use at head may be stale: the scan keeps their lines.
    quoted: HashSet<String>,
    scanned: Vec<ScannedFile>,
    stats: IndexStats,
}

impl Indexer {
    pub fn new(change: ChangeInput, options: Options) -> Indexer {
        let mut readers = extract::Readers::default();
        let mut read_all = |files: &BTreeMap<String, Vec<u8>>| {
            let mut out = BTreeMap::new();
            for (path, text) in files {
                if let Some(lang) = Lang::of(path)
                    && let Some(facts) = readers.read(lang, text, &|_| true)
                {
                    out.insert(path.clone(), (lang, facts));
                }
            }
            out
        };
        let heads = read_all(&change.head);
        let bases = read_all(&change.base);
        let mut wanted = HashSet::new();
        let mut quoted = HashSet::new();
        for (_, facts) in heads.values() {
            wanted.extend(facts.defs.iter().map(|d| d.name.clone()));
        }
        for (_, facts) in bases.values() {
            for d in &facts.defs {
                wanted.insert(d.name.clone());
                quoted.insert(d.name.clone());
            }
        }
        Indexer {
            change,
            options,
            heads,
            bases,
            wanted,
            quoted,
            scanned: Vec::new(),
            stats: IndexStats::default(),
        }
    }

    /// Whether the scan reads `path` (a file of an indexed language, or a
    /// `go.mod` / `Cargo.toml`), so that a caller reads no other file.
    pub fn wants(path: &str) -> bool {
        scan::wanted_path(path)
    }

    /// Reads the repository's files (path and contents at head), on
    /// `options.threads` threads. The changed files may come again; their
    /// head side is already read.
    pub fn scan(&mut self, files: impl Iterator<Item = (String, Vec<u8>)>) {
        let skip: HashSet<&str> = self.change.head.keys().map(String::as_str).collect();
        let files = files.filter(|(p, _)| !skip.contains(p.as_str()));
        let (scanned, stats) = scan::scan(files, &self.options, &self.wanted, &self.quoted);
        self.scanned.extend(scanned);
        self.stats.skipped += stats.skipped;
        self.stats.with_errors += stats.with_errors;
        self.stats.files += stats.files;
        for (lang, n) in stats.languages {
            *self.stats.languages.entry(lang).or_default() += n;
        }
    }

    /// The index of the change.
    pub fn finish(mut self) -> CodeIndex {
        for (lang, facts) in self.heads.values() {
            self.stats.files += 1;
            self.stats.with_errors += usize::from(facts.has_errors);
            *self
                .stats
                .languages
                .entry(lang.name().to_owned())
                .or_default() += 1;
        }
        let mut index = analyze::analyze(&self.change, self.heads, &self.bases, self.scanned);
        index.stats = self.stats;
        index
    }
}
