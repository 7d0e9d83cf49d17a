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
//! [`revu_domain::code_index::CodeIndex`] that travels in the review bundle.

mod analyze;
pub mod cache;
pub mod downstream;
pub mod extract;
pub mod lang;
pub mod resolve;
mod scan;
pub mod snippets;
pub mod tree;

pub use cache::{BlobId, CacheStats, FactsCache, Refused};
pub use lang::Lang;
pub use scan::{Listed, Options, ScannedFile};
pub use snippets::SnippetPlan;
pub use tree::{StoredTree, Summary, TreeError, TreeKey, TreeStore};

use extract::FileFacts;
use revu_domain::code_index::{CodeIndex, IndexStats};
use revu_domain::diff::Diff;
use scan::{Admission, Known, Scan};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

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

impl ChangeInput {
    /// The paths the change touches on either side.
    pub(crate) fn paths(&self) -> HashSet<String> {
        let mut out: HashSet<String> = self.head.keys().cloned().collect();
        for p in &self.diff.files {
            out.extend(p.old_path.iter().cloned());
            out.extend(p.new_path.iter().cloned());
        }
        out
    }
}

/// Builds the index: [`Indexer::new`] reads the changed files, [`scan`]
/// (after [`scan_listed`], when the files are listed by blob id) the rest
/// of the repository, [`Indexer::finish`] puts them together. With a
/// cache ([`Indexer::cached`]) the index is the same, and each file is
/// parsed once for its content.
///
/// [`scan`]: Indexer::scan
/// [`scan_listed`]: Indexer::scan_listed
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
    cache: Option<Arc<FactsCache>>,
    admission: Admission,
    /// Files admitted by [`Indexer::scan_listed`] whose contents are still
    /// to be read.
    known: HashMap<String, Known>,
    /// Keep what a summary of the tree at head needs ([`tree`]).
    record: bool,
    /// The summary of the base tree a warm index takes the rest from.
    tree: Option<Arc<StoredTree>>,
    /// For a warm index, the definitions of the names the change defines
    /// or took away in the files it left alone ([`analyze::Prior`]).
    defined: HashMap<(Lang, String), usize>,
    /// Files a warm index resolves the imports of again
    /// ([`analyze::Prior::reresolve`]).
    reresolve: HashSet<String>,
}

impl Indexer {
    pub fn new(change: ChangeInput, options: Options) -> Indexer {
        Indexer::cached(change, options, None)
    }

