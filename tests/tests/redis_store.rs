//! What only the Redis store does, on a real redis-server: undecodable
//! entries delivered as poison, trimming and consumer pruning, and large
//! diffs staged in pieces.

use revu_common::bundle::ReviewBundle;
use revu_common::lane::ReviewId;
use revu_common::queue::redis::layout::shard_of;
use revu_common::queue::{JobQueue, ReviewStore};
use revu_tests::RedisServer;
use revu_tests::queue_fixtures::{
    OrFail, SHORT, job, record, redis_backend, report, take, take_job,
};
use std::sync::Arc;
use std::time::Duration;

/// A staged diff whose bytes so far are not what was sent (a failover
/// lost a piece) fails the submission as a transient error, creating
/// nothing, rather than storing a diff with a hole.
#[tokio::test]
async fn redis_a_staged_diff_that_lost_a_piece_creates_nothing() {
    let server = RedisServer::start();
    let b = redis_backend(&server).await;
    let id = b.new_review_id(None, None);
    let client = redis::Client::open(server.url.as_str()).or_fail();
    let mut conn = client.get_multiplexed_async_connection().await.or_fail();
    let staging = server.layout().review(&id, "diff-staging");
    let () = redis::cmd("SET")
        .arg(&staging)
        .arg("not the diff")
        .query_async(&mut conn)
        .await
        .or_fail();
    let bundle = Arc::new(ReviewBundle {
        diff: vec![b'+'; 2_500_000].into(),
        ..Default::default()
    });
    let err = b
        .create_review(&record(&id), &bundle, None, &[])
        .await
        .err()
        .unwrap_or_else(|| panic!("created over a staged diff with a hole"));
    assert!(err.is_transient(), "{err}");
    assert!(err.to_string().contains("write lost"), "{err}");
    assert!(b.load_bundle(&id).await.or_fail().is_none());
}

#[tokio::test]
async fn redis_trim_removes_acknowledged_entries_and_prune_only_empty_consumers() {
    let server = RedisServer::start();
    let b = redis_backend(&server).await;
    let id = ReviewId::new();
    for lane in ["a", "b", "c"] {
        b.publish_job(&job(&id, lane)).await.or_fail();
    }
    for _ in 0..2 {
        let d = take(&b, "finisher").await;
        let j = d.payload.as_ref().or_fail().clone();
        b.complete_job(&d.entry, &report(&j)).await.or_fail();
    }
    let held = take_job(&b, "holder", SHORT).await.or_fail();
    assert!(held.is_some());
    let trimmed = b.trim_acknowledged().await.or_fail();
    assert_eq!(trimmed, 2, "the two acknowledged jobs are trimmed");
    let client = redis::Client::open(server.url.as_str()).or_fail();
    let mut conn = client.get_multiplexed_async_connection().await.or_fail();
    let len: u64 = redis::cmd("XLEN")
        .arg(server.layout().jobs(shard_of(&id), "rules"))
        .query_async(&mut conn)
        .await
        .or_fail();
    assert_eq!(len, 1, "the held job stays on the stream");
    tokio::time::sleep(Duration::from_millis(60)).await;
    let pruned = b.prune_consumers(Duration::from_millis(50)).await.or_fail();
    // `finisher` (jobs group) is empty and idle; `holder` holds a job; the
    // results group's consumer never read anything.
    assert_eq!(
        pruned, 1,
        "only the idle consumer with nothing pending goes"
    );
    assert_eq!(b.job_backlog().await.or_fail().pending, 1);
}

#[tokio::test]
async fn redis_poison_entries_are_delivered_as_poison_not_dropped() {
    let server = RedisServer::start();
    let b = redis_backend(&server).await;
    let client = redis::Client::open(server.url.as_str()).or_fail();
    let mut conn = client.get_multiplexed_async_connection().await.or_fail();
    let key = server.layout().jobs(0, "rules");
    redis::cmd("XADD")
        .arg(&key)
        .arg("*")
        .arg("payload")
        .arg("{not json")
        .query_async::<String>(&mut conn)
        .await
        .or_fail();
    let d = take_job(&b, "c", SHORT).await.or_fail();
    let d = d.unwrap_or_else(|| panic!("poison entry not delivered"));
    let poison = d
        .payload
        .err()
        .unwrap_or_else(|| panic!("garbage decoded as a job"));
    assert!(!poison.error.is_empty());
    b.dead_letter_job(Some(&d.entry), &poison.raw, "undecodable")
        .await
        .or_fail();
    let depth = b.job_backlog().await.or_fail();
    assert_eq!((depth.pending, depth.dead), (0, 1));
}
