//! What only the Redis store does, on a real redis-server: undecodable
//! entries delivered as poison, trimming and consumer pruning, large
//! diffs staged in pieces, and finished reviews that expire.

use revu_domain::bundle::ReviewBundle;
use revu_domain::lane::ReviewId;
use revu_domain::retry::Retryable;
use revu_domain::review::{ProgressEvent, ReviewPhase, ReviewRecord};
use revu_queue::redis::layout::shard_of;
use revu_queue::redis::{RedisBackend, RedisOptions};
use revu_queue::{CreateOutcome, JobQueue, ReviewStore};
use revu_tests::queue_fixtures::{
    OrFail, SHORT, finish, job, move_to, record, redis_backend, report, settled, take, take_job,
};
use revu_tests::{RedisCluster, RedisServer};
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
    append_raw(&mut conn, &server.layout().jobs(0, "rules"), "{not json").await;
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

/// A take reads the streams its shard's ready set names: publishing a job
/// names its engine there, and a take that finds the stream empty takes
/// the name out. A job appended without the name (as a release before the
/// ready sets did) still reaches a worker, through the blocking read.
#[tokio::test]
async fn redis_a_take_reads_the_streams_named_ready_and_still_finds_the_rest() {
    let server = RedisServer::start();
    let b = redis_backend(&server).await;
    let client = redis::Client::open(server.url.as_str()).or_fail();
    let mut conn = client.get_multiplexed_async_connection().await.or_fail();
    let id = ReviewId::new();
    let shard = shard_of(&id);
    let ready = server.layout().ready(shard);
    let named = |conn: &mut redis::aio::MultiplexedConnection| {
        let mut conn = conn.clone();
        let ready = ready.clone();
        async move {
            redis::cmd("SMEMBERS")
                .arg(&ready)
                .query_async::<Vec<String>>(&mut conn)
                .await
                .or_fail()
        }
    };
    b.publish_job(&job(&id, "a")).await.or_fail();
    assert_eq!(
        named(&mut conn).await,
        ["rules"],
        "publishing names the engine"
    );
    let taken = take(&b, "w").await;
    assert_eq!(taken.payload.or_fail().lane.id, "a");
    assert!(take_job(&b, "w", SHORT).await.or_fail().is_none());
    assert!(
        named(&mut conn).await.is_empty(),
        "a take that found the stream empty takes the name out"
    );
    let raw = serde_json::to_string(&job(&id, "b")).or_fail();
    append_raw(&mut conn, &server.layout().jobs(shard, "rules"), &raw).await;
    let unnamed = take_job(&b, "w", SHORT).await.or_fail();
    assert_eq!(
        unnamed.map(|d| d.payload.or_fail().lane.id),
        Some("b".to_owned()),
        "a job whose engine is not named ready is still taken"
    );
}

/// Appends `payload` to stream `key` as a stream entry, the way revu
/// writes one, but behind revu's back (no script, no ready set).
async fn append_raw(conn: &mut redis::aio::MultiplexedConnection, key: &str, payload: &str) {
    redis::cmd("XADD")
        .arg(key)
        .arg("*")
        .arg("payload")
        .arg(payload)
        .query_async::<String>(conn)
        .await
        .or_fail();
}

/// Every key of review `id` under `server`'s prefix (its hash, diff,
/// lanes, attempts and events), with the seconds each has left (-1: none
/// set), by name.
async fn review_ttls(
    conn: &mut redis::aio::MultiplexedConnection,
    id: &ReviewId,
) -> std::collections::BTreeMap<String, i64> {
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("*:review:{}*", id.local()))
        .query_async(conn)
        .await
        .or_fail();
    let mut ttls = std::collections::BTreeMap::new();
    for key in keys {
        let ttl: i64 = redis::cmd("TTL")
            .arg(&key)
            .query_async(conn)
            .await
            .or_fail();
        ttls.insert(key, ttl);
    }
    ttls
}

