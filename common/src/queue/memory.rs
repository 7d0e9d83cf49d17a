//! The in-memory backend of the embedded mode: the same consumer-group
//! semantics as Redis Streams (pending entries, acknowledgement, reclaim
//! after idle), without a server.

mod stream;

use super::{
    CreateOutcome, Delivery, EntryId, JobQueue, QueueDepth, QueueError, QuotaCharge, ReviewStore,
    StreamDepth, decode, encode, job_entry, split_job_entry,
};
use crate::bundle::ReviewBundle;
use crate::lane::{LaneJob, LaneReport, ReviewId};
use crate::review::{
    LaneAttempts, LaneResult, LaneResults, ProgressEvent, ReviewRecord, ReviewState, now_ms,
};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use stream::MemStream;
use tokio::sync::Notify;

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
            self.jobs.add(raw);
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
    /// Cached lane report bodies, with when they expire.
    lane_cache: HashMap<String, (String, Instant)>,
    stats: BTreeMap<String, u64>,
    events: HashMap<ReviewId, Vec<ProgressEvent>>,
    tokens_spent: HashMap<ReviewId, i64>,
}

/// The embedded backend. Cloning shares the same state.
#[derive(Debug, Clone, Default)]
pub struct MemoryBackend {
    state: Arc<Mutex<State>>,
    jobs_ready: Arc<Notify>,
    results_ready: Arc<Notify>,
    events_ready: Arc<Notify>,
}

