//! The in-memory backend of the embedded mode: the same consumer-group
//! semantics as Redis Streams (pending entries, acknowledgement, reclaim
//! after idle), without a server.
//!
//! Every time it stamps or compares (an entry's idle time, a retry's due
//! time, a cached report's expiry) is read from its [`Clock`], and every
//! wait is on tokio's timers: on a [`Clock`] that follows tokio's paused
//! time, a test's leases and delays pass as soon as it sleeps through them.

mod store;
mod stream;

use super::{
    Delivery, EntryId, JobQueue, QueueDepth, QueueError, StreamDepth, decode, encode, job_entry,
    split_job_entry,
};
use revu_domain::bundle::ReviewBundle;
use revu_domain::clock::{Clock, SharedClock};
use revu_domain::lane::{LaneJob, LaneReport, ReviewId};
use revu_domain::review::{LaneAttempts, LaneResults, ProgressEvent, ReviewRecord};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use stream::MemStream;
use tokio::sync::Notify;
use tokio::time::Instant;

/// The job stream of one engine, and who reads it.
#[derive(Debug, Default)]
struct EngineStream {
    jobs: MemStream,
    readers: BTreeSet<String>,
    /// Retries waiting out their delay, by the time (ms) they are due and
    /// the order they came in.
    delayed: BTreeMap<(u64, u64), String>,
    delayed_seq: u64,
}

impl EngineStream {
    /// Moves the retries due by `now` (ms) onto the stream.
    fn promote_due(&mut self, now: u64) {
        while let Some(entry) = self.delayed.first_entry() {
            if entry.key().0 > now {
                break;
            }
            let raw = entry.remove();
            self.jobs.add(raw, now);
        }
    }

    /// When the earliest retry still waiting is due (ms).
    fn next_due(&self) -> Option<u64> {
        self.delayed.keys().next().map(|(due, _)| *due)
    }
}

#[derive(Debug, Default)]
struct State {
    /// By engine.
    jobs: BTreeMap<String, EngineStream>,
    results: MemStream,
    dead: Vec<(String, String)>,
    records: HashMap<ReviewId, ReviewRecord>,
    bundles: HashMap<ReviewId, std::sync::Arc<ReviewBundle>>,
    lanes: HashMap<ReviewId, LaneResults>,
    attempts: HashMap<ReviewId, BTreeMap<String, LaneAttempts>>,
    reports: HashMap<ReviewId, Arc<String>>,
    active: BTreeSet<ReviewId>,
    /// By tenant and key.
    idempotency: HashMap<(Option<String>, String), ReviewId>,
    /// By tenant and quota name: the window and what it used.
    quotas: HashMap<(String, String), (u64, u64)>,
    /// Cached lane report bodies, with when they expire (ms).
    lane_cache: HashMap<String, (String, u64)>,
    stats: BTreeMap<String, u64>,
    events: HashMap<ReviewId, Vec<ProgressEvent>>,
    tokens_spent: HashMap<ReviewId, i64>,
}

/// The embedded backend. Cloning shares the same state.
#[derive(Debug, Clone)]
pub struct MemoryBackend {
    state: Arc<Mutex<State>>,
    jobs_ready: Arc<Notify>,
    results_ready: Arc<Notify>,
    events_ready: Arc<Notify>,
    clock: SharedClock,
}

impl Default for MemoryBackend {
    fn default() -> Self {
        Self::with_clock(revu_domain::clock::SystemClock)
    }
}

impl MemoryBackend {
    /// A backend on the system's clock.
    pub fn new() -> Self {
        Self::default()
    }

    /// A backend that reads the time from `clock`.
    pub fn with_clock(clock: impl Clock + 'static) -> Self {
        MemoryBackend {
            state: Arc::default(),
            jobs_ready: Arc::default(),
            results_ready: Arc::default(),
            events_ready: Arc::default(),
            clock: Arc::new(clock),
        }
    }

    /// The clock this backend reads.
    pub fn clock(&self) -> &SharedClock {
        &self.clock
    }

    fn now_ms(&self) -> u64 {
        self.clock.now_ms()
    }

