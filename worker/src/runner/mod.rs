//! The consumer loop: take a lane job, run its engine, write the report and
//! acknowledge the job in one step.
//!
//! A job is acknowledged only together with its report, so a worker that
//! dies mid-lane leaves the job pending; another worker reclaims it once the
//! lease (idle time) passes. While a lane runs, a heartbeat keeps its lease
//! fresh so a slow but live lane is not taken away.

mod bundles;
mod cache;
mod held;
mod lane;
mod observe;

use crate::engines::{Engines, Meter};
use crate::metrics::WorkerMetrics;
use bundles::BundleCache;
use held::Held;
use revu_domain::clock::{Clock, SharedClock};
use revu_domain::lane::{
    CacheUse, FaultKind, LaneAttemptOutcome, LaneJob, LaneReport, ReviewId, Usage,
};
use revu_domain::retry::{Retry, RetryPolicy};
use revu_domain::review::ProgressEvent;
use revu_domain::telemetry::MessagingTarget;
use revu_queue::{Delivery, JobQueue, ReviewStore};
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::watch;
use tracing::Instrument;

/// How long one queue read waits before the loop looks at the stop flag.
const DEFAULT_POLL: Duration = Duration::from_secs(1);
/// How long a report write rides out a backend that hiccups (8 to 16 s
/// of backoff in all) before the job is left pending for reclaim.
const WRITE_RETRY: RetryPolicy = RetryPolicy {
    max_attempts: 8,
    base_delay_ms: 200,
    max_delay_ms: 5_000,
};

/// Fault injection points, for the fault suite: the process exits at once
/// (as if killed) at the named point while it holds a lane.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Failpoint {
    /// After taking a job, before running its engine.
    ExitBeforeEngine,
    /// After the engine produced its report, before the report is written.
    ExitAfterEngine,
}

/// A background task that ends when this guard is dropped.
#[derive(Debug)]
struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Why a lane in hand is given up before its engine finishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Abandon {
    /// Another worker reclaimed the job.
    LeaseLost,
    /// The review was finished or cancelled.
    ReviewOver,
}

/// What the lane has spent on a model service: its earlier attempts' and
/// this one's.
fn spent(job: &LaneJob, meter: &Meter) -> Option<Usage> {
    match (job.spent.clone(), meter.total()) {
        (Some(before), Some(now)) => Some(before.plus(&now)),
        (before, now) => before.or(now),
    }
}

/// Resolves when the heartbeat says the lane is to be abandoned; never,
/// if the heartbeat ends without saying so.
async fn abandon_signal(told: &mut watch::Receiver<Option<Abandon>>) -> Abandon {
    let told = told.wait_for(Option::is_some).await.map(|why| *why);
    match told {
        Ok(why) => why.unwrap_or(Abandon::ReviewOver),
        Err(_) => std::future::pending().await,
    }
}

/// One worker incarnation.
#[derive(Debug, Clone)]
pub struct Worker<B> {
    backend: B,
    engines: Arc<Engines>,
    name: Arc<str>,
    lease: Duration,
    poll: Duration,
    lane_timeout: Duration,
    failpoint: Option<Failpoint>,
    bundles: BundleCache,
    held: Held,
    metrics: Arc<WorkerMetrics>,
    messaging: Arc<MessagingTarget>,
    /// A stop may cut an idle read short (see [`Worker::with_stoppable_reads`]).
    stoppable_reads: bool,
    /// How long a lane's report is kept for reuse; `None` keeps none.
    lane_cache_ttl: Option<Duration>,
    /// What a lane's deadline is checked against.
    clock: SharedClock,
}

impl<B: JobQueue + ReviewStore> Worker<B> {
    /// A worker with a consumer name unique to this incarnation.
    pub fn new(backend: B, engines: Engines, lease: Duration) -> Self {
        Worker {
            backend,
            engines: Arc::new(engines),
            name: format!("worker-{}", uuid::Uuid::now_v7()).into(),
            lease,
            poll: DEFAULT_POLL,
            lane_timeout: Duration::from_secs(600),
            failpoint: None,
            bundles: BundleCache::default(),
            held: Held::default(),
            metrics: Arc::default(),
            messaging: Arc::default(),
            stoppable_reads: false,
            lane_cache_ttl: None,
            clock: revu_domain::clock::system(),
        }
    }

    /// Reads the time a lane's deadline is checked against from `clock`
    /// (by default, the system's), the clock of the coordinator that set
    /// it. Leases and polls run on tokio's timers.
    pub fn with_clock(mut self, clock: impl Clock + 'static) -> Self {
        self.clock = Arc::new(clock);
        self
    }

