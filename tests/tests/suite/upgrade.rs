//! Reviews that the release before review phases stored on Redis, read and
//! moved on by this one. Their records are fixtures that release's own
//! types wrote (`domain/tests/fixtures/stored`), put in the review hash as
//! it left them: without a `phase` field.

use revu_coordinator::config::ReviewSettings;
use revu_coordinator::service::Coordinator;
use revu_domain::bundle::ReviewBundle;
use revu_domain::lane::ReviewId;
use revu_domain::review::{ProgressEvent, ReviewPhase, ReviewRecord};
use revu_queue::redis::RedisBackend;
use revu_queue::{JobQueue, MoveOutcome, PhaseMove, ReviewStore};
use revu_tests::RedisServer;
use revu_tests::queue_fixtures::{OrFail, job, redis_backend, settled};
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// The stored fixture `name`, due far in the future.
fn old_record(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../domain/tests/fixtures/stored")
        .join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut json: Value = serde_json::from_str(&text).or_fail();
    json["deadline_ms"] = Value::from(u64::MAX);
    json.to_string()
}

/// Stores the review of `raw` (a record as the previous release wrote it)
/// with `jobs` dispatched, then leaves its hash as that release would
/// have: the record's text as it was, and no `phase` field.
async fn store_as_before(
    server: &RedisServer,
    b: &RedisBackend,
    raw: &str,
    jobs: &[revu_domain::lane::LaneJob],
) -> ReviewRecord {
    let record: ReviewRecord = serde_json::from_str(raw).or_fail();
    b.create_review(&record, &Arc::new(ReviewBundle::default()), None, jobs)
        .await
        .or_fail();
    let client = redis::Client::open(server.url.as_str()).or_fail();
    let mut conn = client.get_multiplexed_async_connection().await.or_fail();
    let hash = server.layout().review(&record.id, "");
    let () = redis::pipe()
        .atomic()
        .cmd("HSET")
        .arg(&hash)
        .arg("record")
        .arg(raw)
        .ignore()
        .cmd("HDEL")
        .arg(&hash)
        .arg("phase")
        .ignore()
        .query_async(&mut conn)
        .await
        .or_fail();
    record
}

async fn phase_field(server: &RedisServer, id: &ReviewId) -> Option<String> {
    let client = redis::Client::open(server.url.as_str()).or_fail();
    let mut conn = client.get_multiplexed_async_connection().await.or_fail();
    redis::cmd("HGET")
        .arg(server.layout().review(id, ""))
        .arg("phase")
        .query_async(&mut conn)
        .await
        .or_fail()
}

#[tokio::test]
async fn redis_a_review_stored_before_phases_moves_from_the_phase_its_record_implies() {
    let server = RedisServer::start();
    let b = redis_backend(&server).await;
    let raw = old_record("record-adjudicating");
    let record = store_as_before(&server, &b, &raw, &[]).await;
    assert_eq!(phase_field(&server, &record.id).await, None);

    let loaded = b.load_record(&record.id).await.or_fail();
    let loaded = loaded.unwrap_or_else(|| panic!("review {} not stored", record.id));
    assert_eq!(loaded.phase, ReviewPhase::Adjudicating);
    assert_eq!(loaded, record);

    // Its first move is made from that phase and writes the field.
    let cancelled = loaded.in_phase(ReviewPhase::Cancelled);
    let moved = b
        .move_phase(PhaseMove::new(
            loaded.phase,
            &cancelled,
            &[ProgressEvent::Cancelled],
        ))
        .await
        .or_fail();
    assert_eq!(moved, MoveOutcome::Moved);
    assert_eq!(
        phase_field(&server, &record.id).await.as_deref(),
        Some("cancelled")
    );
    let stored = b.load_record(&record.id).await.or_fail();
    assert_eq!(stored.map(|r| r.phase), Some(ReviewPhase::Cancelled));
    assert!(b.active_reviews().await.or_fail().is_empty());
    // From then on the field decides: a finish is lost.
    let finish = b
        .finish_review(&loaded.in_phase(ReviewPhase::Finalizing), "{}".into(), &[])
        .await
        .or_fail();
    assert_eq!(
        finish,
        MoveOutcome::Lost {
            current: Some(ReviewPhase::Cancelled)
        }
    );
    assert!(b.load_report(&record.id).await.or_fail().is_none());
}

/// The previous release added a refined review's domain lanes one at a
/// time; one it left stopped after the first has the others dispatched by
/// the next sweep.
#[tokio::test]
async fn redis_a_refined_review_left_midway_gets_its_other_domain_lanes() {
    let server = RedisServer::start();
    let b = redis_backend(&server).await;
    let raw = old_record("record-reviewing");
    let record: ReviewRecord = serde_json::from_str(&raw).or_fail();
    let sent: Vec<_> = ["grouping", "specialist:security", "domain:api"]
        .into_iter()
        .map(|lane| {
            let mut j = job(&record.id, lane);
            j.lane = record.plan.lane(lane).cloned().unwrap_or(j.lane);
            j
        })
        .collect();
    store_as_before(&server, &b, &raw, &sent).await;
    let (grouping, event) = settled("grouping");
    assert!(b.settle_lane(&record.id, &grouping, &event).await.or_fail());
    let before = b.lane_attempts(&record.id).await.or_fail();
    assert!(!before.contains_key("domain:docs"), "{before:?}");

    let coordinator = Coordinator::new(b.clone(), ReviewSettings::default()).or_fail();
    coordinator.sweep_once().await.or_fail();

    let after = b.lane_attempts(&record.id).await.or_fail();
    assert_eq!(after.get("domain:docs").map(|a| a.awaited), Some(1));
    let stored = b.load_record(&record.id).await.or_fail();
    assert_eq!(stored.map(|r| r.phase), Some(ReviewPhase::Reviewing));
    let events = b
        .read_events(&record.id, "0", Duration::ZERO)
        .await
        .or_fail();
    assert!(
        events.iter().any(|(_, e)| matches!(
            e,
            ProgressEvent::LaneDispatched { lane_id, .. } if lane_id == "domain:docs"
        )),
        "{events:?}"
    );
    // A second sweep sends nothing twice.
    let queued = b.job_backlog().await.or_fail().undelivered;
    coordinator.sweep_once().await.or_fail();
    assert_eq!(b.job_backlog().await.or_fail().undelivered, queued);
}
