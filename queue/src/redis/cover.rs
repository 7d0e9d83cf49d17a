//! Which shards a read on a Redis Cluster looks at and waits on.
//!
//! On a cluster one blocking read covers one shard (its streams share a
//! slot), so readers side by side in one process spread over the shards:
//! each waits on a shard that the fewest of the process's readers watch at
//! that moment. A shard someone watches needs no look from the others (its
//! watcher's blocking read returns as soon as an entry lands there, and
//! its watcher looks at it before each wait, which also moves its due
//! retries in); a shard nobody watches is looked at by every read, as all
//! shards were before. Eight readers (a coordinator's gatherers on a
//! cluster, a worker of `--concurrency` 8 or more) watch every shard, and
//! each of their reads then looks at one shard instead of eight.

use super::layout::SHARDS;
use std::sync::atomic::{AtomicU16, AtomicU32, Ordering};

/// The readers of one kind (jobs, or reports) watching each shard.
#[derive(Debug)]
pub(super) struct ShardCover {
    watchers: [AtomicU32; SHARDS as usize],
    /// Where the next choice starts, so that ties go round. Each process
    /// starts at a shard of its own: processes with fewer readers than
    /// shards would otherwise all watch the first shards and leave the
    /// last ones to the looks.
    next: AtomicU16,
}

impl Default for ShardCover {
    fn default() -> Self {
        ShardCover {
            watchers: std::array::from_fn(|_| AtomicU32::new(0)),
            next: AtomicU16::new(rand::random::<u16>() % SHARDS),
        }
    }
}

impl ShardCover {
    /// A shard among those the fewest readers watch, counted as watched
    /// until the returned guard drops (when the read that waits on it
    /// returns).
    pub(super) fn watch(&self) -> Watching<'_> {
        let start = self.next.fetch_add(1, Ordering::Relaxed) % SHARDS;
        let shard = (0..SHARDS)
            .map(|k| (start + k) % SHARDS)
            .min_by_key(|&s| self.count(s).load(Ordering::Relaxed))
            .unwrap_or(start);
        self.count(shard).fetch_add(1, Ordering::Relaxed);
        Watching { cover: self, shard }
    }

    /// Whether no reader watches `shard` now.
    pub(super) fn unwatched(&self, shard: u16) -> bool {
        self.count(shard).load(Ordering::Relaxed) == 0
    }

    fn count(&self, shard: u16) -> &AtomicU32 {
        &self.watchers[usize::from(shard) % self.watchers.len()]
    }
}

/// One reader's hold on the shard it watches.
#[derive(Debug)]
pub(super) struct Watching<'a> {
    cover: &'a ShardCover,
    pub(super) shard: u16,
}

impl Watching<'_> {
    /// The shards this read looks at before it waits, in `order`: its own
    /// and those nobody watches.
    pub(super) fn to_look_at(&self, order: &[u16]) -> Vec<u16> {
        order
            .iter()
            .copied()
            .filter(|&s| s == self.shard || self.cover.unwatched(s))
            .collect()
    }
}

impl Drop for Watching<'_> {
    fn drop(&mut self) {
        self.cover.count(self.shard).fetch_sub(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn all() -> Vec<u16> {
        (0..SHARDS).collect()
    }

    fn shards(held: &[Watching<'_>]) -> BTreeSet<u16> {
        held.iter().map(|w| w.shard).collect()
    }

    #[test]
    fn readers_side_by_side_watch_every_shard_before_any_twice() {
        let cover = ShardCover::default();
        let first: Vec<Watching<'_>> = (0..SHARDS).map(|_| cover.watch()).collect();
        assert_eq!(shards(&first).len(), usize::from(SHARDS));
        let second: Vec<Watching<'_>> = (0..SHARDS).map(|_| cover.watch()).collect();
        assert_eq!(shards(&second).len(), usize::from(SHARDS));
    }

    #[test]
    fn a_shard_its_reader_left_is_the_next_one_watched() {
        let cover = ShardCover::default();
        let mut held: Vec<Watching<'_>> = (0..SHARDS).map(|_| cover.watch()).collect();
        // Readers come back with work in any order: the shard the one that
        // returned watched is then unwatched, and is taken next.
        for left in [3, 0, 5] {
            let gone = held.remove(left);
            let shard = gone.shard;
            drop(gone);
            assert!(cover.unwatched(shard));
            let next = cover.watch();
            assert_eq!(next.shard, shard);
            held.push(next);
        }
        assert_eq!(shards(&held).len(), usize::from(SHARDS));
    }

    #[test]
    fn a_read_looks_at_its_own_shard_and_at_every_unwatched_one() {
        let cover = ShardCover::default();
        // A lone reader watches one shard: it looks at all of them.
        let lone = cover.watch();
        assert_eq!(lone.to_look_at(&all()), all());
        // With every shard watched, a read looks at its own alone.
        let rest: Vec<Watching<'_>> = (1..SHARDS).map(|_| cover.watch()).collect();
        let last = rest.last().map(|w| w.shard);
        let extra = cover.watch();
        assert_eq!(extra.to_look_at(&all()), vec![extra.shard]);
        // One that leaves makes its shard looked at again, in `order`.
        drop(rest);
        let looked = extra.to_look_at(&all());
        assert_eq!(
            looked.len(),
            usize::from(SHARDS) - 1 + usize::from(lone.shard == extra.shard)
        );
        assert!(last.is_some_and(|s| looked.contains(&s)));
        assert!(looked.contains(&extra.shard));
    }

    #[test]
    fn processes_start_their_readers_at_shards_of_their_own() {
        // Sixteen processes of one reader each: at one shard for all of
        // them, the chance is 8^-15.
        let first: BTreeSet<u16> = (0..16)
            .map(|_| ShardCover::default().watch().shard)
            .collect();
        assert!(first.len() > 1, "{first:?}");
    }

    #[test]
    fn a_lone_reader_goes_round_the_shards() {
        let cover = ShardCover::default();
        let seen: BTreeSet<u16> = (0..SHARDS).map(|_| cover.watch().shard).collect();
        assert_eq!(seen.len(), usize::from(SHARDS));
    }
}
