//! The sweeper on a real redis-server: a review whose bundle is gone is
//! faulted and closed, and the review beside it is still finalized.

use revu_coordinator::config::ReviewSettings;
use revu_coordinator::service::{Coordinator, Submission};
use revu_domain::lane::{LaneReportBody, ReviewId};
use revu_domain::review::{LaneEnd, LaneResult, ProgressEvent, ReviewPhase, ReviewRecord};
use revu_queue::ReviewStore;
use revu_queue::redis::RedisBackend;
use revu_tests::RedisServer;
use revu_tests::scenario::example_diff;
use serde_json::Value;
use std::sync::Arc;

/// `Result::unwrap` for tests, with the error's own text.
trait OrFail<T> {
    fn or_fail(self) -> T;
}

impl<T, E: std::fmt::Display> OrFail<T> for Result<T, E> {
    fn or_fail(self) -> T {
        self.unwrap_or_else(|e| panic!("{e}"))
    }
}

async fn submit(coordinator: &Coordinator<RedisBackend>) -> ReviewId {
    let submission = Submission {
        diff: example_diff("docs-only.patch"),
        ..Submission::default()
    };
    coordinator.submit(submission).await.or_fail().0
}

async fn load(backend: &RedisBackend, id: &ReviewId) -> ReviewRecord {
    let record = backend.load_record(id).await.or_fail();
    record.unwrap_or_else(|| panic!("review {id} not stored"))
}

async fn report(backend: &RedisBackend, id: &ReviewId) -> Value {
    let record = backend.load_record(id).await.or_fail();
    let phase = record.map(|r| r.phase);
    assert_eq!(phase, Some(ReviewPhase::Finished), "review {id}");
    let json = backend.load_report(id).await.or_fail().unwrap_or_default();
    serde_json::from_str(&json).or_fail()
}

#[tokio::test]
async fn a_review_whose_bundle_is_gone_is_faulted_and_the_next_one_finishes() {
    let server = RedisServer::start();
    let backend = RedisBackend::connect(&server.url, &server.prefix)
        .await
        .or_fail();
    let coordinator = Coordinator::new(backend.clone(), ReviewSettings::default()).or_fail();
    // The broken review is older, so the sweep meets it first.
    let broken = submit(&coordinator).await;
    let healthy = submit(&coordinator).await;
    assert!(broken < healthy, "sweep order is id order");

    // Past its deadline, and its bundle lost.
    let mut record = load(&backend, &broken).await;
    record.deadline_ms = 0;
    backend.save_record(&record).await.or_fail();
    let client = redis::Client::open(server.url.as_str()).or_fail();
    let mut conn = client.get_multiplexed_async_connection().await.or_fail();
    let removed: u32 = redis::cmd("HDEL")
        .arg(server.layout().review(&broken, ""))
        .arg("bundle")
        .arg("diff")
        .query_async(&mut conn)
        .await
        .or_fail();
    assert_eq!(removed, 2, "the bundle was stored where expected");

    // Every lane of the healthy review settled by a coordinator that died
    // before finalizing: the sweep finalizes it.
    let record = load(&backend, &healthy).await;
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
        assert!(
            backend
                .settle_lane(&healthy, &result, &finished)
                .await
                .or_fail()
        );
    }

    coordinator.sweep_once().await.or_fail();

    let r = report(&backend, &healthy).await;
    assert_eq!(r["gate"], "MERGE-READY", "{r}");
    let r = report(&backend, &broken).await;
    assert_eq!(r["gate"], "NEEDS-HUMAN", "{r}");
    let lanes = r["lanes"].as_array().cloned().unwrap_or_default();
    assert!(!lanes.is_empty(), "{r}");
    for lane in &lanes {
        assert_eq!(lane["outcome"], "PIPELINE-FAULT", "{lane}");
        let banner = lane["banner"].as_str().unwrap_or_default();
        assert!(banner.contains("has no stored bundle"), "{lane}");
    }
    assert!(backend.active_reviews().await.or_fail().is_empty());
    coordinator.sweep_once().await.or_fail();
}
