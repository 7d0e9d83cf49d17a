//! The cache against real code: every file of this workspace in a language
//! the index reads (Rust, and the breadth corpus's Python, Go, Java and
//! JavaScript) kept whole and read back narrowed to a change's names gives
//! what the reader gives when it narrows as it reads; and an index built
//! from the cache is the index built without it, within any file limits.

use revu_index::extract::{FileFacts, Readers};
use revu_index::{BlobId, ChangeInput, FactsCache, Indexer, Lang, Listed, Options};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every indexed file under `dir`, by path relative to the workspace.
fn files(dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    let Ok(list) = std::fs::read_dir(dir) else {
        return;
    };
    for item in list.flatten() {
        let path = item.path();
        if path.is_dir() {
            files(&path, out);
            continue;
        }
        let Ok(rel) = path.strip_prefix(workspace()) else {
            continue;
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        if Indexer::wants(&rel)
            && let Ok(bytes) = std::fs::read(&path)
        {
            out.push((rel, bytes));
        }
    }
}

fn corpus() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for dir in ["index/src", "cli/src", "stages/src", "tests/breadth"] {
        files(&workspace().join(dir), &mut out);
    }
    out.sort();
    let langs: HashSet<Lang> = out.iter().filter_map(|(p, _)| Lang::of(p)).collect();
    assert!(
        out.len() > 100 && langs.len() >= 5,
        "the workspace's files are not where this test looks: {} files, {langs:?}",
        out.len()
    );
    out
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("revu-index-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn read(lang: Lang, src: &[u8], want: &dyn Fn(&str) -> bool) -> FileFacts {
    Readers::default()
        .read(lang, src, want)
        .unwrap_or_else(|| panic!("the {lang:?} grammar does not load"))
}

#[test]
fn facts_from_the_cache_are_the_facts_the_reader_keeps_for_any_names() {
    let corpus = corpus();
    let dir = scratch("facts");
    let cache = FactsCache::open(&dir).unwrap_or_else(|e| panic!("{e}"));
    let mut readers = Readers::default();
    let mut whole: Vec<(Lang, BlobId, FileFacts)> = Vec::new();
    for (path, bytes) in &corpus {
        let Some(lang) = Lang::of(path) else { continue };
        let Some(all) = readers.read(lang, bytes, &|_| true) else {
            panic!("{path}: the grammar does not load")
        };
        let blob = BlobId::of(bytes);
        cache.put(blob, lang, bytes.len() as u64, &all);
        whole.push((lang, blob, all));
    }
    // Names as a change would want them: every definition of some files,
    // and every third name used anywhere.
    let mut names: HashSet<String> = HashSet::new();
    for (i, (_, _, facts)) in whole.iter().enumerate() {
        if i % 7 == 0 {
            names.extend(facts.defs.iter().map(|d| d.name.clone()));
        }
        names.extend(facts.refs.iter().step_by(3).map(|r| r.name.clone()));
    }
    let want = |n: &str| names.contains(n);
    let mut checked = 0;
    for ((path, bytes), (lang, blob, all)) in corpus
        .iter()
        .filter(|(p, _)| Lang::of(p).is_some())
        .zip(&whole)
    {
        let narrowed = read(*lang, bytes, &want);
        assert_eq!(all.clone().keep(&want), narrowed, "{path}: kept");
        let Some((cached, size)) = cache.get(*blob, *lang, &want) else {
            panic!("{path}: not in the cache")
        };
        assert_eq!(cached, narrowed, "{path}: from the cache");
        assert_eq!(size, bytes.len() as u64);
        let Some((cached, _)) = cache.get(*blob, *lang, &|_| true) else {
            panic!("{path}: not in the cache")
        };
        assert_eq!(&cached, all, "{path}: whole");
        checked += 1;
    }
    assert_eq!(cache.stats().rejected, 0);
    assert!(checked > 100, "{checked}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The change: a function of the index renamed where it is defined,
/// its callers left as they were.
fn change(corpus: &[(String, Vec<u8>)]) -> ChangeInput {
    let path = "index/src/lang.rs";
    let Some((_, base)) = corpus.iter().find(|(p, _)| p == path) else {
        panic!("{path} is not in the corpus")
    };
    let base = String::from_utf8_lossy(base).into_owned();
    let head = base.replace("pub fn checks_arity(", "pub fn arity_checked(");
    assert_ne!(base, head, "{path} no longer defines checks_arity");
    let old_line = base
        .lines()
        .position(|l| l.contains("pub fn checks_arity("))
        .map_or(1, |i| i + 1);
    let diff = format!(
        "diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -{old_line} +{old_line} @@\n\
         -{}\n+{}\n",
        base.lines().nth(old_line - 1).unwrap_or_default(),
        head.lines().nth(old_line - 1).unwrap_or_default(),
    );
    let diff = revu_domain::diff::parse(diff.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
    ChangeInput {
        diff,
        head: [(path.to_owned(), head.into_bytes())].into(),
        base: [(path.to_owned(), base.into_bytes())].into(),
    }
}

fn index_json(
    corpus: &[(String, Vec<u8>)],
    cache: Option<&Arc<FactsCache>>,
    listed: bool,
) -> String {
    index_within(corpus, cache, listed, Options::default())
}

fn index_within(
    corpus: &[(String, Vec<u8>)],
    cache: Option<&Arc<FactsCache>>,
    listed: bool,
    options: Options,
) -> String {
    let mut indexer = Indexer::cached(change(corpus), options, cache.cloned());
    if listed {
        let list = corpus.iter().map(|(path, bytes)| Listed {
            path: path.clone(),
            blob: BlobId::of(bytes),
            size: bytes.len() as u64,
        });
        let needed: HashSet<String> = indexer
            .scan_listed(list)
            .into_iter()
            .map(|f| f.path)
            .collect();
        indexer.scan(corpus.iter().filter(|(p, _)| needed.contains(p)).cloned());
    } else {
        indexer.scan(corpus.iter().cloned());
    }
    serde_json::to_string_pretty(&indexer.finish()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn an_index_from_the_cache_is_the_index_without_it() {
    let corpus = corpus();
    let dir = scratch("same");
    let cache = Arc::new(FactsCache::open(&dir).unwrap_or_else(|e| panic!("{e}")));
    let without = index_json(&corpus, None, false);
    assert!(
        without.contains("checks_arity"),
        "the change left no stale use: {without}"
    );
    assert_eq!(index_json(&corpus, None, true), without, "listed, no cache");
    let cold = index_json(&corpus, Some(&cache), true);
    let written = cache.stats().written;
    assert!(written > 100, "{:?}", cache.stats());
    assert_eq!(cold, without, "listed, cold cache");
    let before = cache.stats();
    assert_eq!(
        index_json(&corpus, Some(&cache), true),
        without,
        "listed, warm"
    );
    let warm = cache.stats();
    // Warm, every file came from the cache; nothing was parsed again.
    assert_eq!(warm.misses, before.misses, "{warm:?}");
    assert_eq!(warm.written, before.written, "{warm:?}");
    assert!(warm.hits - before.hits >= written, "{warm:?}");
    assert_eq!(
        index_json(&corpus, Some(&cache), false),
        without,
        "contents, warm"
    );
    assert_eq!(cache.stats().misses, warm.misses);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_file_limits_leave_out_the_same_files_whichever_way_files_come() {
    let corpus = corpus();
    let dir = scratch("limits");
    let cache = Arc::new(FactsCache::open(&dir).unwrap_or_else(|e| panic!("{e}")));
    let options = Options {
        max_files: corpus.len() / 3,
        max_file_bytes: 6_000,
        ..Options::default()
    };
    let without = index_within(&corpus, None, false, options);
    let stats: serde_json::Value = serde_json::from_str(&without).unwrap_or_default();
    let skipped = stats["stats"]["skipped"].as_u64().unwrap_or_default();
    assert!(
        skipped > 20,
        "the limits leave out too little to tell: {skipped}"
    );
    assert_eq!(
        index_within(&corpus, None, true, options),
        without,
        "listed"
    );
    assert_eq!(
        index_within(&corpus, Some(&cache), true, options),
        without,
        "cold"
    );
    assert_eq!(
        index_within(&corpus, Some(&cache), true, options),
        without,
        "warm"
    );
    assert_eq!(
        index_within(&corpus, Some(&cache), false, options),
        without,
        "contents"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_warm_index_from_the_base_trees_summary_is_the_full_index_and_reads_what_the_change_names() {
    let corpus = corpus();
    let dir = scratch("tree");
    let cache = Arc::new(FactsCache::open(&dir).unwrap_or_else(|e| panic!("{e}")));
    let without = index_json(&corpus, None, false);
    // A full index of the base tree (no change), listed by blob, keeps
    // its summary.
    let listed = || {
        corpus.iter().map(|(path, bytes)| Listed {
            path: path.clone(),
            blob: BlobId::of(bytes),
            size: bytes.len() as u64,
        })
    };
    let mut full = Indexer::cached(
        ChangeInput::default(),
        Options::default(),
        Some(cache.clone()),
    )
    .summarized();
    let needed: HashSet<String> = full
        .scan_listed(listed())
        .into_iter()
        .map(|f| f.path)
        .collect();
    full.scan(corpus.iter().filter(|(p, _)| needed.contains(p)).cloned());
    let (_, summary) = full.finish_summarized();
    let summary = summary.unwrap_or_else(|| panic!("no summary"));
    assert_eq!(
        summary.files.len(),
        corpus.len(),
        "every file of the tree is in its summary"
    );
    let before = cache.stats();
    let tree = crate::common::kept(&dir, &summary);
    let (mut warm, needed) = Indexer::warm(
        change(&corpus),
        Options::default(),
        cache.clone(),
        std::sync::Arc::new(tree),
    );
    let needed = needed.unwrap_or_else(|e| panic!("{e}"));
    let needed: HashSet<String> = needed.into_iter().map(|f| f.path).collect();
    warm.scan(corpus.iter().filter(|(p, _)| needed.contains(p)).cloned());
    let json = serde_json::to_string_pretty(&warm.finish()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(json, without, "warm, from the summary");
    let after = cache.stats();
    let read = after.hits - before.hits;
    // The changed file's two sides, and the files naming what it defines
    // (`Lang`'s methods, `of` and `name` among them, are named widely):
    // not the whole tree.
    assert!(
        read > 0 && read < corpus.len(),
        "{read} of {} files read",
        corpus.len()
    );
    // Parsed: the changed file's new side alone.
    assert_eq!(after.misses - before.misses, 1, "{after:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
