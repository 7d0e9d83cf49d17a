//! The sweeper over the in-memory backend: a review it cannot handle is
//! faulted on its own, and the reviews beside it are still swept; what a
//! status read (`GetReview`) gives of a review it finishes; and, on paused
//! time, the lanes a review's deadline faults, and when.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use revu_coordinator::config::ReviewSettings;
use revu_coordinator::service::{Coordinator, Submission};
use revu_domain::bundle::ReviewBundle;
use revu_domain::lane::{LaneReportBody, ReviewId};
use revu_domain::review::{LaneEnd, LaneResult, ProgressEvent, ReviewPhase, ReviewState};
use revu_queue::memory::MemoryBackend;
use revu_queue::{JobQueue, ReviewStore};
use revu_runtime::clock::TokioClock;
use revu_stages::prepare::LaneEngine;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

fn example(name: &str) -> Vec<u8> {
    let path = format!("{}/../examples/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

async fn submit(coordinator: &Coordinator<MemoryBackend>, diff: &str) -> ReviewId {
    let submission = Submission {
        diff: example(diff),
        ..Submission::default()
    };
    coordinator.submit(submission).await.unwrap().0
}

/// Settles every lane of `id` as complete and clean, as gathering would,
/// without finalizing: a coordinator that died right after the last lane.
async fn settle_all_clean(backend: &MemoryBackend, id: &ReviewId) {
    let record = backend.load_record(id).await.unwrap().unwrap();
    for lane in &record.plan.lanes {
        let result = Arc::new(LaneResult {
            worker: "w".into(),
            duration_ms: 1,
            ..LaneResult::new(
                lane.id.clone(),
                LaneEnd::Complete {
                    body: LaneReportBody {
                        reviewed: lane.files.clone(),
                        checks: vec!["rules".into()],
                        findings: vec![],
                        summary: "clean".into(),
                        ..LaneReportBody::default()
                    },
                },
                1,
            )
        });
        let finished = ProgressEvent::LaneFinished {
            lane_id: result.lane_id.clone(),
            attempt: 1,
            findings: 0,
        };
        assert!(backend.settle_lane(id, &result, &finished).await.unwrap());
    }
}

async fn report(backend: &MemoryBackend, id: &ReviewId) -> Value {
    let record = backend.load_record(id).await.unwrap().unwrap();
    assert_eq!(record.phase, ReviewPhase::Finished, "review {id}");
    let json = backend.load_report(id).await.unwrap().unwrap();
    serde_json::from_str(&json).unwrap()
}

#[tokio::test]
async fn a_review_whose_diff_no_longer_parses_is_faulted_and_the_next_one_finishes() {
    let backend = MemoryBackend::new();
    let coordinator = Coordinator::new(backend.clone(), ReviewSettings::default()).unwrap();
    // The broken review is older, so the sweep meets it first.
    let broken = submit(&coordinator, "docs-only.patch").await;
    let healthy = submit(&coordinator, "docs-only.patch").await;
    assert!(broken < healthy, "sweep order is id order");
    // Past its deadline, with a stored diff that no longer parses.
    let mut record = backend.load_record(&broken).await.unwrap().unwrap();
    record.deadline_ms = 0;
    let bundle = Arc::new(ReviewBundle {
        diff: b"hello\nworld\n".to_vec().into(),
        ..ReviewBundle::default()
    });
    backend
        .create_review(&record, &bundle, None, &[])
        .await
        .unwrap();
    settle_all_clean(&backend, &healthy).await;

    coordinator.sweep_once().await.unwrap();

    let r = report(&backend, &healthy).await;
    assert_eq!(r["gate"], "MERGE-READY", "{r}");
    let r = report(&backend, &broken).await;
    assert_eq!(r["gate"], "NEEDS-HUMAN", "{r}");
    let lanes = r["lanes"].as_array().unwrap();
    assert!(!lanes.is_empty(), "{r}");
    for lane in lanes {
        assert_eq!(lane["outcome"], "PIPELINE-FAULT", "{lane}");
        let banner = lane["banner"].as_str().unwrap_or_default();
        assert!(banner.contains("no longer parses"), "{lane}");
    }
    let events = backend
        .read_events(&broken, "0", std::time::Duration::ZERO)
        .await
        .unwrap();
    assert!(
        matches!(events.last(), Some((_, ProgressEvent::Verdict { .. }))),
        "watchers get a verdict: {events:?}"
    );
    assert!(backend.active_reviews().await.unwrap().is_empty());
    // Closed for good: the next sweep has nothing left to do.
    coordinator.sweep_once().await.unwrap();
}

#[tokio::test]
async fn status_counts_settled_lanes_and_gives_the_report_once_finished() {
    let backend = MemoryBackend::new();
    let coordinator = Coordinator::new(backend.clone(), ReviewSettings::default()).unwrap();
    let id = submit(&coordinator, "multi-file.patch").await;
    let running = coordinator.status(&id).await.unwrap();
    assert_eq!(running.state, ReviewState::Running);
    assert!(running.lanes_total > 1, "{running:?}");
    assert_eq!(running.lanes_settled, 0);
    assert_eq!(running.report_json, None);
    // Every lane settled, then finalized by the sweep, as after a
    // coordinator that died right after the last lane.
    settle_all_clean(&backend, &id).await;
    let settled = coordinator.status(&id).await.unwrap();
    assert_eq!(settled.state, ReviewState::Running);
    assert_eq!(settled.lanes_settled, settled.lanes_total);
    assert_eq!(settled.report_json, None);
    coordinator.sweep_once().await.unwrap();
    let finished = coordinator.status(&id).await.unwrap();
    assert_eq!(finished.state, ReviewState::Finished);
    assert_eq!(finished.lanes_settled, finished.lanes_total);
    let report: Value = serde_json::from_str(finished.report_json.as_deref().unwrap()).unwrap();
    assert_eq!(report, self::report(&backend, &id).await);
    let unknown = ReviewId::new();
    assert!(coordinator.status(&unknown).await.is_err());
}

/// A coordinator with `settings`, and its backend, both on tokio's clock,
/// starting years from the system's time: a deadline set or read by any
/// other clock would be missed by years.
fn on_tokio_time(settings: ReviewSettings) -> (MemoryBackend, Coordinator<MemoryBackend>) {
    let clock = TokioClock::starting_at(1_600_000_000_000);
    let backend = MemoryBackend::with_clock(clock);
    let coordinator = Coordinator::new(backend.clone(), settings)
        .unwrap()
        .with_clock(clock);
    (backend, coordinator)
}

/// The lanes of a report, by id.
fn lanes_by_id(report: &Value) -> std::collections::BTreeMap<String, Value> {
    let lanes = report["lanes"].as_array().unwrap();
    lanes
        .iter()
        .map(|l| (l["id"].as_str().unwrap().to_owned(), l.clone()))
        .collect()
}

/// A lane without a report when its review's deadline comes is faulted
/// by the sweep, saying whether it ran out of time or no worker offers
/// its engine; a sweep a millisecond earlier faults nothing.
#[tokio::test(start_paused = true)]
async fn at_the_deadline_the_sweep_faults_the_lanes_without_a_report_saying_why() {
    let settings = ReviewSettings {
        review_timeout_secs: 60,
        lane_engines: vec![LaneEngine {
            lane: "specialist:correctness".into(),
            engine: "nobody".into(),
        }],
        ..ReviewSettings::default()
    };
    let (backend, coordinator) = on_tokio_time(settings);
    let id = submit(&coordinator, "secret-and-unwrap.patch").await;
    // A worker of `rules` took a lane, and never reported.
    let taken = backend
        .take_jobs("silent", &["rules".to_owned()], Duration::ZERO)
        .await
        .unwrap();
    assert_eq!(taken.len(), 1);

    tokio::time::sleep(Duration::from_millis(59_999)).await;
    coordinator.sweep_once().await.unwrap();
    assert!(backend.lane_results(&id).await.unwrap().is_empty());
    assert_eq!(coordinator.metrics().past_deadline.get(), 0);

    tokio::time::sleep(Duration::from_millis(1)).await;
    coordinator.sweep_once().await.unwrap();
    let r = report(&backend, &id).await;
    assert_eq!(r["gate"], "NEEDS-HUMAN", "{r}");
    let lanes = lanes_by_id(&r);
    assert!(lanes.len() > 1, "{r}");
    for (lane_id, lane) in &lanes {
        assert_eq!(lane["outcome"], "PIPELINE-FAULT", "{lane}");
        let banner = lane["banner"].as_str().unwrap_or_default();
        let why = if lane_id == "specialist:correctness" {
            "review deadline passed: no worker offers engine `nobody`"
        } else {
            "review deadline passed before the lane reported"
        };
        assert_eq!(banner, why, "{lane}");
    }
    assert_eq!(coordinator.metrics().past_deadline.get(), 1);
}

/// The sweeper, left running, ends a review whose lanes never report at
/// its deadline: not before, and within one tick after.
#[tokio::test(start_paused = true)]
async fn the_running_sweeper_ends_a_review_at_its_deadline() {
    let settings = ReviewSettings {
        review_timeout_secs: 30,
        ..ReviewSettings::default()
    };
    let (backend, coordinator) = on_tokio_time(settings);
    let id = submit(&coordinator, "docs-only.patch").await;
    let sweeper = tokio::spawn({
        let coordinator = coordinator.clone();
        async move {
            coordinator
                .run_sweeper(Duration::from_secs(1), std::future::pending())
                .await
        }
    });
    tokio::time::sleep(Duration::from_millis(29_900)).await;
    assert_eq!(
        coordinator.status(&id).await.unwrap().state,
        ReviewState::Running
    );
    tokio::time::sleep(Duration::from_millis(1_200)).await;
    let r = report(&backend, &id).await;
    sweeper.abort();
    assert_eq!(r["gate"], "NEEDS-HUMAN", "{r}");
    for lane in lanes_by_id(&r).values() {
        assert_eq!(lane["outcome"], "PIPELINE-FAULT", "{lane}");
        let banner = lane["banner"].as_str().unwrap_or_default();
        assert!(banner.contains("deadline"), "{lane}");
    }
}
