//! A lane whose review is cancelled while its engine runs is abandoned:
//! the engine's future is dropped (a network request or a command stops
//! there), and the job is acknowledged with a cancelled report. A lane
//! taken after its deadline is neither run nor announced, nor is one whose
//! review is already over. A lane held by a worker that went silent goes
//! to another once its lease passes; one slower than its lease stays with
//! the worker that runs it while the heartbeat keeps the lease.
//!
//! The tests run on paused time, the backend and the workers on tokio's
//! clock: the leases and heartbeats pass as the test sleeps through them.

use revu_domain::bundle::ReviewBundle;
use revu_domain::lane::{
    FaultKind, LaneAttemptOutcome, LaneJob, LaneKind, LaneReport, LaneSpec, ReviewId,
};
use revu_domain::review::{ProgressEvent, ReviewPhase, ReviewPlan, ReviewRecord};
use revu_queue::memory::MemoryBackend;
use revu_queue::{Delivery, JobQueue, MoveOutcome, PhaseMove, ReviewStore};
use revu_runtime::clock::TokioClock;
use revu_worker::engines::{Engine, EngineOutput, Engines, LaneInput, Review};
use revu_worker::runner::Worker;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::watch;
use tokio::time::Instant;

/// An engine whose review never ends; it notes when it starts and when
/// its future is dropped.
#[derive(Debug, Default)]
struct Endless {
    started: AtomicUsize,
    dropped: Arc<AtomicBool>,
}

/// Sets its flag when dropped, as an HTTP request or a child process
/// guard would stop its work.
struct DropFlag(Arc<AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

impl Engine for Endless {
    fn name(&self) -> &str {
        "endless"
    }

    fn review(&self, _input: LaneInput) -> Review<'_> {
        self.started.fetch_add(1, Ordering::SeqCst);
        let guard = DropFlag(self.dropped.clone());
        Box::pin(async move {
            let _guard = guard;
            std::future::pending().await
        })
    }
}

/// An engine that answers a clean report after `takes`, counting the
/// lanes it starts.
#[derive(Debug)]
struct Slow {
    takes: Duration,
    started: AtomicUsize,
}

impl Slow {
    fn taking(takes: Duration) -> Arc<Self> {
        Arc::new(Slow {
            takes,
            started: AtomicUsize::new(0),
        })
    }
}

impl Engine for Slow {
    fn name(&self) -> &str {
        "slow"
    }

    fn review(&self, _input: LaneInput) -> Review<'_> {
        self.started.fetch_add(1, Ordering::SeqCst);
        Box::pin(async move {
            tokio::time::sleep(self.takes).await;
            Ok(EngineOutput::Raw(serde_json::json!({
                "reviewed": [], "checks": ["slow"], "findings": [], "summary": "clean"
            })))
        })
    }
}

/// A backend on tokio's clock.
fn backend() -> MemoryBackend {
    MemoryBackend::with_clock(TokioClock::default())
}

/// A worker of `engine` on `backend`'s clock, with `lease`.
fn worker(
    backend: &MemoryBackend,
    engine: Arc<dyn Engine>,
    lease: Duration,
) -> Worker<MemoryBackend> {
    Worker::new(backend.clone(), Engines::default().with(engine), lease)
        .with_clock(Arc::clone(backend.clock()))
}

/// A domain lane on `engine`.
fn lane_on(engine: &str) -> LaneSpec {
    LaneSpec {
        id: "domain:core".into(),
        kind: LaneKind::Domain {
            domain: "core".into(),
        },
        engine: engine.into(),
        files: vec![],
        guidance: vec![],
    }
}

/// A domain lane on the `endless` engine.
fn endless_lane() -> LaneSpec {
    lane_on("endless")
}

/// The lane job waiting for `worker`.
async fn take_lane(backend: &MemoryBackend, worker: &Worker<MemoryBackend>) -> Delivery<LaneJob> {
    backend
        .take_jobs(
            worker.name(),
            &["endless".to_owned()],
            Duration::from_secs(1),
        )
        .await
        .ok()
        .and_then(|mut taken| taken.pop())
        .unwrap_or_else(|| panic!("the lane job was not delivered"))
}

/// The report the lane sent.
async fn lane_report(backend: &MemoryBackend) -> LaneReport {
    backend
        .take_results("coordinator", Duration::from_secs(1))
        .await
        .ok()
        .and_then(|got| got.into_iter().next())
        .and_then(|d| d.payload.ok())
        .unwrap_or_else(|| panic!("no report for the lane"))
}

fn record(id: &ReviewId, lane: &LaneSpec) -> ReviewRecord {
    let plan = ReviewPlan {
        lanes: vec![lane.clone()],
        ..ReviewPlan::default()
    };
    ReviewRecord::running(id.clone(), plan, 1, u64::MAX)
}

