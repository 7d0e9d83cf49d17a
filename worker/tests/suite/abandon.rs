//! A lane whose review is cancelled while its engine runs is abandoned:
//! the engine's future is dropped (a network request or a command stops
//! there), and the job is acknowledged with a cancelled report. A lane
//! taken after its deadline is neither run nor announced, nor is one whose
//! review is already over.

use revu_domain::bundle::ReviewBundle;
use revu_domain::lane::{
    FaultKind, LaneAttemptOutcome, LaneJob, LaneKind, LaneReport, LaneSpec, ReviewId,
};
use revu_domain::review::{ProgressEvent, ReviewPhase, ReviewPlan, ReviewRecord};
use revu_queue::memory::MemoryBackend;
use revu_queue::{Delivery, JobQueue, MoveOutcome, PhaseMove, ReviewStore};
use revu_worker::engines::{Engine, Engines, LaneInput, Review};
use revu_worker::runner::Worker;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

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

/// A domain lane on the `endless` engine.
fn endless_lane() -> LaneSpec {
    LaneSpec {
        id: "domain:core".into(),
        kind: LaneKind::Domain {
            domain: "core".into(),
        },
        engine: "endless".into(),
        files: vec![],
        guidance: vec![],
    }
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
    let lane = endless_lane();
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

#[tokio::test]
async fn a_cancelled_review_stops_the_engine_in_flight() {
    let backend = MemoryBackend::new();
    let record = create_endless(&backend, &ReviewId::new(), &docs_bundle(), u64::MAX).await;

    let engine = Arc::new(Endless::default());
    let engines = Engines::default().with(engine.clone());
    // A short lease: the heartbeat, which notices the cancel, runs often.
    let worker = Worker::new(backend.clone(), engines, Duration::from_millis(300));
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
