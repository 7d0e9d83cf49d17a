//! Decoded review records, reused while their stored text is unchanged.
//!
//! Every lane report makes its coordinator read the review's record twice
//! and its worker once or more; a record lists the plan of every lane and
//! the facts of every changed file, so decoding it again each time was
//! most of a coordinator's work on a large review. The text is still read
//! from Redis each time (another coordinator may have changed it); only
//! when it is byte for byte the text last decoded is the decoded record
//! reused. A record's clone shares its plan, so a reuse copies little.

use revu_domain::lane::ReviewId;
use revu_domain::review::ReviewRecord;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

/// Most record text kept, in bytes; the oldest entries go first. A
/// record of 400 changed files is about 215 KB of text (one of one file,
/// 1.3 KB): this keeps the records of 19 such reviews in hand, besides
/// their decoded forms.
const BUDGET_BYTES: usize = 4 << 20;

#[derive(Debug, Default)]
pub(super) struct RecordCache {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    entries: HashMap<ReviewId, (Arc<str>, ReviewRecord)>,
    /// Ids in the order they were first kept, for eviction.
    order: VecDeque<ReviewId>,
    bytes: usize,
}

impl RecordCache {
    /// The record decoded from `raw` when the text kept for `id` is `raw`.
    pub(super) fn get(&self, id: &ReviewId, raw: &str) -> Option<ReviewRecord> {
        let (kept, record) = self.lock().entries.get(id).cloned()?;
        (*kept == *raw).then_some(record)
    }

    /// Keeps `record` as what `raw`, the text stored for `id`, decodes to.
    pub(super) fn put(&self, id: &ReviewId, raw: &str, record: &ReviewRecord) {
        if raw.len() > BUDGET_BYTES / 4 {
            return;
        }
        let mut inner = self.lock();
        let id = id.clone();
        match inner
            .entries
            .insert(id.clone(), (raw.into(), record.clone()))
        {
            Some((old, _)) => inner.bytes -= old.len(),
            None => inner.order.push_back(id),
        }
        inner.bytes += raw.len();
        while inner.bytes > BUDGET_BYTES {
            let Some(oldest) = inner.order.pop_front() else {
                break;
            };
            if let Some((text, _)) = inner.entries.remove(&oldest) {
                inner.bytes -= text.len();
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use revu_domain::review::{ReviewPhase, ReviewPlan};

    fn record(id: &str) -> ReviewRecord {
        ReviewRecord::running(ReviewId(id.into()), ReviewPlan::default(), 1, 2)
    }

    #[test]
    fn a_record_is_reused_only_for_the_same_text() {
        let cache = RecordCache::default();
        let r = record("a");
        cache.put(&r.id, "text-1", &r);
        assert_eq!(cache.get(&r.id, "text-1"), Some(r.clone()));
        assert_eq!(
            cache.get(&r.id, "text-2"),
            None,
            "changed text decodes anew"
        );
        assert_eq!(cache.get(&ReviewId("b".into()), "text-1"), None);
        let finished = r.in_phase(ReviewPhase::Finished);
        cache.put(&r.id, "text-2", &finished);
        assert_eq!(cache.get(&r.id, "text-2"), Some(finished));
        assert_eq!(cache.get(&r.id, "text-1"), None);
    }

    #[test]
    fn the_oldest_records_go_past_the_budget() {
        let cache = RecordCache::default();
        let text = "x".repeat(BUDGET_BYTES / 4);
        for i in 0..6 {
            let r = record(&i.to_string());
            cache.put(&r.id, &text, &r);
        }
        let inner = cache.lock();
        assert!(inner.bytes <= BUDGET_BYTES, "{} bytes kept", inner.bytes);
        assert_eq!(inner.entries.len(), 4);
        assert_eq!(inner.order.len(), 4);
        assert!(!inner.entries.contains_key(&ReviewId("0".into())));
        assert!(inner.entries.contains_key(&ReviewId("5".into())));
    }
}