    /// Lets a stop cut an idle queue read short, for a backend whose read
    /// is cancel-safe (the in-memory queue: a job is taken and returned in
    /// one step, so a read dropped while it waits has taken nothing). The
    /// embedded mode then ends as soon as its review does, instead of
    /// after a poll. A Redis read is never cut: the server may have
    /// delivered a job the dropped read would lose until its lease ran out.
    pub fn with_stoppable_reads(mut self) -> Self {
        self.stoppable_reads = true;
        self
    }

    /// Records lane attempts in `metrics` (by default, in metrics nobody reads).
    /// Reuses the report of a lane whose input is identical to one
    /// reviewed in the last `ttl`, and stores each complete report for as
    /// long (see [`cache`]); zero turns the cache off.
    pub fn with_lane_cache(mut self, ttl: Duration) -> Self {
        self.lane_cache_ttl = (!ttl.is_zero()).then_some(ttl);
        self
    }

    pub fn with_metrics(mut self, metrics: Arc<WorkerMetrics>) -> Self {
        self.metrics = metrics;
        self
    }

    /// Names the job stream in the attributes of the attempt spans.
    pub fn with_messaging(mut self, messaging: MessagingTarget) -> Self {
        self.messaging = Arc::new(messaging);
        self
    }

    /// How long one queue read waits; bounds how late a stop is noticed.
    /// Reads are never cancelled midway, so that no delivered job is dropped.
    pub fn with_poll(mut self, poll: Duration) -> Self {
        self.poll = poll.max(Duration::from_millis(1));
        self
    }

    /// Longest a lane may run before it is reported as a transient failure.
    pub fn with_lane_timeout(mut self, timeout: Duration) -> Self {
        self.lane_timeout = timeout;
        self
    }

    pub fn with_failpoint(mut self, failpoint: Option<Failpoint>) -> Self {
        self.failpoint = failpoint;
        self
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Runs `concurrency` lane slots until `shutdown` resolves, then stops
    /// taking jobs and gives the lanes in hand `drain` to finish. Lanes still
    /// running after that are released for other workers to take at once.
    pub async fn run(
        &self,
        concurrency: usize,
        drain: Duration,
        shutdown: impl Future<Output = ()>,
    ) {
        let (stop_tx, stop_rx) = watch::channel(false);
        let mut slots = tokio::task::JoinSet::new();
        for _ in 0..concurrency.max(1) {
            let worker = self.clone();
            let stop = stop_rx.clone();
            slots.spawn(async move { worker.slot(stop).await });
        }
        tracing::info!(worker = %self.name, concurrency, "worker started");
        shutdown.await;
        let _ = stop_tx.send(true);
        tracing::info!(worker = %self.name, in_hand = self.held.len(), "draining");
        let drained =
            tokio::time::timeout(drain, async { while slots.join_next().await.is_some() {} }).await;
        if drained.is_err() {
            // Dropping the lanes' futures stops their engines (a command
            // is killed), so the process exits within its grace period.
            slots.abort_all();
            while slots.join_next().await.is_some() {}
            for entry in self.held.take_all() {
                match self.backend.release_job(&self.name, &entry).await {
                    Ok(()) => {
                        tracing::info!(worker = %self.name, entry, "lane released to other workers")
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, entry, "release failed; the lease will expire")
                    }
                }
            }
        }
        tracing::info!(worker = %self.name, "worker stopped");
    }

    async fn slot(&self, stop: watch::Receiver<bool>) {
        // Only the streams of the engines this worker offers.
        let engines = self.engines.names();
        let mut last_reclaim: Option<tokio::time::Instant> = None;
        while !*stop.borrow() {
            if last_reclaim.is_none_or(|t| t.elapsed() >= self.lease / 2) {
                last_reclaim = Some(tokio::time::Instant::now());
                match self
                    .backend
                    .reclaim_jobs(&self.name, &engines, self.lease, 1)
                    .await
                {
                    Ok(claimed) => {
                        for d in claimed {
                            self.metrics.jobs_reclaimed.inc();
                            tracing::info!(worker = %self.name, entry = %d.entry, "reclaimed a job from a silent worker");
                            self.process(d).await;
                        }
                    }
                    Err(e) => tracing::warn!(error = %e, "reclaim failed"),
                }
            }
            let read = self.backend.take_jobs(&self.name, &engines, self.poll);
            let taken = if self.stoppable_reads {
                let mut stopped = stop.clone();
                tokio::select! {
                    taken = read => taken,
                    _ = stopped.wait_for(|s| *s) => break,
                }
            } else {
                read.await
            };
            match taken {
                Ok(taken) => {
                    for d in taken {
                        self.process(d).await;
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "reading jobs failed; retrying");
                    tokio::time::sleep(self.poll).await;
                }
            }
        }
    }

