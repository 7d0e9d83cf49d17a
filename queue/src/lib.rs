//! The queue contract between coordinator and workers, and the review store.
//!
//! Two implementations honour it: [`redis::RedisBackend`] (Redis Streams with
//! consumer groups, the distributed mode) and [`memory::MemoryBackend`] (the
//! embedded one-process mode). The same conformance tests run against both.
//!
//! Delivery is at-least-once: a job stays pending for its consumer until
//! [`JobQueue::complete_job`] writes its report and acknowledges it in one
//! atomic step, so a crash between the two can neither lose the report nor
//! drop the job.
//!
//! Beside them, the Redis backend keeps the code index's cache entries a
//! fleet shares ([`index_cache`]).

mod error;
pub mod index_cache;
pub mod memory;
pub mod redis;
mod store;

pub use error::{Corruption, LostWrite, SettingsError};
pub use store::{CreateOutcome, MoveOutcome, PhaseMove, QuotaCharge, ReviewStore};

use revu_domain::lane::{LaneJob, LaneReport};
use std::future::Future;
use std::time::Duration;

/// Where a delivered entry sits, as the backend hands it out: for a lane
/// report, its stream entry id (`1700000000000-0`); for a job, an opaque
/// handle naming its engine's stream too (`job_entry`). Callers only
/// hand it back.
pub type EntryId = String;

/// The handle of job `id` on the stream of `engine`. Engine names are
/// `[a-z0-9_-]`, so the `/` cannot be part of one.
pub(crate) fn job_entry(engine: &str, id: &str) -> EntryId {
    format!("{engine}/{id}")
}

/// The engine and the stream entry id of a job handle.
pub(crate) fn split_job_entry(entry: &str) -> Result<(&str, &str), QueueError> {
    entry
        .split_once('/')
        .ok_or_else(|| QueueError::BadEntry(entry.to_owned()))
}

/// One entry handed to a consumer. `payload` is [`Poison`] when the entry
/// could not be decoded: the consumer must dead-letter it, never retry it.
#[derive(Debug, Clone)]
pub struct Delivery<T> {
    pub entry: EntryId,
    pub payload: Result<T, Poison>,
    /// Bytes of the encoded payload as it sat on the queue (0 when it had
    /// none), for limits on what a peer may send.
    pub bytes: usize,
}

/// An entry that does not decode, kept whole for the dead-letter stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Poison {
    pub raw: String,
    pub error: String,
}

impl std::fmt::Display for Poison {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.error)
    }
}

