//! A small cache of loaded review bundles: the lanes of one review usually
//! land on the same worker close together, and parsing the diff once per
//! review instead of once per lane matters for large diffs. Lanes of one
//! review that arrive together wait for one load instead of each loading
//! the bundle: with a 60 MB diff, 32 lanes loading at once held 32 copies
//! (5.4 GB on the worker, 1.9 GB of Redis output buffers).

use crate::engines::LoadedReview;
use revu_domain::lane::ReviewId;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

const CAPACITY: usize = 8;
/// Most diff bytes the cache keeps loaded (the newest review stays
/// whatever its size): each is held with its parsed lines (about as large
/// again) and the rules' findings, so eight reviews of a 64 MB diff kept
/// most of a gigabyte on a worker long after their lanes ran. The lanes of
/// a review arrive together, so the newest is the one that matters.
const BUDGET_BYTES: usize = 64 * 1024 * 1024;

/// Most recently used first.
type Entries = VecDeque<(ReviewId, Arc<LoadedReview>)>;

#[derive(Debug, Clone, Default)]
pub(super) struct BundleCache {
    entries: Arc<Mutex<Entries>>,
    /// One turn per review being loaded: who holds it loads.
    loading: Arc<Mutex<HashMap<ReviewId, Arc<tokio::sync::Mutex<()>>>>>,
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
        {
            let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
            entries.retain(|(k, _)| *k != id);
            entries.push_front((id.clone(), loaded));
            entries.truncate(CAPACITY);
            keep_within(&mut entries, BUDGET_BYTES);
        }
        let mut loading = self.loading.lock().unwrap_or_else(|p| p.into_inner());
        loading.remove(&id);
    }

    /// The turn to load review `id`: lock it, look in the cache again (a
    /// lane ahead may have loaded it), and load only if it is still not
    /// there.
    pub(super) fn turn(&self, id: &ReviewId) -> Arc<tokio::sync::Mutex<()>> {
        let mut loading = self.loading.lock().unwrap_or_else(|p| p.into_inner());
        loading.entry(id.clone()).or_default().clone()
    }
}

/// Drops the oldest entries until the diffs of the rest take at most
/// `budget` bytes; the newest always stays, whatever its size (its lanes
/// are running).
fn keep_within(entries: &mut Entries, budget: usize) {
    let mut total = 0usize;
    let keep = entries
        .iter()
        .position(|(_, loaded)| {
            total = total.saturating_add(loaded.bundle.diff.len());
            total > budget
        })
        .map_or(entries.len(), |over| over.max(1));
    entries.truncate(keep);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn lanes_of_one_review_take_turns_to_load_it() {
        let cache = BundleCache::default();
        let id = ReviewId::new();
        let first = cache.turn(&id);
        let second = cache.turn(&id);
        assert!(Arc::ptr_eq(&first, &second), "one turn per review");
        let held = first.lock().await;
        assert!(second.try_lock().is_err(), "the second lane waits");
        drop(held);
        let other = cache.turn(&ReviewId::new());
        assert!(!Arc::ptr_eq(&first, &other), "other reviews load apart");
        let loaded = Arc::new(LoadedReview::new(
            revu_domain::bundle::ReviewBundle::default().into(),
            Arc::default(),
        ));
        cache.put(id.clone(), loaded);
        assert!(cache.get(&id).is_some());
        assert!(
            !Arc::ptr_eq(&cache.turn(&id), &first),
            "the turn ends with the load"
        );
    }

    fn loaded(diff_bytes: usize) -> Arc<LoadedReview> {
        let bundle = revu_domain::bundle::ReviewBundle {
            diff: vec![b'+'; diff_bytes].into(),
            ..Default::default()
        };
        Arc::new(LoadedReview::new(bundle.into(), Arc::default()))
    }

    #[test]
    fn the_oldest_reviews_go_once_their_diffs_pass_the_budget() {
        let ids: Vec<ReviewId> = (0..4).map(|_| ReviewId::new()).collect();
        let mut entries = Entries::new();
        for (id, bytes) in ids.iter().zip([40, 30, 20, 10]) {
            entries.push_back((id.clone(), loaded(bytes)));
        }
        keep_within(&mut entries, 100);
        assert_eq!(entries.len(), 4, "100 bytes in all: within");
        keep_within(&mut entries, 90);
        let kept: Vec<&ReviewId> = entries.iter().map(|(id, _)| id).collect();
        assert_eq!(kept, ids[..3].iter().collect::<Vec<_>>(), "the oldest went");
        keep_within(&mut entries, 10);
        assert_eq!(entries.len(), 1, "the newest stays, over the budget");
        assert_eq!(entries[0].0, ids[0]);
    }
}
