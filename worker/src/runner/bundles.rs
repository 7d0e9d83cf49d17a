//! A small cache of loaded review bundles: the lanes of one review usually
//! land on the same worker close together, and parsing the diff once per
//! review instead of once per lane matters for large diffs.

use revu_common::bundle::ReviewBundle;
use revu_common::diff::Diff;
use revu_common::lane::ReviewId;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

const CAPACITY: usize = 8;

/// A bundle with its diff parsed.
#[derive(Debug)]
pub(super) struct Loaded {
    pub bundle: ReviewBundle,
    pub diff: Diff,
}

/// Most recently used first.
type Entries = VecDeque<(ReviewId, Arc<Loaded>)>;

#[derive(Debug, Clone, Default)]
pub(super) struct BundleCache {
    entries: Arc<Mutex<Entries>>,
}

impl BundleCache {
    pub(super) fn get(&self, id: &ReviewId) -> Option<Arc<Loaded>> {
        let entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        entries
            .iter()
            .find(|(k, _)| k == id)
            .map(|(_, v)| v.clone())
    }

    pub(super) fn put(&self, id: ReviewId, loaded: Arc<Loaded>) {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        entries.retain(|(k, _)| *k != id);
        entries.push_front((id, loaded));
        entries.truncate(CAPACITY);
    }
}
