//! What the queue tests share: test jobs, reports and records, taking a
//! job from the `rules` stream, a Redis backend on a test server, and an
//! in-memory one on tokio's clock.

use crate::RedisServer;
use revu_domain::clock::SharedClock;
use revu_domain::lane::{
    LaneAttemptOutcome, LaneJob, LaneKind, LaneReport, LaneReportBody, LaneSpec, ReviewId,
};
use revu_domain::review::{
    LaneEnd, LaneResult, ProgressEvent, ReviewPhase, ReviewPlan, ReviewRecord,
};
use revu_queue::memory::MemoryBackend;
use revu_queue::redis::RedisBackend;
use revu_queue::{Delivery, JobQueue, MoveOutcome, PhaseMove, QueueError, ReviewStore};
use revu_runtime::clock::TokioClock;
use std::time::Duration;

pub const SHORT: Duration = Duration::from_millis(50);

/// `Result::unwrap` for tests, with the error's own text.
pub trait OrFail<T> {
    fn or_fail(self) -> T;
}

impl<T, E: std::fmt::Display> OrFail<T> for Result<T, E> {
    fn or_fail(self) -> T {
        self.unwrap_or_else(|e| panic!("{e}"))
    }
}

/// The engine of the test jobs, the only stream the consumers read.
pub fn rules() -> Vec<String> {
    vec!["rules".to_owned()]
}

/// The next job of the `rules` stream for `consumer`, if one comes within
/// `wait`.
pub async fn take_job<B: JobQueue>(
    b: &B,
    consumer: &str,
    wait: Duration,
) -> Result<Option<Delivery<LaneJob>>, QueueError> {
    let mut taken = b.take_jobs(consumer, &rules(), wait).await?;
    assert!(taken.len() <= 1, "one stream, one job at a time");
    Ok(taken.pop())
}

/// The next job for `consumer`, which must exist.
pub async fn take<B: JobQueue>(b: &B, consumer: &str) -> Delivery<LaneJob> {
    take_job(b, consumer, SHORT)
        .await
        .or_fail()
        .unwrap_or_else(|| panic!("no job for {consumer}"))
}

pub fn job(review: &ReviewId, lane: &str) -> LaneJob {
    let spec = LaneSpec {
        id: lane.to_owned(),
        kind: LaneKind::Domain {
            domain: "core".into(),
        },
        engine: "rules".into(),
        files: vec!["src/lib.rs".into()],
        guidance: vec![],
    };
    LaneJob::new(review.clone(), spec, 1, u64::MAX, vec![])
}

pub fn report(job: &LaneJob) -> LaneReport {
    LaneReport {
        review_id: job.review_id.clone(),
        lane_id: job.lane.id.clone(),
        attempt: job.attempt,
        worker: "w".into(),
        engine: "rules".into(),
        duration_ms: 1,
        outcome: LaneAttemptOutcome::Reported {
            body: serde_json::json!({"reviewed": [], "checks": [], "findings": [], "summary": "ok"}),
        },
        usage: None,
        cache: None,
    }
}

pub fn record(id: &ReviewId) -> ReviewRecord {
    ReviewRecord::running(id.clone(), ReviewPlan::default(), 1, u64::MAX)
}

/// An in-memory backend on tokio's clock: on a runtime on paused time,
/// the idle times, delays and expiries it keeps pass as the test sleeps.
pub fn memory_on_tokio_time() -> MemoryBackend {
    MemoryBackend::with_clock(TokioClock::default())
}

/// A backend whose clock a test reads, to set a time (a retry's due
/// time) against the one the backend compares it with.
pub trait BackendClock {
    fn clock(&self) -> &SharedClock;
}

impl BackendClock for MemoryBackend {
    fn clock(&self) -> &SharedClock {
        MemoryBackend::clock(self)
    }
}

impl BackendClock for RedisBackend {
    fn clock(&self) -> &SharedClock {
        RedisBackend::clock(self)
    }
}

/// A backend on `server`, under its key prefix.
pub async fn redis_backend(server: &RedisServer) -> RedisBackend {
    RedisBackend::connect(&server.url, &server.prefix)
        .await
        .unwrap_or_else(|e| panic!("connecting to {}: {e}", server.url))
}

/// Lane `lane` settled COMPLETE on its first attempt, and the event that
/// says so.
pub fn settled(lane: &str) -> (std::sync::Arc<LaneResult>, ProgressEvent) {
    let result = LaneResult {
        worker: "w".into(),
        duration_ms: 1,
        ..LaneResult::new(
            lane,
            LaneEnd::Complete {
                body: LaneReportBody::default(),
            },
            1,
        )
    };
    let event = ProgressEvent::LaneFinished {
        lane_id: lane.into(),
        attempt: 1,
        findings: 0,
    };
    (std::sync::Arc::new(result), event)
}

/// Moves the review of `record` (in its phase as stored) to `to`, with
/// `events`; the move must be made. Returns the record after it.
pub async fn move_to<B: ReviewStore>(
    b: &B,
    record: &ReviewRecord,
    to: ReviewPhase,
    events: &[ProgressEvent],
) -> ReviewRecord {
    let next = record.in_phase(to);
    let moved = b
        .move_phase(PhaseMove::new(record.phase, &next, events))
        .await
        .or_fail();
    assert_eq!(moved, MoveOutcome::Moved, "{} to {to}", record.phase);
    next
}

/// Finishes the review of `record` as finalization does: to Finalizing,
/// then to Finished with `report` and `events`; both moves must be made.
pub async fn finish<B: ReviewStore>(
    b: &B,
    record: &ReviewRecord,
    report: &str,
    events: &[ProgressEvent],
) {
    let finalizing = move_to(b, record, ReviewPhase::Finalizing, &[]).await;
    let finished = b
        .finish_review(&finalizing, report.to_owned(), events)
        .await
        .or_fail();
    assert_eq!(finished, MoveOutcome::Moved);
}
