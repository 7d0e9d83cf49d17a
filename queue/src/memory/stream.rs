//! One in-memory stream with a single consumer group.
//!
//! Times are the backend's clock's milliseconds, handed in by the caller
//! (`now`): the stream never reads a clock of its own.

use super::super::EntryId;
use std::collections::BTreeMap;
use std::time::Duration;

#[derive(Debug)]
struct Pending {
    consumer: String,
    /// When it was last delivered or its lease extended (ms); `None` once
    /// released: idle enough for any reclaim.
    delivered_at: Option<u64>,
}

#[derive(Debug, Default)]
pub(super) struct MemStream {
    next_seq: u64,
    /// Entries not yet acknowledged (undelivered or pending).
    entries: BTreeMap<u64, String>,
    /// Highest sequence delivered so far (the group's last-delivered id).
    cursor: u64,
    pending: BTreeMap<u64, Pending>,
    /// When each entry not yet acknowledged was added (ms).
    added: BTreeMap<u64, u64>,
}

fn entry_id(seq: u64) -> EntryId {
    format!("{seq}-0")
}

fn seq_of(entry: &str) -> Option<u64> {
    entry.split('-').next()?.parse().ok()
}

impl MemStream {
    pub(super) fn add(&mut self, payload: String, now: u64) -> EntryId {
        self.next_seq += 1;
        self.entries.insert(self.next_seq, payload);
        self.added.insert(self.next_seq, now);
        entry_id(self.next_seq)
    }

    pub(super) fn read(&mut self, consumer: &str, now: u64) -> Option<(EntryId, String)> {
        let (&seq, payload) = self.entries.range(self.cursor + 1..).next()?;
        let payload = payload.clone();
        self.cursor = seq;
        self.pending.insert(
            seq,
            Pending {
                consumer: consumer.to_owned(),
                delivered_at: Some(now),
            },
        );
        Some((entry_id(seq), payload))
    }

    pub(super) fn claim_idle(
        &mut self,
        consumer: &str,
        min_idle: Duration,
        max: usize,
        now: u64,
    ) -> Vec<(EntryId, String)> {
        let min_idle = u64::try_from(min_idle.as_millis()).unwrap_or(u64::MAX);
        let mut out = Vec::new();
        for (seq, p) in self.pending.iter_mut() {
            if out.len() >= max {
                break;
            }
            if p.delivered_at
                .is_some_and(|t| now.saturating_sub(t) < min_idle)
            {
                continue;
            }
            if let Some(payload) = self.entries.get(seq) {
                p.consumer = consumer.to_owned();
                p.delivered_at = Some(now);
                out.push((entry_id(*seq), payload.clone()));
            }
        }
        out
    }

    /// Resets the idle time of an entry `consumer` holds.
    pub(super) fn touch(&mut self, consumer: &str, entry: &str, now: u64) -> bool {
        let held = seq_of(entry).and_then(|seq| self.pending.get_mut(&seq));
        match held {
            Some(p) if p.consumer == consumer => {
                p.delivered_at = Some(now);
                true
            }
            _ => false,
        }
    }

    /// Makes an entry `consumer` holds reclaimable at once.
    pub(super) fn release(&mut self, consumer: &str, entry: &str) {
        if let Some(p) = seq_of(entry)
            .and_then(|seq| self.pending.get_mut(&seq))
            .filter(|p| p.consumer == consumer)
        {
            p.delivered_at = None;
        }
    }

    pub(super) fn ack(&mut self, entry: &str) {
        if let Some(seq) = seq_of(entry) {
            self.pending.remove(&seq);
            self.entries.remove(&seq);
            self.added.remove(&seq);
        }
    }

    /// How long the oldest entry not yet acknowledged has waited.
    pub(super) fn oldest_age_ms(&self, now: u64) -> u64 {
        self.added
            .values()
            .next()
            .map_or(0, |at| now.saturating_sub(*at))
    }

    pub(super) fn pending_len(&self) -> u64 {
        u64::try_from(self.pending.len()).unwrap_or(u64::MAX)
    }

    pub(super) fn undelivered_len(&self) -> u64 {
        u64::try_from(self.entries.range(self.cursor + 1..).count()).unwrap_or(u64::MAX)
    }
}