/// Errors of the backend itself (never of the payloads it carries).
#[derive(Debug, thiserror::Error)]
pub enum QueueError {
    #[error("redis: {0}")]
    Redis(#[from] ::redis::RedisError),
    #[error("encode {what}: {source}")]
    Encode {
        what: &'static str,
        source: serde_json::Error,
    },
    #[error("decode {what}: {source}")]
    Decode {
        what: &'static str,
        source: serde_json::Error,
    },
    #[error("backend closed")]
    Closed,
    /// A handle, as given, that this queue did not hand out.
    #[error("{0:?} is not a job entry handed out by this queue")]
    BadEntry(EntryId),
    /// Stored state that contradicts itself (a bundle naming a head file
    /// that is not stored).
    #[error("stored state is inconsistent: {0}")]
    Corrupt(#[from] Corruption),
    /// A write that did not arrive whole (a failover dropped what was not
    /// yet replicated); the same call again may succeed.
    #[error("write lost: {0}")]
    Lost(#[from] LostWrite),
    /// A phase move the phase table does not allow
    /// ([`revu_domain::review::ReviewPhase::allows`]).
    #[error("a review does not move from {from} to {to}")]
    PhaseMove {
        from: revu_domain::review::ReviewPhase,
        to: revu_domain::review::ReviewPhase,
    },
    /// A review created under an idempotency key whose id was not made
    /// for that key (both must live on one shard).
    #[error(
        "review {0} is not in the shard of its idempotency key; \
         make its id with RedisBackend::review_id_for"
    )]
    ForeignShard(revu_domain::lane::ReviewId),
    /// The backend's settings cannot work (a file that does not read, a
    /// CA for a URL without TLS).
    #[error(transparent)]
    Config(#[from] SettingsError),
}

impl revu_domain::retry::Retryable for QueueError {
    /// Transient when the backend could not be reached or was moving
    /// (retrying the same call later may succeed); permanent when the
    /// call or what it read is wrong.
    fn retry(&self) -> revu_domain::retry::Retry {
        revu_domain::retry::Retry::when(match self {
            QueueError::Redis(e) => {
                use ::redis::{ErrorKind, ServerErrorKind};
                e.is_io_error()
                    || e.is_timeout()
                    || e.is_connection_dropped()
                    || e.is_connection_refusal()
                    // A cluster failing over: slots moving, a master
                    // down, a node demoted to replica, one still loading.
                    || e.is_cluster_error()
                    || matches!(
                        e.kind(),
                        ErrorKind::Server(
                            ServerErrorKind::MasterDown
                                | ServerErrorKind::ReadOnly
                                | ServerErrorKind::BusyLoading
                        )
                    )
            }
            QueueError::Closed | QueueError::Lost(_) => true,
            QueueError::Encode { .. }
            | QueueError::Decode { .. }
            | QueueError::BadEntry(_)
            | QueueError::Corrupt(_)
            | QueueError::PhaseMove { .. }
            | QueueError::ForeignShard(_)
            | QueueError::Config(_) => false,
        })
    }
}

/// The job streams, one per engine, and the result stream.
///
/// A job goes to the stream of its lane's engine, and a worker reads only
/// the streams of the engines it offers: a fleet can run cheap rules
/// workers beside model workers, and no worker is handed a lane it cannot
/// run. A job for an engine no worker offers waits on its stream until the
/// review's deadline faults it.
pub trait JobQueue: Clone + Send + Sync + 'static {
    /// Appends a lane job to the stream of its lane's engine.
    fn publish_job(
        &self,
        job: &LaneJob,
    ) -> impl Future<Output = Result<EntryId, QueueError>> + Send;

    /// Takes undelivered jobs for `consumer` from the streams of `engines`,
    /// waiting up to `wait` for one: at most one per stream, so usually
    /// one. Every job returned is the consumer's to run.
    fn take_jobs(
        &self,
        consumer: &str,
        engines: &[String],
        wait: Duration,
    ) -> impl Future<Output = Result<Vec<Delivery<LaneJob>>, QueueError>> + Send;

    /// Claims jobs of `engines` pending longer than `min_idle` on other
    /// consumers (their worker died or stalled) for `consumer`.
    fn reclaim_jobs(
        &self,
        consumer: &str,
        engines: &[String],
        min_idle: Duration,
        max: usize,
    ) -> impl Future<Output = Result<Vec<Delivery<LaneJob>>, QueueError>> + Send;

    /// How many workers read the job stream of `engine` (consumers of its
    /// group): 0 when no worker offers it, or none has yet.
    fn workers_for(&self, engine: &str) -> impl Future<Output = Result<usize, QueueError>> + Send;

    /// Resets the idle time of a job `consumer` holds, so a long lane that is
    /// still alive is not reclaimed. Returns `false` when the consumer no
    /// longer holds it (another worker reclaimed it).
    fn extend_lease(
        &self,
        consumer: &str,
        entry: &str,
    ) -> impl Future<Output = Result<bool, QueueError>> + Send;

    /// Gives a held job back: it becomes reclaimable by any worker at once.
    fn release_job(
        &self,
        consumer: &str,
        entry: &str,
    ) -> impl Future<Output = Result<(), QueueError>> + Send;

    /// Removes consumers that hold nothing and were idle longer than
    /// `min_idle` (dead worker incarnations). Returns how many.
    fn prune_consumers(
        &self,
        min_idle: Duration,
    ) -> impl Future<Output = Result<usize, QueueError>> + Send;

    /// Trims entries every consumer group has acknowledged from the job and
    /// result streams. Never removes an undelivered or pending entry.
    /// Returns how many entries went.
    fn trim_acknowledged(&self) -> impl Future<Output = Result<u64, QueueError>> + Send;

    /// Writes `report` to the result stream and acknowledges the job entry,
    /// atomically.
    fn complete_job(
        &self,
        entry: &str,
        report: &LaneReport,
    ) -> impl Future<Output = Result<(), QueueError>> + Send;

    /// Adds a job to the dead-letter stream with `reason` and, when `entry`
    /// is given, acknowledges that job entry in the same step. `raw` is the
    /// job as it was (possibly undecodable).
    fn dead_letter_job(
        &self,
        entry: Option<&str>,
        raw: &str,
        reason: &str,
    ) -> impl Future<Output = Result<(), QueueError>> + Send;

    /// Takes the next undelivered lane reports for `consumer` (usually
    /// one; none after `wait`).
    fn take_results(
        &self,
        consumer: &str,
        wait: Duration,
    ) -> impl Future<Output = Result<Vec<Delivery<LaneReport>>, QueueError>> + Send;

    /// Claims reports pending longer than `min_idle` on other coordinators.
    fn reclaim_results(
        &self,
        consumer: &str,
        min_idle: Duration,
        max: usize,
    ) -> impl Future<Output = Result<Vec<Delivery<LaneReport>>, QueueError>> + Send;

    /// Acknowledges a report entry once its effects are stored.
    fn ack_result(&self, entry: &str) -> impl Future<Output = Result<(), QueueError>> + Send;

    /// Entries waiting or pending on the job streams, all engines together
    /// (for tests and metrics).
    fn job_backlog(&self) -> impl Future<Output = Result<QueueDepth, QueueError>> + Send;

    /// Whether the backend answers now (a Redis `PING`), for health checks.
    fn ping(&self) -> impl Future<Output = Result<(), QueueError>> + Send;

    /// How many readers of [`JobQueue::take_results`] at once keep every
    /// result stream watched, so that a report wakes one at once: one per
    /// shard on a Redis Cluster (where one blocking read covers one slot),
    /// else one.
    fn result_readers(&self) -> usize {
        1
    }
}

/// How much work sits on the job streams' consumer group: the totals, and
/// each stream apart.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueueDepth {
    /// Delivered but not acknowledged.
    pub pending: u64,
    /// Not yet delivered to any consumer.
    pub undelivered: u64,
    /// Entries on the dead-letter stream.
    pub dead: u64,
    /// Retries waiting out their delay (a backoff, or a server's
    /// `Retry-After`) before they join a job stream.
    pub delayed: u64,
    /// Each engine's job stream in each shard, in engine then shard order.
    pub streams: Vec<StreamDepth>,
}