    /// The stored report of `id`, shared rather than copied (a large
    /// review's report is megabytes of JSON).
    pub fn report(&self, id: &ReviewId) -> Option<Arc<String>> {
        self.lock().reports.get(id).cloned()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock leaves plain data behind; keep going.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs `take` until it yields or `wait` passes, sleeping on `notify`.
    async fn wait_for<T>(
        &self,
        notify: &Notify,
        wait: Duration,
        mut take: impl FnMut(&mut State) -> Option<T>,
    ) -> Option<T> {
        let deadline = Instant::now() + wait;
        loop {
            let notified = notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if let Some(v) = take(&mut self.lock()) {
                return Some(v);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || tokio::time::timeout(left, notified).await.is_err() {
                return None;
            }
        }
    }
}

fn deliveries<T: serde::de::DeserializeOwned>(raw: Vec<(EntryId, String)>) -> Vec<Delivery<T>> {
    raw.into_iter()
        .map(|(entry, payload)| Delivery {
            bytes: payload.len(),
            payload: decode(&payload),
            entry,
        })
        .collect()
}

impl State {
    /// Appends `events` to review `id`'s events if the store holds the
    /// review (waiters are woken by the caller, once the lock is released).
    fn add_events(&mut self, id: &ReviewId, events: &[ProgressEvent]) {
        if !self.records.contains_key(id) {
            return;
        }
        self.events
            .entry(id.clone())
            .or_default()
            .extend_from_slice(events);
    }

    /// Appends `raw`, a job of `engine`, to that engine's stream at `now`.
    fn add_job(&mut self, engine: &str, raw: String, now: u64) -> EntryId {
        let id = self
            .jobs
            .entry(engine.to_owned())
            .or_default()
            .jobs
            .add(raw, now);
        job_entry(engine, &id)
    }

    /// Holds `raw`, a retry of `engine` not due until `due` (ms), back
    /// from the stream until then.
    fn delay_job(&mut self, engine: &str, raw: String, due: u64) {
        let stream = self.jobs.entry(engine.to_owned()).or_default();
        stream.delayed_seq += 1;
        let seq = stream.delayed_seq;
        stream.delayed.insert((due, seq), raw);
    }

    /// When the earliest retry of `engines` still waiting is due (ms).
    fn next_due(&self, engines: &[String]) -> Option<u64> {
        engines
            .iter()
            .filter_map(|e| self.jobs.get(e)?.next_due())
            .min()
    }

    /// The stream a job handle points at, and the entry's id on it.
    fn job_stream(&mut self, entry: &str) -> Result<(&mut MemStream, String), QueueError> {
        let (engine, id) = split_job_entry(entry)?;
        let id = id.to_owned();
        let stream = &mut self.jobs.entry(engine.to_owned()).or_default().jobs;
        Ok((stream, id))
    }

    /// One undelivered job from each of `engines`' streams, at `now`.
    fn read_jobs(
        &mut self,
        consumer: &str,
        engines: &[String],
        now: u64,
    ) -> Option<Vec<(EntryId, String)>> {
        let mut got = Vec::new();
        for engine in engines {
            let stream = self.jobs.entry(engine.clone()).or_default();
            stream.readers.insert(consumer.to_owned());
            stream.promote_due(now);
            if let Some((id, raw)) = stream.jobs.read(consumer, now) {
                got.push((job_entry(engine, &id), raw));
            }
        }
        (!got.is_empty()).then_some(got)
    }
}

impl JobQueue for MemoryBackend {
    async fn publish_job(&self, job: &LaneJob) -> Result<EntryId, QueueError> {
        let raw = encode("lane job", job)?;
        let now = self.now_ms();
        let id = self.lock().add_job(&job.lane.engine, raw, now);
        self.jobs_ready.notify_waiters();
        Ok(id)
    }

    async fn take_jobs(
        &self,
        consumer: &str,
        engines: &[String],
        wait: Duration,
    ) -> Result<Vec<Delivery<LaneJob>>, QueueError> {
        let deadline = Instant::now() + wait;
        loop {
            // Wake when a retry falls due as well as when a job comes in.
            let left = deadline.saturating_duration_since(Instant::now());
            let until_due = self
                .lock()
                .next_due(engines)
                .map(|due| Duration::from_millis(due.saturating_sub(self.now_ms()).max(1)));
            let step = until_due.map_or(left, |d| d.min(left));
            let got = self
                .wait_for(&self.jobs_ready, step, |s| {
                    s.read_jobs(consumer, engines, self.now_ms())
                })
                .await;
            if got.is_some() || Instant::now() >= deadline {
                return Ok(deliveries(got.unwrap_or_default()));
            }
        }
    }

    async fn reclaim_jobs(
        &self,
        consumer: &str,
        engines: &[String],
        min_idle: Duration,
        max: usize,
    ) -> Result<Vec<Delivery<LaneJob>>, QueueError> {
        let now = self.now_ms();
        let mut s = self.lock();
        let mut claimed = Vec::new();
        for engine in engines {
            let left = max.saturating_sub(claimed.len());
            if left == 0 {
                break;
            }
            let stream = &mut s.jobs.entry(engine.clone()).or_default().jobs;
            claimed.extend(
                stream
                    .claim_idle(consumer, min_idle, left, now)
                    .into_iter()
                    .map(|(id, raw)| (job_entry(engine, &id), raw)),
            );
        }
        Ok(deliveries(claimed))
    }

    async fn workers_for(&self, engine: &str) -> Result<usize, QueueError> {
        Ok(self.lock().jobs.get(engine).map_or(0, |s| s.readers.len()))
    }

    async fn extend_lease(&self, consumer: &str, entry: &str) -> Result<bool, QueueError> {
        let now = self.now_ms();
        let mut s = self.lock();
        let (stream, id) = s.job_stream(entry)?;
        Ok(stream.touch(consumer, &id, now))
    }

    async fn release_job(&self, consumer: &str, entry: &str) -> Result<(), QueueError> {
        let mut s = self.lock();
        let (stream, id) = s.job_stream(entry)?;
        stream.release(consumer, &id);
        Ok(())
    }

    async fn prune_consumers(&self, _min_idle: Duration) -> Result<usize, QueueError> {
        // Consumers exist only as names on pending entries here.
        Ok(0)
    }

    async fn trim_acknowledged(&self) -> Result<u64, QueueError> {
        // Acknowledged entries are dropped at once in memory.
        Ok(0)
    }

    async fn complete_job(&self, entry: &str, report: &LaneReport) -> Result<(), QueueError> {
        let raw = encode("lane report", report)?;
        let now = self.now_ms();
        {
            let mut s = self.lock();
            let (stream, id) = s.job_stream(entry)?;
            stream.ack(&id);
            s.results.add(raw, now);
        }
        self.results_ready.notify_waiters();
        Ok(())
    }

    async fn dead_letter_job(
        &self,
        entry: Option<&str>,
        raw: &str,
        reason: &str,
    ) -> Result<(), QueueError> {
        let mut s = self.lock();
        if let Some(entry) = entry {
            let (stream, id) = s.job_stream(entry)?;
            stream.ack(&id);
        }
        s.dead.push((raw.to_owned(), reason.to_owned()));
        Ok(())
    }

    async fn take_results(
        &self,
        consumer: &str,
        wait: Duration,
    ) -> Result<Vec<Delivery<LaneReport>>, QueueError> {
        let got = self
            .wait_for(&self.results_ready, wait, |s| {
                s.results.read(consumer, self.now_ms())
            })
            .await;
        Ok(got
            .map(|(entry, raw)| Delivery {
                bytes: raw.len(),
                payload: decode(&raw),
                entry,
            })
            .into_iter()
            .collect())
    }

    async fn reclaim_results(
        &self,
        consumer: &str,
        min_idle: Duration,
        max: usize,
    ) -> Result<Vec<Delivery<LaneReport>>, QueueError> {
        let now = self.now_ms();
        Ok(deliveries(
            self.lock().results.claim_idle(consumer, min_idle, max, now),
        ))
    }

    async fn ack_result(&self, entry: &str) -> Result<(), QueueError> {
        self.lock().results.ack(entry);
        Ok(())
    }

    async fn ping(&self) -> Result<(), QueueError> {
        Ok(())
    }

    async fn job_backlog(&self) -> Result<QueueDepth, QueueError> {
        let now = self.now_ms();
        let s = self.lock();
        let mut depth = QueueDepth {
            dead: u64::try_from(s.dead.len()).unwrap_or(u64::MAX),
            ..QueueDepth::default()
        };
        for (engine, e) in &s.jobs {
            depth.add(StreamDepth {
                engine: engine.clone(),
                shard: 0,
                pending: e.jobs.pending_len(),
                undelivered: e.jobs.undelivered_len(),
                delayed: u64::try_from(e.delayed.len()).unwrap_or(u64::MAX),
                oldest_age_ms: e.jobs.oldest_age_ms(now),
            });
        }
        Ok(depth)
    }
}