/// `report` is the permanent fault of a lane whose review was cancelled.
fn assert_cancelled(report: &LaneReport) {
    assert!(
        matches!(
            report.outcome,
            LaneAttemptOutcome::Failed {
                kind: FaultKind::Cancelled,
                retry: revu_domain::retry::Retry::Permanent,
                ..
            }
        ),
        "{:?}",
        report.outcome
    );
}

/// The bundle of a review of `examples/docs-only.patch`.
fn docs_bundle() -> Arc<ReviewBundle> {
    Arc::new(ReviewBundle {
        diff: include_bytes!("../../../examples/docs-only.patch")
            .to_vec()
            .into(),
        ..ReviewBundle::default()
    })
}

/// Takes the stored lane job and processes it on a worker of `endless`,
/// which must end at once without the engine starting; the lane's report.
async fn process_unrun(backend: &MemoryBackend) -> LaneReport {
    let engine = Arc::new(Endless::default());
    let worker = Worker::new(
        backend.clone(),
        Engines::default().with(engine.clone()),
        Duration::from_secs(5),
    );
    let delivery = take_lane(backend, &worker).await;
    let done = tokio::time::timeout(Duration::from_secs(10), worker.process(delivery)).await;
    assert!(done.is_ok(), "the lane did not end at once");
    assert_eq!(engine.started.load(Ordering::SeqCst), 0, "the engine ran");
    lane_report(backend).await
}

/// Stores a running review of one endless lane, with `bundle` and a job
/// due by `deadline` (ms); its record.
async fn create_endless(
    backend: &MemoryBackend,
    id: &ReviewId,
    bundle: &Arc<ReviewBundle>,
    deadline: u64,
) -> ReviewRecord {
    create_on(backend, endless_lane(), id, bundle, deadline).await
}

/// Stores a running review of `lane`, with `bundle` and a job due by
/// `deadline` (ms); its record.
async fn create_on(
    backend: &MemoryBackend,
    lane: LaneSpec,
    id: &ReviewId,
    bundle: &Arc<ReviewBundle>,
    deadline: u64,
) -> ReviewRecord {
    let record = record(id, &lane);
    let job = LaneJob::new(id.clone(), lane, 1, deadline, vec![]);
    let created = backend.create_review(&record, bundle, None, &[job]).await;
    assert!(created.is_ok(), "{created:?}");
    record
}

/// Marks the review of `record` cancelled in the store.
async fn cancel(backend: &MemoryBackend, record: &ReviewRecord) {
    let cancelled = record.in_phase(ReviewPhase::Cancelled);
    let moved = backend
        .move_phase(PhaseMove::new(record.phase, &cancelled, &[]))
        .await;
    assert!(matches!(moved, Ok(MoveOutcome::Moved)), "{moved:?}");
}

#[tokio::test(start_paused = true)]
async fn a_cancelled_review_stops_the_engine_in_flight() {
    let backend = backend();
    let record = create_endless(&backend, &ReviewId::new(), &docs_bundle(), u64::MAX).await;

    let engine = Arc::new(Endless::default());
    let engines = Engines::default().with(engine.clone());
    // A short lease: the heartbeat, which notices the cancel, runs often.
    let worker = Worker::new(backend.clone(), engines, Duration::from_millis(300))
        .with_clock(Arc::clone(backend.clock()));
    let delivery = take_lane(&backend, &worker).await;
    let running = tokio::spawn({
        let worker = worker.clone();
        async move { worker.process(delivery).await }
    });
    let started = Instant::now();
    while engine.started.load(Ordering::SeqCst) == 0 {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "engine never ran"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(!engine.dropped.load(Ordering::SeqCst));

    cancel(&backend, &record).await;
    let finished = tokio::time::timeout(Duration::from_secs(10), running).await;
    assert!(
        matches!(finished, Ok(Ok(()))),
        "the lane was not abandoned: {finished:?}"
    );
    assert!(
        engine.dropped.load(Ordering::SeqCst),
        "the engine's future was not dropped"
    );

    // Acknowledged with a cancelled report; nothing left pending.
    let report = lane_report(&backend).await;
    assert_cancelled(&report);
    let backlog = backend.job_backlog().await.ok();
    assert_eq!(backlog.map(|b| b.pending), Some(0));
    assert_eq!(engine.started.load(Ordering::SeqCst), 1);
}

/// A job taken after its deadline (its review is over, and may be gone
/// from the store) faults at once: its engine never runs and no "lane
/// started" event goes out, which on an expired review would leave an
/// events stream behind with no expiry.
#[tokio::test]
async fn a_lane_past_its_deadline_is_neither_run_nor_announced() {
    let backend = MemoryBackend::new();
    let id = ReviewId::new();
    create_endless(&backend, &id, &Arc::new(ReviewBundle::default()), 1).await;
    let report = process_unrun(&backend).await;
    assert!(
        matches!(
            report.outcome,
            LaneAttemptOutcome::Failed {
                kind: FaultKind::Deadline,
                ..
            }
        ),
        "{:?}",
        report.outcome
    );
    let events = backend
        .read_events(&id, "0", Duration::from_millis(10))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        !events
            .iter()
            .any(|(_, e)| matches!(e, ProgressEvent::LaneStarted { .. })),
        "a late lane was announced: {events:?}"
    );
}