impl QueueDepth {
    /// Adds one stream to the totals and the list.
    pub fn add(&mut self, stream: StreamDepth) {
        self.pending += stream.pending;
        self.undelivered += stream.undelivered;
        self.delayed += stream.delayed;
        self.streams.push(stream);
    }
}

/// How much work sits on one engine's job stream in one shard.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StreamDepth {
    pub engine: String,
    /// The shard (always 0 in memory).
    pub shard: u16,
    pub pending: u64,
    pub undelivered: u64,
    /// Retries of this engine in this shard waiting out their delay.
    pub delayed: u64,
    /// How long the oldest entry not yet acknowledged (pending or
    /// undelivered) has been on the stream; 0 when there is none.
    pub oldest_age_ms: u64,
}

pub(crate) fn encode<T: serde::Serialize>(what: &'static str, v: &T) -> Result<String, QueueError> {
    serde_json::to_string(v).map_err(|source| QueueError::Encode { what, source })
}

pub(crate) fn decode<T: serde::de::DeserializeOwned>(raw: &str) -> Result<T, Poison> {
    serde_json::from_str(raw).map_err(|e| Poison {
        raw: raw.to_owned(),
        error: e.to_string(),
    })
}

/// Pings `backend` every `every` (each ping bounded by `every`) and calls
/// `changed(up)` each time whether it answers differs from the last time,
/// starting from `up`. Runs until dropped: the health and readiness of
/// the binaries follow it.
pub async fn watch_reachable<B: JobQueue, F: Future<Output = ()>>(
    backend: &B,
    every: Duration,
    mut up: bool,
    mut changed: impl FnMut(bool) -> F,
) {
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let answers = matches!(
            tokio::time::timeout(every, backend.ping()).await,
            Ok(Ok(()))
        );
        if answers != up {
            up = answers;
            changed(up).await;
        }
    }
}