impl MemoryBackend {
    pub fn new() -> Self {
        Self::default()
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

    /// Appends `raw`, a job of `engine`, to that engine's stream.
    fn add_job(&mut self, engine: &str, raw: String) -> EntryId {
        let id = self
            .jobs
            .entry(engine.to_owned())
            .or_default()
            .jobs
            .add(raw);
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

    /// One undelivered job from each of `engines`' streams.
    fn read_jobs(&mut self, consumer: &str, engines: &[String]) -> Option<Vec<(EntryId, String)>> {
        let mut got = Vec::new();
        let now = now_ms();
        for engine in engines {
            let stream = self.jobs.entry(engine.clone()).or_default();
            stream.readers.insert(consumer.to_owned());
            stream.promote_due(now);
            if let Some((id, raw)) = stream.jobs.read(consumer) {
                got.push((job_entry(engine, &id), raw));
            }
        }
        (!got.is_empty()).then_some(got)
    }
}

impl JobQueue for MemoryBackend {
    async fn publish_job(&self, job: &LaneJob) -> Result<EntryId, QueueError> {
        let raw = encode("lane job", job)?;
        let id = self.lock().add_job(&job.lane.engine, raw);
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
                .map(|due| Duration::from_millis(due.saturating_sub(now_ms()).max(1)));
            let step = until_due.map_or(left, |d| d.min(left));
            let got = self
                .wait_for(&self.jobs_ready, step, |s| s.read_jobs(consumer, engines))
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
                    .claim_idle(consumer, min_idle, left)
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
        let mut s = self.lock();
        let (stream, id) = s.job_stream(entry)?;
        Ok(stream.touch(consumer, &id))
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
        {
            let mut s = self.lock();
            let (stream, id) = s.job_stream(entry)?;
            stream.ack(&id);
            s.results.add(raw);
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
            .wait_for(&self.results_ready, wait, |s| s.results.read(consumer))
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
        Ok(deliveries(
            self.lock().results.claim_idle(consumer, min_idle, max),
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
                oldest_age_ms: e.jobs.oldest_age_ms(),
            });
        }
        Ok(depth)
    }
}

impl ReviewStore for MemoryBackend {
    async fn create_review(
        &self,
        record: &ReviewRecord,
        bundle: &Arc<ReviewBundle>,
        idempotency_key: Option<&str>,
        jobs: &[LaneJob],
    ) -> Result<CreateOutcome, QueueError> {
        let encoded = jobs
            .iter()
            .map(|j| Ok((j, encode("lane job", j)?)))
            .collect::<Result<Vec<_>, QueueError>>()?;
        let mut s = self.lock();
        if let Some(key) = idempotency_key {
            let scoped = (record.id.tenant().map(str::to_owned), key.to_owned());
            if let Some(existing) = s.idempotency.get(&scoped) {
                return Ok(CreateOutcome::Existing(existing.clone()));
            }
            s.idempotency.insert(scoped, record.id.clone());
        }
        s.records.insert(record.id.clone(), record.clone());
        s.bundles.insert(record.id.clone(), Arc::clone(bundle));
        s.active.insert(record.id.clone());
        for (job, raw) in encoded {
            s.attempts.entry(record.id.clone()).or_default().insert(
                job.lane.id.clone(),
                LaneAttempts {
                    awaited: 1,
                    gate_rejected: None,
                },
            );
            s.add_job(&job.lane.engine, raw);
        }
        drop(s);
        self.jobs_ready.notify_waiters();
        Ok(CreateOutcome::Created)
    }

    async fn idempotent_review(
        &self,
        tenant: Option<&str>,
        key: &str,
    ) -> Result<Option<ReviewId>, QueueError> {
        let scoped = (tenant.map(str::to_owned), key.to_owned());
        Ok(self.lock().idempotency.get(&scoped).cloned())
    }

    async fn charge_quota(
        &self,
        tenant: &str,
        name: &str,
        window_ms: u64,
        now_ms: u64,
        amount: u64,
        limit: u64,
    ) -> Result<QuotaCharge, QueueError> {
        let window = now_ms / window_ms.max(1);
        let mut s = self.lock();
        let entry = s
            .quotas
            .entry((tenant.to_owned(), name.to_owned()))
            .or_insert((window, 0));
        if entry.0 != window {
            *entry = (window, 0);
        }
        if entry.1.saturating_add(amount) > limit {
            return Ok(QuotaCharge::Refused { used: entry.1 });
        }
        entry.1 += amount;
        Ok(QuotaCharge::Charged { used: entry.1 })
    }

    async fn cached_lane(&self, key: &str) -> Result<Option<String>, QueueError> {
        let mut s = self.lock();
        let now = Instant::now();
        s.lane_cache.retain(|_, (_, until)| *until > now);
        Ok(s.lane_cache.get(key).map(|(body, _)| body.clone()))
    }

    async fn cache_lane(&self, key: &str, body: &str, ttl: Duration) -> Result<(), QueueError> {
        let until = Instant::now() + ttl;
        self.lock()
            .lane_cache
            .insert(key.to_owned(), (body.to_owned(), until));
        Ok(())
    }

    async fn load_record(&self, id: &ReviewId) -> Result<Option<ReviewRecord>, QueueError> {
        Ok(self.lock().records.get(id).cloned())
    }

    async fn save_record(&self, record: &ReviewRecord) -> Result<(), QueueError> {
        let mut s = self.lock();
        if record.state.is_terminal() {
            s.active.remove(&record.id);
        }
        s.records.insert(record.id.clone(), record.clone());
        Ok(())
    }

    async fn load_bundle(
        &self,
        id: &ReviewId,
    ) -> Result<Option<std::sync::Arc<ReviewBundle>>, QueueError> {
        Ok(self.lock().bundles.get(id).cloned())
    }

    async fn settle_lane(
        &self,
        id: &ReviewId,
        result: &Arc<LaneResult>,
        event: &ProgressEvent,
    ) -> Result<bool, QueueError> {
        let mut s = self.lock();
        if !s.records.contains_key(id) {
            return Ok(false);
        }
        let lanes = s.lanes.entry(id.clone()).or_default();
        if lanes.contains_key(&result.lane_id) {
            return Ok(false);
        }
        lanes.insert(result.lane_id.clone(), Arc::clone(result));
        s.events.entry(id.clone()).or_default().push(event.clone());
        drop(s);
        self.events_ready.notify_waiters();
        Ok(true)
    }

    async fn lane_results(&self, id: &ReviewId) -> Result<LaneResults, QueueError> {
        Ok(self.lock().lanes.get(id).cloned().unwrap_or_default())
    }

    async fn settled_count(&self, id: &ReviewId) -> Result<usize, QueueError> {
        Ok(self.lock().lanes.get(id).map_or(0, |lanes| lanes.len()))
    }

    async fn lane_settled(&self, id: &ReviewId, lane_id: &str) -> Result<bool, QueueError> {
        Ok(self
            .lock()
            .lanes
            .get(id)
            .is_some_and(|lanes| lanes.contains_key(lane_id)))
    }

    async fn advance_and_dispatch(
        &self,
        job: &LaneJob,
        from: u32,
        gate_rejection: bool,
    ) -> Result<bool, QueueError> {
        let raw = encode("lane job", job)?;
        let mut s = self.lock();
        let lanes = s.attempts.entry(job.review_id.clone()).or_default();
        let Some(lane) = lanes.get_mut(&job.lane.id).filter(|l| l.awaited == from) else {
            return Ok(false);
        };
        if gate_rejection {
            if lane.gate_rejected.is_some() {
                return Ok(false);
            }
            lane.gate_rejected = Some(from);
        }
        lane.awaited = job.attempt;
        if job.not_before_ms > now_ms() {
            s.delay_job(&job.lane.engine, raw, job.not_before_ms);
        } else {
            s.add_job(&job.lane.engine, raw);
        }
        drop(s);
        self.jobs_ready.notify_waiters();
        Ok(true)
    }

    async fn add_lane(&self, record: &ReviewRecord, job: &LaneJob) -> Result<bool, QueueError> {
        let raw = encode("lane job", job)?;
        let mut s = self.lock();
        if !s.active.contains(&record.id) {
            return Ok(false);
        }
        let attempts = s.attempts.entry(record.id.clone()).or_default();
        if attempts.contains_key(&job.lane.id) {
            return Ok(false);
        }
        attempts.insert(
            job.lane.id.clone(),
            LaneAttempts {
                awaited: job.attempt,
                gate_rejected: None,
            },
        );
        s.records.insert(record.id.clone(), record.clone());
        s.add_job(&job.lane.engine, raw);
        drop(s);
        self.jobs_ready.notify_waiters();
        Ok(true)
    }

    async fn charge_tokens(&self, id: &ReviewId, tokens: i64) -> Result<u64, QueueError> {
        let mut s = self.lock();
        let spent = s.tokens_spent.entry(id.clone()).or_default();
        *spent = spent.saturating_add(tokens);
        Ok(u64::try_from(*spent).unwrap_or(0))
    }

    async fn lane_attempts(
        &self,
        id: &ReviewId,
    ) -> Result<BTreeMap<String, LaneAttempts>, QueueError> {
        Ok(self.lock().attempts.get(id).cloned().unwrap_or_default())
    }

    async fn finish_review(
        &self,
        record: &ReviewRecord,
        report_json: String,
        events: &[ProgressEvent],
    ) -> Result<(), QueueError> {
        {
            let mut s = self.lock();
            s.reports.insert(record.id.clone(), Arc::new(report_json));
            let mut done = record.clone();
            done.state = ReviewState::Finished;
            s.active.remove(&record.id);
            s.records.insert(record.id.clone(), done);
            s.add_events(&record.id, events);
        }
        self.events_ready.notify_waiters();
        Ok(())
    }

    async fn load_report(&self, id: &ReviewId) -> Result<Option<String>, QueueError> {
        Ok(self.report(id).map(|json| json.to_string()))
    }

    async fn bump_stat(&self, name: &str, by: u64) -> Result<(), QueueError> {
        *self.lock().stats.entry(name.to_owned()).or_default() += by;
        Ok(())
    }

    async fn stats(&self) -> Result<BTreeMap<String, u64>, QueueError> {
        Ok(self.lock().stats.clone())
    }

    async fn active_count(&self) -> Result<usize, QueueError> {
        Ok(self.lock().active.len())
    }

    async fn active_reviews(&self) -> Result<Vec<ReviewId>, QueueError> {
        Ok(self.lock().active.iter().cloned().collect())
    }

    async fn push_event(&self, id: &ReviewId, event: &ProgressEvent) -> Result<(), QueueError> {
        self.push_events(id, std::slice::from_ref(event)).await
    }

    async fn push_events(&self, id: &ReviewId, events: &[ProgressEvent]) -> Result<(), QueueError> {
        self.lock().add_events(id, events);
        self.events_ready.notify_waiters();
        Ok(())
    }

    fn read_events(
        &self,
        id: &ReviewId,
        after: &str,
        wait: Duration,
    ) -> impl Future<Output = Result<Vec<(String, ProgressEvent)>, QueueError>> + Send {
        // Event ids are 1-based positions; "0" reads from the start.
        let from = after.parse::<usize>().unwrap_or(0);
        let id = id.clone();
        async move {
            let got = self
                .wait_for(&self.events_ready, wait, |s| {
                    let events = s.events.get(&id)?;
                    (events.len() > from).then(|| {
                        events
                            .iter()
                            .enumerate()
                            .skip(from)
                            .map(|(i, e)| ((i + 1).to_string(), e.clone()))
                            .collect::<Vec<_>>()
                    })
                })
                .await;
            Ok(got.unwrap_or_default())
        }
    }
}
