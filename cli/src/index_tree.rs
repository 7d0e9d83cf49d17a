//! The summaries of trees the code index keeps beside its cache
//! ([`revu_index::tree`]): a commit's change is indexed warm from the
//! summary of its base tree when the cache holds one, and a full index of
//! a commit keeps the summary of its tree for the next change to it.

use crate::head::HeadOf;
use crate::source::{git, git_text};
use revu_domain::diff::Diff;
use revu_index::{FactsCache, Indexer, Options, StoredTree, TreeKey, TreeStore};
use std::collections::HashSet;
use std::path::Path;

/// The trees of a commit's change, under the index's file limits.
pub struct Trees {
    store: TreeStore,
    /// The base commit and its tree's key, when the change has a base.
    base: Option<(String, TreeKey)>,
    /// The head commit and its tree's key.
    head: (String, TreeKey),
}

impl Trees {
    /// The trees of a change whose head is a commit, kept in `cache`'s
    /// directory; `None` for the index or the work tree, whose files are
    /// no tree git holds.
    pub fn of(
        top: &Path,
        cache: &FactsCache,
        head_of: &HeadOf,
        base_rev: Option<&str>,
        options: &Options,
    ) -> Option<Trees> {
        let HeadOf::Commit(head) = head_of else {
            return None;
        };
        let base = base_rev.filter(|b| !b.is_empty());
        let key = |rev: &str, tree: String| {
            (
                rev.to_owned(),
                TreeKey {
                    tree,
                    max_files: u64::try_from(options.max_files).unwrap_or(u64::MAX),
                    max_file_bytes: u64::try_from(options.max_file_bytes).unwrap_or(u64::MAX),
                },
            )
        };
        let tree_of = |rev: &str| {
            let spec = format!("{rev}^{{tree}}");
            git_text(top, &["rev-parse", "--verify", "--quiet", &spec]).ok()
        };
        // Both trees at once where both are there; else each alone.
        let both = base.and_then(|base| {
            let specs = [format!("{base}^{{tree}}"), format!("{head}^{{tree}}")];
            let out = git_text(top, &["rev-parse", &specs[0], &specs[1]]).ok()?;
            let mut lines = out.lines().map(str::trim).filter(|l| !l.is_empty());
            let (b, h) = (lines.next()?.to_owned(), lines.next()?.to_owned());
            Some((Some(key(base, b)), key(head, h)))
        });
        let (base, head) = match both {
            Some(found) => found,
            None => (
                base.and_then(|b| Some(key(b, tree_of(b)?))),
                key(head, tree_of(head)?),
            ),
        };
        Some(Trees {
            store: TreeStore::in_cache(cache.top()),
            base,
            head,
        })
    }

    /// The base tree's summary, when the cache holds it, the diff is the
    /// whole change between the two trees and leaves every manifest
    /// alone: a change to index warm ([`Indexer::warm`]). Else the index
    /// reads the whole tree, and keeps the summary of the head tree.
    /// `whole` says the diff was not narrowed to some paths; else git is
    /// asked whether it holds every path that differs.
    pub fn base_summary(&self, top: &Path, diff: &Diff, whole: bool) -> Option<StoredTree> {
        let (base, key) = self.base.as_ref()?;
        // Git is asked about the change only when there is a summary.
        if !self.store.path(key).is_file() {
            return None;
        }
        if !Indexer::wants_tree(diff) || !(whole || self.whole(top, base, diff)) {
            return None;
        }
        self.store.open(key).ok()
    }

    /// Keeps `summary` as the head tree's; whether it was kept.
    pub fn keep(&self, summary: &revu_index::Summary) -> bool {
        self.store.keep(&self.head.1, summary).is_ok()
    }

    /// Whether `diff` holds every path that differs between the base and
    /// the head commit (a diff narrowed to some paths does not: the
    /// summary would then stand for files the change did touch).
    fn whole(&self, top: &Path, base: &str, diff: &Diff) -> bool {
        let Ok(out) = git(top)
            .args(["diff-tree", "-r", "-z", "--name-only", "--no-renames"])
            .args([base, self.head.0.as_str()])
            .output()
        else {
            return false;
        };
        if !out.status.success() {
            return false;
        }
        let mut seen: HashSet<&str> = HashSet::new();
        for p in &diff.files {
            seen.extend(p.old_path.as_deref());
            seen.extend(p.new_path.as_deref());
        }
        out.stdout
            .split(|&b| b == 0)
            .filter(|p| !p.is_empty())
            .all(|p| std::str::from_utf8(p).is_ok_and(|p| seen.contains(p)))
    }
}