/// With a retention, a review's keys expire that long after it finishes
/// (or is cancelled), all of them, and its idempotency key with them;
/// never while it runs. Without one, nothing of it expires.
#[tokio::test]
async fn redis_a_finished_review_expires_after_its_retention() {
    let server = RedisServer::start();
    let kept = redis_backend(&server).await;
    let b = kept
        .clone()
        .with_review_retention(Some(Duration::from_secs(300)));
    let client = redis::Client::open(server.url.as_str()).or_fail();
    let mut conn = client.get_multiplexed_async_connection().await.or_fail();
    // A diff large enough to be kept apart, so that all five keys exist.
    let bundle = Arc::new(ReviewBundle {
        diff: vec![b'+'; 1_500_000].into(),
        ..Default::default()
    });
    let mut reviews = Vec::new();
    for (backend, key) in [(&b, "ci-1"), (&b, "ci-2"), (&kept, "ci-3")] {
        let id = backend.new_review_id(None, Some(key));
        let record = record_of(&id, key);
        backend
            .create_review(&record, &bundle, Some(key), &[job(&id, "domain:a")])
            .await
            .or_fail();
        let (result, event) = settled("domain:a");
        assert!(backend.settle_lane(&id, &result, &event).await.or_fail());
        let ttls = review_ttls(&mut conn, &id).await;
        assert_eq!(ttls.len(), 5, "the review's keys: {ttls:?}");
        assert!(
            ttls.values().all(|t| *t == -1),
            "a running review never expires: {ttls:?}"
        );
        reviews.push((record, key));
    }
    let idem_conn = conn.clone();
    let idem_ttl = |key: &str| {
        let key = server.layout().idempotency(None, key);
        let mut conn = idem_conn.clone();
        async move {
            let ttl: i64 = redis::cmd("TTL")
                .arg(key)
                .query_async(&mut conn)
                .await
                .or_fail();
            ttl
        }
    };
    let verdict = [ProgressEvent::Cancelled];
    // Finished, cancelled, and finished without a retention.
    finish(&b, &reviews[0].0, "{}", &verdict).await;
    move_to(&b, &reviews[1].0, ReviewPhase::Cancelled, &verdict).await;
    finish(&kept, &reviews[2].0, "{}", &verdict).await;
    for (record, key) in &reviews[..2] {
        // A late event keeps the expiry.
        b.push_event(&record.id, &ProgressEvent::Cancelled)
            .await
            .or_fail();
        let ttls = review_ttls(&mut conn, &record.id).await;
        assert_eq!(ttls.len(), 5, "{ttls:?}");
        assert!(
            ttls.values().all(|t| (1..=300).contains(t)),
            "every key expires with the review: {ttls:?}"
        );
        let idem = idem_ttl(key).await;
        assert!((1..=300).contains(&idem), "idempotency key: {idem}");
    }
    let ttls = review_ttls(&mut conn, &reviews[2].0.id).await;
    assert!(ttls.values().all(|t| *t == -1), "kept: {ttls:?}");
    let idem = idem_ttl(reviews[2].1).await;
    assert!(idem > 300, "a day, as before: {idem}");

    // A retention longer than what is left of the key's day leaves it be.
    let long = kept
        .clone()
        .with_review_retention(Some(Duration::from_secs(3 * 24 * 60 * 60)));
    let id = long.new_review_id(None, Some("ci-4"));
    let record = record_of(&id, "ci-4");
    long.create_review(&record, &bundle, Some("ci-4"), &[])
        .await
        .or_fail();
    finish(&long, &record, "{}", &verdict).await;
    let idem = idem_ttl("ci-4").await;
    assert!(
        (300..=24 * 60 * 60).contains(&idem),
        "the key keeps its day: {idem}"
    );
}

/// A finished review is gone once its retention is over: its record,
/// report and diff, and its idempotency key, so that the key makes a new
/// review.
async fn an_expired_review_is_gone_and_its_key_makes_a_new_one(b: RedisBackend) {
    let b = b.with_review_retention(Some(Duration::from_secs(1)));
    let bundle = Arc::new(ReviewBundle {
        diff: b"diff --git a/x b/x\n".to_vec().into(),
        ..Default::default()
    });
    let id = b.new_review_id(None, Some("ci-1"));
    let record = record_of(&id, "ci-1");
    b.create_review(&record, &bundle, Some("ci-1"), &[])
        .await
        .or_fail();
    finish(&b, &record, "{\"verdict\":1}", &[ProgressEvent::Cancelled]).await;
    assert!(b.load_report(&id).await.or_fail().is_some());
    // Redis expires keys within moments of their time; bounded wait.
    let mut gone = false;
    for _ in 0..100 {
        if b.load_record(&id).await.or_fail().is_none() {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(gone, "the review outlived its retention by 4 s");
    assert!(b.load_report(&id).await.or_fail().is_none());
    assert!(b.load_bundle(&id).await.or_fail().is_none());
    // A stale job's report or event brings nothing of it back (a stream
    // or hash made now would never expire).
    let (result, event) = settled("domain:a");
    assert!(!b.settle_lane(&id, &result, &event).await.or_fail());
    b.push_event(&id, &event).await.or_fail();
    assert!(b.lane_results(&id).await.or_fail().is_empty());
    let events = b
        .read_events(&id, "0", Duration::from_millis(10))
        .await
        .or_fail();
    assert!(events.is_empty(), "{events:?}");
    let again = b.new_review_id(None, Some("ci-1"));
    let outcome = b
        .create_review(&record_of(&again, "ci-1"), &bundle, Some("ci-1"), &[])
        .await
        .or_fail();
    assert_eq!(outcome, CreateOutcome::Created);
}

#[tokio::test]
async fn redis_an_expired_review_is_gone_and_its_key_makes_a_new_one() {
    let server = RedisServer::start();
    an_expired_review_is_gone_and_its_key_makes_a_new_one(redis_backend(&server).await).await;
}

/// The same on a six-node Redis Cluster, where the expiries go out in
/// the `MULTI` of the review's own slot.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_cluster_an_expired_review_is_gone_and_its_key_makes_a_new_one() {
    let cluster = RedisCluster::start();
    let options = RedisOptions {
        cluster: true,
        ..RedisOptions::default()
    };
    let b = RedisBackend::connect_with(&cluster.seeds(), &options, &cluster.prefix)
        .await
        .unwrap_or_else(|e| panic!("connecting to the cluster {}: {e}", cluster.seeds()));
    an_expired_review_is_gone_and_its_key_makes_a_new_one(b).await;
}

fn record_of(id: &ReviewId, key: &str) -> ReviewRecord {
    ReviewRecord {
        idempotency_key: Some(key.to_owned()),
        ..record(id)
    }
}