    /// Runs one delivered job to its report.
    pub async fn process(&self, delivery: Delivery<LaneJob>) {
        let job = match delivery.payload {
            // Shared with the lane's engine, not copied: a lane may list
            // every file of a large change.
            Ok(job) => Arc::new(job),
            Err(poison) => {
                tracing::warn!(entry = %delivery.entry, error = %poison, "undecodable job dead-lettered");
                let reason = format!("undecodable job: {poison}");
                self.metrics
                    .dead_letters
                    .get_or_create(&revu_runtime::metrics::DeadLetterLabels {
                        reason: FaultKind::Undecodable.label().to_owned(),
                    })
                    .inc();
                if let Err(e) = self
                    .backend
                    .dead_letter_job(Some(&delivery.entry), &poison.raw, &reason)
                    .await
                {
                    tracing::warn!(error = %e, "dead-lettering failed; entry stays pending");
                }
                return;
            }
        };
        if self.engines.get(&job.lane.engine).is_none() {
            // Jobs reach only workers that offer their engine; one that
            // strays here goes back for a worker that does.
            tracing::warn!(worker = %self.name, engine = %job.lane.engine, "job for an engine this worker lacks released");
            if let Err(e) = self.backend.release_job(&self.name, &delivery.entry).await {
                tracing::warn!(error = %e, "release failed; the lease will expire");
            }
            return;
        }
        let span = observe::attempt_span(&job, &delivery.entry, &self.messaging, &self.name);
        self.held.insert(&delivery.entry);
        self.metrics.lanes_running.inc();
        let started = Instant::now();
        let meter = Arc::new(Meter::default());
        let (heartbeat, mut abandoned) = self.heartbeat(&delivery.entry, &job.review_id);
        // The engine's future is dropped (its request or command stopped)
        // as soon as the lane is abandoned.
        let report = tokio::select! {
            report = self.attempt(&job, &meter).instrument(span.clone()) => report,
            why = abandon_signal(&mut abandoned) => match why {
                Abandon::LeaseLost => {
                    // Another worker holds the job now; its report is the one.
                    drop(heartbeat);
                    self.metrics.lanes_running.dec();
                    self.held.remove(&delivery.entry);
                    return;
                }
                Abandon::ReviewOver => self.abandoned_report(&job, started, &meter),
            },
        };
        drop(heartbeat);
        self.metrics.lanes_running.dec();
        observe::attempt_done(&span, &self.metrics, &job, &report);
        if let Some(spent) = meter.total() {
            self.metrics
                .count_usage(&job.lane, &spent, &meter.failures());
        }
        if self.failpoint == Some(Failpoint::ExitAfterEngine) {
            std::process::exit(86);
        }
        self.write_report(&delivery.entry, &report)
            .instrument(span)
            .await;
        self.held.remove(&delivery.entry);
    }

