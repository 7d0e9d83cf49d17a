//! A small cache of loaded review bundles: the lanes of one review usually
//! land on the same worker close together, and parsing the diff once per
//! review instead of once per lane matters for large diffs.

use crate::engines::LoadedReview;
use revu_common::lane::ReviewId;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

const CAPACITY: usize = 8;

/// Most recently used first.
type Entries = VecDeque<(ReviewId, Arc<LoadedReview>)>;

#[derive(Debug, Clone, Default)]
pub(super) struct BundleCache {
    entries: Arc<Mutex<Entries>>,
}

impl BundleCache {
    pub(super) fn get(&self, id: &ReviewId) -> Option<Arc<LoadedReview>> {
        let entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        entries
            .iter()
            .find(|(k, _)| k == id)
            .map(|(_, v)| v.clone())
    }

    pub(super) fn put(&self, id: ReviewId, loaded: Arc<LoadedReview>) {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        entries.retain(|(k, _)| *k != id);
        entries.push_front((id, loaded));
        entries.truncate(CAPACITY);
    }
}
