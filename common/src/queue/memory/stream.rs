//! One in-memory stream with a single consumer group.

use super::super::EntryId;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

#[derive(Debug)]
struct Pending {
    consumer: String,
    delivered_at: Instant,
}

#[derive(Debug, Default)]
pub(super) struct MemStream {
    next_seq: u64,
    /// Entries not yet acknowledged (undelivered or pending).
    entries: BTreeMap<u64, String>,
    /// Highest sequence delivered so far (the group's last-delivered id).
    cursor: u64,
    pending: BTreeMap<u64, Pending>,
}

fn entry_id(seq: u64) -> EntryId {
    format!("{seq}-0")
}

fn seq_of(entry: &str) -> Option<u64> {
    entry.split('-').next()?.parse().ok()
}

impl MemStream {
    pub(super) fn add(&mut self, payload: String) -> EntryId {
        self.next_seq += 1;
        self.entries.insert(self.next_seq, payload);
        entry_id(self.next_seq)
    }

    pub(super) fn read(&mut self, consumer: &str) -> Option<(EntryId, String)> {
        let (&seq, payload) = self.entries.range(self.cursor + 1..).next()?;
        let payload = payload.clone();
        self.cursor = seq;
        self.pending.insert(
            seq,
            Pending {
                consumer: consumer.to_owned(),
                delivered_at: Instant::now(),
            },
        );
        Some((entry_id(seq), payload))
    }

    pub(super) fn claim_idle(
        &mut self,
        consumer: &str,
        min_idle: Duration,
        max: usize,
    ) -> Vec<(EntryId, String)> {
        let now = Instant::now();
        let mut out = Vec::new();
        for (seq, p) in self.pending.iter_mut() {
            if out.len() >= max {
                break;
            }
            if now.duration_since(p.delivered_at) < min_idle {
                continue;
            }
            if let Some(payload) = self.entries.get(seq) {
                p.consumer = consumer.to_owned();
                p.delivered_at = now;
                out.push((entry_id(*seq), payload.clone()));
            }
        }
        out
    }

    pub(super) fn ack(&mut self, entry: &str) {
        if let Some(seq) = seq_of(entry) {
            self.pending.remove(&seq);
            self.entries.remove(&seq);
        }
    }

    pub(super) fn pending_len(&self) -> u64 {
        u64::try_from(self.pending.len()).unwrap_or(u64::MAX)
    }

    pub(super) fn undelivered_len(&self) -> u64 {
        u64::try_from(self.entries.range(self.cursor + 1..).count()).unwrap_or(u64::MAX)
    }
}