    /// An indexer that takes the facts of files from `cache`, and keeps
    /// there those of the files it parses (the changed files' too).
    pub fn cached(
        change: ChangeInput,
        options: Options,
        cache: Option<Arc<FactsCache>>,
    ) -> Indexer {
        let mut readers = extract::Readers::default();
        let mut read_all = |files: &BTreeMap<String, Vec<u8>>| {
            let mut out = BTreeMap::new();
            for (path, text) in files {
                if let Some(lang) = Lang::of(path)
                    && let Some(facts) = read_whole(&mut readers, cache.as_deref(), lang, text)
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
            cache,
            admission: Admission::default(),
            known: HashMap::new(),
            record: false,
            tree: None,
            defined: HashMap::new(),
            reresolve: HashSet::new(),
        }
    }

    /// An indexer that keeps, beside the index, a summary of the tree at
    /// head ([`Indexer::finish_summarized`]): call before the scan.
    pub fn summarized(mut self) -> Indexer {
        self.record = true;
        self
    }

    /// An indexer of a change to the tree `tree` summarises (its base
    /// tree): the facts of the files the change left alone are read only
    /// where a use there may reach what the change defines or took away,
    /// and the rest of the index comes from the summary. Returns the files
    /// whose contents are still needed: give them to [`Indexer::scan`],
    /// then [`Indexer::finish`]. `tree` must be the summary of the base
    /// tree under the same file limits, and the change must leave every
    /// manifest as it is ([`Indexer::wants_tree`]).
    ///
    /// When the summary cannot be read, the indexer is handed back with
    /// the error, as [`Indexer::cached`] makes it: scan the whole tree
    /// with it. A part of the summary read later that fails makes
    /// [`StoredTree::failed`] say so: the index is then not to be used.
    pub fn warm(
        change: ChangeInput,
        options: Options,
        cache: Arc<FactsCache>,
        tree: Arc<StoredTree>,
    ) -> (Indexer, Result<Vec<Listed>, TreeError>) {
        let mut indexer = Indexer::cached(change, options, Some(cache));
        let plan = tree::warm::plan(&tree, &indexer.change, &indexer.heads, &indexer.bases);
        let listed: Vec<Listed> = plan
            .read
            .iter()
            .filter_map(|&i| tree.file(i as usize))
            .filter(|f| f.lang.is_some())
            .map(|f| Listed {
                path: f.path.to_owned(),
                blob: f.blob,
                size: f.size,
            })
            .collect();
        if let Some(why) = tree.failed() {
            return (indexer, Err(TreeError::Unreadable(why)));
        }
        let needed = indexer.scan_listed(listed.into_iter());
        indexer.reresolve = plan.reresolve;
        indexer.defined = plan.defined;
        indexer.tree = Some(tree);
        (indexer, Ok(needed))
    }

    /// Whether a summary of the base tree can index `diff`: not when the
    /// change touches a manifest, which imports resolve by.
    pub fn wants_tree(diff: &Diff) -> bool {
        !diff.files.iter().any(|p| {
            [p.old_path.as_deref(), p.new_path.as_deref()]
                .into_iter()
                .flatten()
                .any(resolve::is_manifest)
        })
    }

    /// Whether the scan reads `path` (a file of an indexed language, or a
    /// manifest imports resolve by: `go.mod`, `go.work`, `Cargo.toml`,
    /// `package.json`, `tsconfig*.json`, `jsconfig.json`,
    /// `pyproject.toml`), so that a caller reads no other file.
    pub fn wants(path: &str) -> bool {
        scan::wanted_path(path)
    }

    /// Reads the repository's files listed by blob id, in the order git
    /// lists them, from the cache where it holds them. Returns the files
    /// whose contents are still needed (the cache does not hold them, or
    /// lines of theirs are quoted), sorted by path: give them to
    /// [`Indexer::scan`] next.
    pub fn scan_listed(&mut self, files: impl Iterator<Item = Listed>) -> Vec<Listed> {
        let skip: HashSet<&str> = self.change.head.keys().map(String::as_str).collect();
        let files = files.filter(|f| !skip.contains(f.path.as_str()));
        let scan = Scan {
            options: &self.options,
            wanted: &self.wanted,
            quoted: &self.quoted,
            cache: self.cache.as_deref(),
            record: self.record,
        };
        let (done, to_read) = scan.listed(files, &mut self.admission);
        self.add(done);
        to_read
            .into_iter()
            .map(|(file, known)| {
                self.known.insert(file.path.clone(), known);
                file
            })
            .collect()
    }

    /// Reads the repository's files (path and contents at head), on
    /// `options.threads` threads. The changed files may come again; their
    /// head side is already read.
    pub fn scan(&mut self, files: impl Iterator<Item = (String, Vec<u8>)>) {
        let skip: HashSet<&str> = self.change.head.keys().map(String::as_str).collect();
        let files = files.filter(|(p, _)| !skip.contains(p.as_str()));
        let scan = Scan {
            options: &self.options,
            wanted: &self.wanted,
            quoted: &self.quoted,
            cache: self.cache.as_deref(),
            record: self.record,
        };
        let scanned = scan.contents(files, &mut self.known, &mut self.admission);
        self.add(scanned);
    }

    fn add(&mut self, scanned: Vec<ScannedFile>) {
        for f in &scanned {
            if let Some(lang) = f.lang {
                self.stats.files += 1;
                self.stats.with_errors += usize::from(f.facts.has_errors);
                *self
                    .stats
                    .languages
                    .entry(lang.name().to_owned())
                    .or_default() += 1;
            }
        }
        self.scanned.extend(scanned);
    }

    /// What the cache did so far; `None` without one.
    pub fn cache_stats(&self) -> Option<CacheStats> {
        self.cache.as_deref().map(FactsCache::stats)
    }

    /// The index of the change. The sites that get a snippet
    /// ([`snippets`]) carry it when they are in a changed file; for the
    /// others, read the files [`SnippetPlan::of`] the index names.
    pub fn finish(self) -> CodeIndex {
        self.finish_summarized().0
    }

    /// The index of the change and, when the indexer was
    /// [`Indexer::summarized`] and every file of the tree at head came
    /// to it, the summary of that tree.
    pub fn finish_summarized(mut self) -> (CodeIndex, Option<Summary>) {
        self.stats.skipped = self.admission.skipped;
        // The order the files came in, or which came from the cache, does
        // not matter to the index.
        self.scanned.sort_by(|a, b| a.path.cmp(&b.path));
        for (lang, facts) in self.heads.values() {
            self.stats.files += 1;
            self.stats.with_errors += usize::from(facts.has_errors);
            *self
                .stats
                .languages
                .entry(lang.name().to_owned())
                .or_default() += 1;
        }
        let mut summary = None;
        if self.record && !self.admission.capped && self.tree.is_none() {
            summary = tree::build::files(
                &self.change,
                &self.heads,
                &mut self.scanned,
                &self.options,
                self.admission.skipped,
            );
        }
        let changed = self.change.paths();
        let tree = self.tree.take();
        if let Some(tree) = &tree {
            // The scan read only the files naming what the change
            // touched: the figures are the summary's.
            self.stats = tree::build::stats(tree, &self.heads, &changed);
        }
        let reresolve = std::mem::take(&mut self.reresolve);
        let defined = std::mem::take(&mut self.defined);
        let prior = tree.as_ref().map(|tree| analyze::Prior {
            tree: tree.clone(),
            changed: &changed,
            reresolve: &reresolve,
            defined: &defined,
        });
        let (mut index, edges) = analyze::analyze(
            &self.change,
            self.heads,
            &self.bases,
            self.scanned,
            prior,
            summary.is_some(),
        );
        if let (Some(summary), Some(edges)) = (summary.as_mut(), edges) {
            tree::build::imports(summary, &edges);
        }
        index.stats = self.stats;
        // The changed files' texts are at hand; the rest are read by the
        // caller through a [`SnippetPlan`] of what is still missing.
        let mut plan = SnippetPlan::of(&index);
        for path in plan.files() {
            if let Some(text) = self.change.head.get(&path) {
                plan.read(&path, text);
            }
        }
        plan.apply(&mut index);
        (index, summary)
    }
}

/// The whole facts of `text`, from the cache when it holds them.
fn read_whole(
    readers: &mut extract::Readers,
    cache: Option<&FactsCache>,
    lang: Lang,
    text: &[u8],
) -> Option<FileFacts> {
    let Some(cache) = cache else {
        return readers.read(lang, text, &|_| true);
    };
    let blob = BlobId::of(text);
    if let Some((facts, _)) = cache.get(blob, lang, &|_| true) {
        return Some(facts);
    }
    let facts = readers.read(lang, text, &|_| true)?;
    cache.put(
        blob,
        lang,
        u64::try_from(text.len()).unwrap_or(u64::MAX),
        &facts,
    );
    Some(facts)
}