    /// Keeps the lease of `entry` fresh until the returned guard is dropped
    /// (also when this lane's task is aborted, so a released lane is never
    /// taken back by a stray heartbeat), and says on the returned channel
    /// when the lane is to be abandoned: its lease went to another worker,
    /// or its review was finished or cancelled.
    fn heartbeat(
        &self,
        entry: &str,
        review: &ReviewId,
    ) -> (AbortOnDrop<()>, watch::Receiver<Option<Abandon>>) {
        let (backend, name, entry) = (self.backend.clone(), self.name.clone(), entry.to_owned());
        let (metrics, review) = (self.metrics.clone(), review.clone());
        let every = (self.lease / 3).max(Duration::from_millis(100));
        let (tell, told) = watch::channel(None);
        let task = AbortOnDrop(tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            tick.tick().await;
            loop {
                tick.tick().await;
                match backend.extend_lease(&name, &entry).await {
                    Ok(true) => {}
                    Ok(false) => {
                        metrics.leases_lost.inc();
                        tracing::warn!(worker = %name, entry, "lease lost: another worker reclaimed this lane");
                        let _ = tell.send(Some(Abandon::LeaseLost));
                        return;
                    }
                    Err(e) => tracing::debug!(error = %e, "lease extension failed"),
                }
                match backend.load_record(&review).await {
                    Ok(Some(r)) if r.phase.is_terminal() => {
                        tracing::info!(worker = %name, entry, review_id = %review, "review over: lane abandoned");
                        let _ = tell.send(Some(Abandon::ReviewOver));
                        return;
                    }
                    Ok(_) => {}
                    Err(e) => tracing::debug!(error = %e, "review state unknown"),
                }
            }
        }));
        (task, told)
    }

    /// The report of a lane abandoned because its review is over: written
    /// so that its job is acknowledged (the coordinator discards it).
    fn abandoned_report(&self, job: &LaneJob, started: Instant, meter: &Meter) -> LaneReport {
        let outcome = LaneAttemptOutcome::Failed {
            reason: "review finished or cancelled while the lane ran; lane abandoned".into(),
            retry: Retry::Permanent,
            kind: FaultKind::Cancelled,
            retry_after_ms: None,
        };
        self.report(job, started, meter, outcome)
    }

    /// The report of an attempt of `job` started at `started`, with what
    /// it spent.
    fn report(
        &self,
        job: &LaneJob,
        started: Instant,
        meter: &Meter,
        outcome: LaneAttemptOutcome,
    ) -> LaneReport {
        self.report_cached(job, started, meter, outcome, None)
    }

    /// [`Self::report`], saying what the lane result cache did.
    fn report_cached(
        &self,
        job: &LaneJob,
        started: Instant,
        meter: &Meter,
        outcome: LaneAttemptOutcome,
        cache: Option<CacheUse>,
    ) -> LaneReport {
        LaneReport {
            cache,
            usage: spent(job, meter),
            review_id: job.review_id.clone(),
            lane_id: job.lane.id.clone(),
            attempt: job.attempt,
            worker: self.name.to_string(),
            engine: job.lane.engine.clone(),
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            outcome,
        }
    }

    /// Runs one attempt of a lane to its report.
    async fn attempt(&self, job: &Arc<LaneJob>, meter: &Arc<Meter>) -> LaneReport {
        if self.failpoint == Some(Failpoint::ExitBeforeEngine) {
            std::process::exit(86);
        }
        let started = Instant::now();
        let event = ProgressEvent::LaneStarted {
            lane_id: job.lane.id.clone(),
            attempt: job.attempt,
            worker: self.name.to_string(),
        };
        let now = self.clock.now_ms();
        let left = Duration::from_millis(job.deadline_ms.saturating_sub(now));
        let limit = self.lane_timeout.min(left);
        let (outcome, cache) = if now > job.deadline_ms {
            // Neither run nor announced: its review is over.
            (
                lane::failed(
                    FaultKind::Deadline,
                    "lane deadline passed before it started",
                    Retry::Permanent,
                ),
                None,
            )
        } else {
            // The event goes out beside the lane's first reads (one round
            // trip for both), and before its report, which waits for both.
            let (announced, ran) = tokio::join!(
                self.backend.push_event(&job.review_id, &event),
                tokio::time::timeout(limit, self.run_lane(job, meter))
            );
            if let Err(e) = announced {
                tracing::debug!(error = %e, "progress event lost");
            }
            ran.unwrap_or_else(|_| {
                let reason = format!("lane ran longer than {}s", limit.as_secs());
                (
                    lane::failed(FaultKind::Timeout, reason, Retry::Transient),
                    None,
                )
            })
        };
        let outcome = redacted(outcome);
        if let LaneAttemptOutcome::Failed {
            reason,
            retry,
            kind,
            ..
        } = &outcome
        {
            let transient = *retry == Retry::Transient;
            tracing::warn!(review_id = %job.review_id, lane = %job.lane.id, attempt = job.attempt, transient, reason, kind = kind.label(), "lane failed");
        }
        self.report_cached(job, started, meter, outcome, cache)
    }

    /// Writes the report and acknowledges the job, retrying a backend that
    /// hiccups. If it stays down the job stays pending and is reclaimed.
    async fn write_report(&self, entry: &str, report: &LaneReport) {
        let written =
            revu_runtime::retry::run(&WRITE_RETRY, || self.backend.complete_job(entry, report))
                .await;
        match written {
            Ok(()) => {
                tracing::debug!(review_id = %report.review_id, lane = %report.lane_id, "lane reported")
            }
            Err(e) => {
                tracing::warn!(error = %e, lane = %report.lane_id, "report not written; job left for reclaim")
            }
        }
    }
}

/// `outcome` with credentials masked in a failure's reason, which quotes
/// engines' error output, before it reaches logs, spans or the report.
fn redacted(outcome: LaneAttemptOutcome) -> LaneAttemptOutcome {
    match outcome {
        LaneAttemptOutcome::Failed {
            reason,
            retry,
            kind,
            retry_after_ms,
        } => LaneAttemptOutcome::Failed {
            reason: revu_domain::redact::redact(&reason).into_owned(),
            retry,
            kind,
            retry_after_ms,
        },
        reported => reported,
    }
}
