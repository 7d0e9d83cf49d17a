//! Small repositories indexed before and after a change.

use revu_domain::code_index::CodeIndex;
use revu_index::{
    ChangeInput, FactsCache, Indexer, Options, SnippetPlan, StoredTree, Summary, TreeKey, TreeStore,
};
use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A repository before and after a change: (path, base, head); `None` for
/// a side the file does not have. Unchanged files have equal sides.
pub fn index(files: &[(&str, Option<&str>, Option<&str>)]) -> CodeIndex {
    let (change, rest) = change_of(files);
    let mut indexer = Indexer::new(change, Options::default());
    indexer.scan(rest.iter().cloned());
    let index = with_snippets(indexer.finish(), &rest);
    // The same change indexed warm, against a summary of the base tree,
    // gives the same index.
    let (change, _) = change_of(files);
    if Indexer::wants_tree(&change.diff) {
        let warm = warm(files, change, &rest);
        assert_eq!(
            serde_json::to_string_pretty(&warm).unwrap_or_default(),
            serde_json::to_string_pretty(&index).unwrap_or_default(),
            "the warm index is not the full one"
        );
    }
    index
}

/// The snippets' files read again, as a client does.
fn with_snippets(mut index: CodeIndex, rest: &[(String, Vec<u8>)]) -> CodeIndex {
    let mut plan = SnippetPlan::of(&index);
    for (path, text) in rest {
        plan.read(path, text);
    }
    plan.apply(&mut index);
    index
}

/// The base tree summarised by a full index of it, then `change` indexed
/// against the summary.
fn warm(
    files: &[(&str, Option<&str>, Option<&str>)],
    change: ChangeInput,
    rest: &[(String, Vec<u8>)],
) -> CodeIndex {
    static RUN: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "revu-warm-{}-{}",
        std::process::id(),
        RUN.fetch_add(1, Ordering::Relaxed)
    ));
    let cache = Arc::new(FactsCache::open(&dir).unwrap_or_else(|e| panic!("{e}")));
    let base: Vec<(String, Vec<u8>)> = files
        .iter()
        .filter_map(|(p, b, _)| Some((p.to_string(), (*b)?.as_bytes().to_vec())))
        .collect();
    let mut full = Indexer::cached(
        ChangeInput::default(),
        Options::default(),
        Some(cache.clone()),
    )
    .summarized();
    full.scan(base.into_iter());
    let (_, summary) = full.finish_summarized();
    let summary = summary.unwrap_or_else(|| panic!("no summary of the base tree"));
    let tree = kept(&dir, &summary);
    let (mut indexer, needed) = Indexer::warm(change, Options::default(), cache, Arc::new(tree));
    let needed = needed.unwrap_or_else(|e| panic!("{e}"));
    let needed: HashSet<String> = needed.into_iter().map(|f| f.path).collect();
    indexer.scan(rest.iter().filter(|(p, _)| needed.contains(p)).cloned());
    let index = with_snippets(indexer.finish(), rest);
    let _ = std::fs::remove_dir_all(&dir);
    index
}

/// `summary` kept in the cache in `dir` as the base tree's, under the
/// default limits, and read back.
pub fn kept(dir: &std::path::Path, summary: &Summary) -> StoredTree {
    let options = Options::default();
    let key = TreeKey {
        tree: "base".into(),
        max_files: options.max_files as u64,
        max_file_bytes: options.max_file_bytes as u64,
    };
    let store = TreeStore::in_cache(dir);
    store.keep(&key, summary).unwrap_or_else(|e| panic!("{e}"));
    store.open(&key).unwrap_or_else(|e| panic!("{e}"))
}

/// The change of `files`, and the files it leaves alone.
fn change_of(
    files: &[(&str, Option<&str>, Option<&str>)],
) -> (ChangeInput, Vec<(String, Vec<u8>)>) {
    let mut diff = String::new();
    let mut change = ChangeInput::default();
    let mut rest = Vec::new();
    for (path, base, head) in files {
        if base == head {
            rest.push((
                path.to_string(),
                head.unwrap_or_default().as_bytes().to_vec(),
            ));
            continue;
        }
        let (old, new) = (base.unwrap_or_default(), head.unwrap_or_default());
        let text = similar::TextDiff::from_lines(old, new);
        let from = if base.is_some() {
            format!("a/{path}")
        } else {
            "/dev/null".into()
        };
        let to = if head.is_some() {
            format!("b/{path}")
        } else {
            "/dev/null".into()
        };
        diff.push_str(&format!("diff --git a/{path} b/{path}\n"));
        if base.is_none() {
            diff.push_str("new file mode 100644\n");
        }
        if head.is_none() {
            diff.push_str("deleted file mode 100644\n");
        }
        diff.push_str(
            &text
                .unified_diff()
                .context_radius(3)
                .header(&from, &to)
                .to_string(),
        );
        if let Some(b) = base {
            change.base.insert(path.to_string(), b.as_bytes().to_vec());
        }
        if let Some(h) = head {
            change.head.insert(path.to_string(), h.as_bytes().to_vec());
        }
    }
    change.diff = match revu_domain::diff::parse(diff.as_bytes()) {
        Ok(d) => d,
        Err(e) => panic!("the test's diff does not parse: {e}\n{diff}"),
    };
    (change, rest)
}