/// A job taken once its review is over (cancelled here) is not run: the
/// worker reads the review's state beside its bundle, and the state wins.
#[tokio::test]
async fn a_lane_of_a_review_already_over_is_not_run() {
    let backend = MemoryBackend::new();
    let record = create_endless(&backend, &ReviewId::new(), &docs_bundle(), u64::MAX).await;
    cancel(&backend, &record).await;
    let report = process_unrun(&backend).await;
    assert_cancelled(&report);
}

/// Runs `workers` until the returned sender says stop.
fn run_all(
    workers: &[Worker<MemoryBackend>],
) -> (watch::Sender<bool>, Vec<tokio::task::JoinHandle<()>>) {
    let (stop, stopped) = watch::channel(false);
    let running = workers
        .iter()
        .map(|w| {
            let (w, mut stopped) = (w.clone(), stopped.clone());
            tokio::spawn(async move {
                let stop = async move {
                    let _ = stopped.wait_for(|s| *s).await;
                };
                w.run(1, Duration::from_secs(1), stop).await;
            })
        })
        .collect();
    (stop, running)
}

/// Every lane report sent so far.
async fn reports(backend: &MemoryBackend) -> Vec<LaneReport> {
    let got = backend.take_results("coordinator", Duration::ZERO).await;
    got.unwrap_or_default()
        .into_iter()
        .filter_map(|d| d.payload.ok())
        .collect()
}

/// A worker that took a lane and went silent (no heartbeat, no report)
/// loses it to a live worker once the lease has passed, not before.
#[tokio::test(start_paused = true)]
async fn a_lane_held_by_a_silent_worker_goes_to_another_once_its_lease_passes() {
    let backend = backend();
    let id = ReviewId::new();
    create_on(&backend, lane_on("slow"), &id, &docs_bundle(), u64::MAX).await;
    let taken = backend
        .take_jobs("silent", &["slow".to_owned()], Duration::ZERO)
        .await;
    assert_eq!(
        taken.map(|t| t.len()).ok(),
        Some(1),
        "the silent worker's lane"
    );

    let engine = Slow::taking(Duration::from_secs(1));
    let lease = Duration::from_secs(30);
    let live = worker(&backend, engine.clone(), lease);
    let (stop, running) = run_all(std::slice::from_ref(&live));
    tokio::time::sleep(lease - Duration::from_secs(1)).await;
    assert_eq!(engine.started.load(Ordering::SeqCst), 0, "reclaimed early");
    // It looks for lanes to reclaim every half lease.
    tokio::time::sleep(lease).await;
    assert_eq!(engine.started.load(Ordering::SeqCst), 1, "never reclaimed");
    let _ = stop.send(true);
    for r in running {
        let _ = r.await;
    }
    let sent = reports(&backend).await;
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0].worker, live.name());
    assert!(
        matches!(sent[0].outcome, LaneAttemptOutcome::Reported { .. }),
        "{:?}",
        sent[0].outcome
    );
}

/// A lane that runs three times its lease keeps it: the heartbeat of the
/// worker that runs it keeps its lease fresh, and the other worker, which
/// looks for idle lanes every half lease, never takes it.
#[tokio::test(start_paused = true)]
async fn a_lane_slower_than_its_lease_stays_with_the_worker_that_runs_it() {
    let backend = backend();
    let id = ReviewId::new();
    create_on(&backend, lane_on("slow"), &id, &docs_bundle(), u64::MAX).await;
    let lease = Duration::from_secs(10);
    let engine = Slow::taking(3 * lease);
    let workers = [
        worker(&backend, engine.clone(), lease),
        worker(&backend, engine.clone(), lease),
    ];
    let (stop, running) = run_all(&workers);
    tokio::time::sleep(4 * lease).await;
    let _ = stop.send(true);
    for r in running {
        let _ = r.await;
    }
    assert_eq!(
        engine.started.load(Ordering::SeqCst),
        1,
        "the lane ran twice"
    );
    let sent = reports(&backend).await;
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert!(
        matches!(sent[0].outcome, LaneAttemptOutcome::Reported { .. }),
        "{:?}",
        sent[0].outcome
    );
    let backlog = backend.job_backlog().await.ok();
    assert_eq!(backlog.map(|b| b.pending), Some(0));
}
