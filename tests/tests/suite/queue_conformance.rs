//! The queue contract, run against both backends: Redis Streams (on a real
//! redis-server) and the in-memory one of the embedded mode. What only
//! the Redis store does (poison entries, trimming, staged diffs) is in
//! `redis_store.rs`.
//!
//! In memory, the cases run on paused time with the backend on tokio's
//! clock: the leases, delays and expiries they wait out pass at once; a
//! case whose tasks must race for real runs on two worker threads instead.
//! On Redis, every case runs on two worker threads in real time: the
//! server times idle entries and expiries by its own clock.

#[path = "queue_conformance/phases.rs"]
mod phases;
#[path = "queue_conformance/store.rs"]
mod store;

use phases::{
    a_phase_moves_only_from_the_phase_it_leaves, cancel_and_finish_race_and_exactly_one_wins,
};
use revu_domain::bundle::ReviewBundle;
use revu_domain::clock::Clock;
use revu_domain::lane::{LaneJob, ReviewId};
use revu_domain::report::{Gate, Verdict};
use revu_domain::review::{LaneAttempts, ProgressEvent, ReviewPhase};
use revu_queue::memory::MemoryBackend;
use revu_queue::redis::{RedisBackend, RedisOptions};
use revu_queue::{CreateOutcome, JobQueue, ReviewStore};
use revu_tests::queue_fixtures::{
    BackendClock, OrFail, SHORT, finish, job, memory_on_tokio_time, move_to, record, redis_backend,
    report, rules, settled, take, take_job,
};
use revu_tests::{RedisCluster, RedisServer};
use std::sync::Arc;
use std::time::Duration;
use store::{
    a_large_diff_is_stored_whole, a_large_record_reads_back_whole,
    quotas_charge_within_a_window_and_refuse_past_the_limit,
    tenants_have_their_own_reviews_and_idempotency_keys,
    the_lane_cache_keeps_a_body_until_it_expires,
};

async fn job_is_delivered_once_and_acked_with_its_report<B: JobQueue + ReviewStore>(b: B) {
    let id = ReviewId::new();
    let j = job(&id, "domain:core");
    b.publish_job(&j).await.or_fail();
    let got = take_job(&b, "c1", SHORT).await.or_fail();
    let got = got.unwrap_or_else(|| panic!("job not delivered"));
    assert_eq!(got.payload.as_ref().ok(), Some(&j));
    // Nobody else gets it while it is pending.
    assert!(take_job(&b, "c2", SHORT).await.or_fail().is_none());
    assert_eq!(b.job_backlog().await.or_fail().pending, 1);
    b.complete_job(&got.entry, &report(&j)).await.or_fail();
    let depth = b.job_backlog().await.or_fail();
    assert_eq!((depth.pending, depth.undelivered), (0, 0));
    let r = b.take_results("coord", SHORT).await.or_fail();
    assert!(r.len() <= 1, "one report, delivered {} times", r.len());
    let r = r
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("report not delivered"));
    assert_eq!(r.payload.as_ref().ok(), Some(&report(&j)));
    b.ack_result(&r.entry).await.or_fail();
    assert!(
        b.reclaim_results("coord2", Duration::ZERO, 10)
            .await
            .or_fail()
            .is_empty()
    );
}

async fn empty_queue_waits_then_returns_nothing<B: JobQueue + ReviewStore>(b: B) {
    let started = tokio::time::Instant::now();
    assert!(take_job(&b, "c1", SHORT).await.or_fail().is_none());
    assert!(started.elapsed() >= SHORT / 2, "returned before waiting");
}

async fn silent_consumer_jobs_are_reclaimed_after_idle<B: JobQueue + ReviewStore>(b: B) {
    let id = ReviewId::new();
    let j = job(&id, "domain:a");
    b.publish_job(&j).await.or_fail();
    let taken = take_job(&b, "dead", SHORT).await.or_fail();
    assert!(taken.is_some());
    // Not idle long enough yet.
    let early = b
        .reclaim_jobs("alive", &rules(), Duration::from_secs(60), 10)
        .await
        .or_fail();
    assert!(early.is_empty());
    tokio::time::sleep(Duration::from_millis(120)).await;
    let claimed = b
        .reclaim_jobs("alive", &rules(), Duration::from_millis(100), 10)
        .await
        .or_fail();
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0].payload.as_ref().ok(), Some(&j));
    b.complete_job(&claimed[0].entry, &report(&j))
        .await
        .or_fail();
    assert_eq!(b.job_backlog().await.or_fail().pending, 0);
}

async fn dead_letter_acknowledges_and_counts<B: JobQueue + ReviewStore>(b: B) {
    let id = ReviewId::new();
    b.publish_job(&job(&id, "domain:a")).await.or_fail();
    let d = take(&b, "c").await;
    b.dead_letter_job(Some(&d.entry), "{}", "poison")
        .await
        .or_fail();
    let depth = b.job_backlog().await.or_fail();
    assert_eq!((depth.pending, depth.dead), (0, 1));
}

async fn store_is_idempotent_and_settles_each_lane_once<B: JobQueue + ReviewStore>(b: B) {
    let first = b.new_review_id(None, Some("key-1"));
    let mut bundle = ReviewBundle {
        diff: b"diff --git a/x b/x\n\xff raw bytes".to_vec().into(),
        ..Default::default()
    };
    // Head files in Latin-1 and with NUL bytes come back byte-exact; two
    // paths with one content are stored once.
    let latin1 = b"caf\xe9 = 1\n\x00\n".to_vec();
    bundle.head_files.insert("a.py".into(), latin1.clone());
    bundle.head_files.insert("copy/a.py".into(), latin1);
    bundle.head_files.insert("b.py".into(), b"x = 2\n".to_vec());
    let bundle = Arc::new(bundle);
    let created = b
        .create_review(&record(&first), &bundle, Some("key-1"), &[])
        .await;
    assert_eq!(created.or_fail(), CreateOutcome::Created);
    let again = b
        .create_review(
            &record(&b.new_review_id(None, Some("key-1"))),
            &bundle,
            Some("key-1"),
            &[job(&first, "domain:x")],
        )
        .await;
    assert_eq!(again.or_fail(), CreateOutcome::Existing(first.clone()));
    let loaded = b.load_bundle(&first).await.or_fail();
    assert_eq!(
        loaded.as_ref().map(|l| &l.diff),
        Some(&bundle.diff),
        "diff bytes kept exactly"
    );
    assert_eq!(
        loaded.map(|l| l.head_files.clone()),
        Some(bundle.head_files.clone()),
        "head files kept exactly"
    );
    assert_eq!(b.active_reviews().await.or_fail(), vec![first.clone()]);

    let (result, finished) = settled("domain:a");
    assert!(b.settle_lane(&first, &result, &finished).await.or_fail());
    assert!(
        !b.settle_lane(&first, &result, &finished).await.or_fail(),
        "second settle ignored"
    );
    assert_eq!(b.lane_results(&first).await.or_fail().len(), 1);
    assert_eq!(b.settled_count(&first).await.or_fail(), 1);
    assert_eq!(b.settled_count(&ReviewId::new()).await.or_fail(), 0);
    assert!(b.lane_settled(&first, "domain:a").await.or_fail());
    assert!(!b.lane_settled(&first, "domain:b").await.or_fail());
    assert!(!b.lane_settled(&ReviewId::new(), "domain:a").await.or_fail());
    // Nothing is stored for a review the store does not hold (one that
    // expired): no settled lane, no events.
    let gone = ReviewId::new();
    assert!(!b.settle_lane(&gone, &result, &finished).await.or_fail());
    b.push_events(&gone, std::slice::from_ref(&finished))
        .await
        .or_fail();
    assert!(b.lane_results(&gone).await.or_fail().is_empty());
    assert!(b.read_events(&gone, "0", SHORT).await.or_fail().is_empty());

    // The settle's event was written with it, once.
    let events = [
        finished,
        ProgressEvent::LaneDispatched {
            lane_id: "domain:a".into(),
            attempt: 1,
        },
        ProgressEvent::Cancelled,
    ];
    b.push_event(&first, &events[1]).await.or_fail();
    b.push_events(&first, &events[2..]).await.or_fail();
    b.push_events(&first, &[]).await.or_fail();
    let all = b.read_events(&first, "0", SHORT).await.or_fail();
    assert_eq!(
        all.iter().map(|(_, e)| e.clone()).collect::<Vec<_>>(),
        events
    );
    let after_first = b.read_events(&first, &all[0].0, SHORT).await.or_fail();
    assert_eq!(after_first.len(), 2);

    // Finishing appends the review's last events with the report.
    let verdict = ProgressEvent::Verdict {
        verdict: Verdict::Approve,
        gate: Gate::MergeReady,
    };
    finish(
        &b,
        &record(&first),
        "{\"report\":1}",
        std::slice::from_ref(&verdict),
    )
    .await;
    let last = b.read_events(&first, &all[2].0, SHORT).await.or_fail();
    assert_eq!(
        last.into_iter().map(|(_, e)| e).collect::<Vec<_>>(),
        [verdict]
    );
    assert!(b.active_reviews().await.or_fail().is_empty());
    let rec = b.load_record(&first).await.or_fail();
    assert_eq!(rec.map(|r| r.phase), Some(ReviewPhase::Finished));
    let rep = b.load_report(&first).await.or_fail();
    assert_eq!(rep.as_deref(), Some("{\"report\":1}"));
}

async fn lease_extension_and_release_follow_the_holder<B: JobQueue + ReviewStore>(b: B) {
    let id = ReviewId::new();
    b.publish_job(&job(&id, "domain:a")).await.or_fail();
    let d = take(&b, "holder").await;
    tokio::time::sleep(Duration::from_millis(120)).await;
    // A live holder refreshes its lease: no longer idle enough to reclaim.
    assert!(b.extend_lease("holder", &d.entry).await.or_fail());
    let early = b
        .reclaim_jobs("other", &rules(), Duration::from_millis(100), 10)
        .await;
    assert!(early.or_fail().is_empty(), "extended lease was reclaimed");
    // Someone who does not hold it cannot extend it.
    assert!(!b.extend_lease("stranger", &d.entry).await.or_fail());
    // Released, it is reclaimable at once, whatever the lease.
    b.release_job("holder", &d.entry).await.or_fail();
    let claimed = b
        .reclaim_jobs("other", &rules(), Duration::from_secs(3600), 10)
        .await;
    assert_eq!(claimed.or_fail().len(), 1);
    // And the old holder has lost it.
    assert!(!b.extend_lease("holder", &d.entry).await.or_fail());
}

async fn trimming_never_removes_undelivered_or_pending_entries<B: JobQueue + ReviewStore>(b: B) {
    let id = ReviewId::new();
    for lane in ["a", "b", "c", "d"] {
        b.publish_job(&job(&id, lane)).await.or_fail();
    }
    let done = take(&b, "c1").await;
    b.complete_job(&done.entry, &report(done.payload.as_ref().or_fail()))
        .await
        .or_fail();
    let held = take_job(&b, "c1", SHORT).await.or_fail();
    assert!(held.is_some());
    b.trim_acknowledged().await.or_fail();
    let depth = b.job_backlog().await.or_fail();
    assert_eq!(
        (depth.pending, depth.undelivered),
        (1, 2),
        "trim kept the held and the undelivered"
    );
    // Both undelivered jobs are still delivered, in order.
    let third = take_job(&b, "c2", SHORT).await.or_fail();
    let fourth = take_job(&b, "c2", SHORT).await.or_fail();
    let lane = |d: Option<revu_queue::Delivery<LaneJob>>| {
        d.and_then(|d| d.payload.ok())
            .map(|j| j.lane.id)
            .unwrap_or_default()
    };
    assert_eq!(
        (lane(third), lane(fourth)),
        ("c".to_owned(), "d".to_owned())
    );
}

async fn creation_dispatches_lanes_and_retries_are_dispatched_once<B: JobQueue + ReviewStore>(
    b: B,
) {
    let id = ReviewId::new();
    let jobs = [job(&id, "domain:a"), job(&id, "specialist:security")];
    let created = b
        .create_review(&record(&id), &Arc::default(), None, &jobs)
        .await;
    assert_eq!(created.or_fail(), CreateOutcome::Created);
    let attempts = b.lane_attempts(&id).await.or_fail();
    assert_eq!(attempts.get("domain:a").map(|a| a.awaited), Some(1));
    assert_eq!(b.job_backlog().await.or_fail().undelivered, 2);

    let mut retry = jobs[0].clone();
    retry.attempt = 2;
    assert!(b.advance_and_dispatch(&retry, 1, false).await.or_fail());
    // The same transition a second time (a duplicate report) does nothing.
    assert!(!b.advance_and_dispatch(&retry, 1, false).await.or_fail());
    assert_eq!(b.job_backlog().await.or_fail().undelivered, 3);

    // The completeness gate sends a lane back once, never twice.
    let mut gate = retry.clone();
    gate.attempt = 3;
    assert!(b.advance_and_dispatch(&gate, 2, true).await.or_fail());
    let mut again = gate.clone();
    again.attempt = 4;
    assert!(!b.advance_and_dispatch(&again, 3, true).await.or_fail());
    let attempts = b.lane_attempts(&id).await.or_fail();
    assert_eq!(
        attempts.get("domain:a"),
        Some(&LaneAttempts {
            awaited: 3,
            gate_rejected: Some(2)
        })
    );
}

/// A retry with a delay waits beside its stream, not in a worker's hands:
/// other jobs are taken meanwhile, and the retry comes when it is due,
/// waking a consumer that is already waiting.
async fn a_delayed_retry_is_held_back_until_due<B: JobQueue + ReviewStore + BackendClock>(b: B) {
    let id = ReviewId::new();
    let jobs = [job(&id, "domain:a"), job(&id, "domain:b")];
    b.create_review(&record(&id), &Arc::default(), None, &jobs)
        .await
        .or_fail();
    let first = take(&b, "c1").await;
    let delay = Duration::from_millis(600);
    let mut retry = first.payload.clone().or_fail();
    retry.attempt = 2;
    // Due `delay` from here: the bounds below are measured from this
    // moment, not from after the steps between (which a loaded machine
    // may take a while over).
    let set = tokio::time::Instant::now();
    retry.not_before_ms = b.clock().now_ms() + u64::try_from(delay.as_millis()).or_fail();
    b.complete_job(&first.entry, &report(&jobs[0]))
        .await
        .or_fail();
    assert!(b.advance_and_dispatch(&retry, 1, false).await.or_fail());
    assert_eq!(b.job_backlog().await.or_fail().delayed, 1);
    // The other lane is taken at once; the retry is not there yet.
    let other = take(&b, "c1").await;
    assert_eq!(
        other.payload.as_ref().map(|j| j.lane.id.as_str()).ok(),
        Some("domain:b")
    );
    assert!(
        take_job(&b, "c2", SHORT).await.or_fail().is_none(),
        "delivered before it was due"
    );
    // A read that waits longer than the delay gets it once it is due.
    let got = take_job(&b, "c2", delay * 4).await.or_fail();
    let got = got.unwrap_or_else(|| panic!("the delayed retry never came"));
    assert!(
        set.elapsed() >= delay - SHORT,
        "came early, {:?} after it was set {delay:?} ahead",
        set.elapsed()
    );
    assert!(
        set.elapsed() < delay * 3,
        "came late, {:?} after it was set {delay:?} ahead",
        set.elapsed()
    );
    assert_eq!(got.payload.as_ref().ok(), Some(&retry));
    assert_eq!(b.job_backlog().await.or_fail().delayed, 0);
}

async fn a_planned_lane_is_dispatched_once_and_only_while_active<B: JobQueue + ReviewStore>(b: B) {
    let id = ReviewId::new();
    let first = job(&id, "domain:a");
    let mut planned = record(&id);
    let late = job(&id, "domain:b");
    Arc::make_mut(&mut planned.plan).lanes = vec![first.lane.clone(), late.lane.clone()];
    b.create_review(
        &planned,
        &Arc::default(),
        None,
        std::slice::from_ref(&first),
    )
    .await
    .or_fail();
    assert!(b.dispatch_planned(&late).await.or_fail());
    // A second coordinator (or a repeated sweep) sends nothing.
    assert!(!b.dispatch_planned(&late).await.or_fail());
    assert!(!b.dispatch_planned(&first).await.or_fail());
    let attempts = b.lane_attempts(&id).await.or_fail();
    assert_eq!(attempts.get("domain:b").map(|a| a.awaited), Some(1));
    assert_eq!(b.job_backlog().await.or_fail().undelivered, 2);

    // A cancelled review gets no lane dispatched.
    let other = ReviewId::new();
    b.create_review(&record(&other), &Arc::default(), None, &[])
        .await
        .or_fail();
    move_to(&b, &record(&other), ReviewPhase::Cancelled, &[]).await;
    assert!(!b.dispatch_planned(&job(&other, "domain:a")).await.or_fail());
    let stored = b.load_record(&other).await.or_fail();
    assert_eq!(stored.map(|r| r.phase), Some(ReviewPhase::Cancelled));
    assert_eq!(b.job_backlog().await.or_fail().undelivered, 2);
}

async fn jobs_reach_only_consumers_of_their_engine<B: JobQueue + ReviewStore>(b: B) {
    let id = ReviewId::new();
    let mut model = job(&id, "specialist:security");
    model.lane.engine = "llm".into();
    b.publish_job(&model).await.or_fail();
    b.publish_job(&job(&id, "domain:core")).await.or_fail();
    assert_eq!(b.workers_for("llm").await.or_fail(), 0);
    // A rules worker gets the rules job, never the model's.
    let got = b.take_jobs("rules-worker", &rules(), SHORT).await.or_fail();
    let lanes: Vec<String> = got
        .iter()
        .filter_map(|d| d.payload.as_ref().ok().map(|j| j.lane.id.clone()))
        .collect();
    assert_eq!(lanes, ["domain:core"]);
    assert!(
        b.take_jobs("rules-worker", &rules(), SHORT)
            .await
            .or_fail()
            .is_empty()
    );
    assert_eq!(b.job_backlog().await.or_fail().undelivered, 1);
    // A worker offering both engines reads both streams.
    let both = ["llm".to_owned(), "rules".to_owned()];
    let got = b.take_jobs("model-worker", &both, SHORT).await.or_fail();
    let d = got
        .first()
        .unwrap_or_else(|| panic!("the model job waits for a model worker"));
    assert_eq!(d.payload.as_ref().or_fail().lane.engine, "llm");
    assert!(b.workers_for("llm").await.or_fail() >= 1);
    // Its handle works like any other: lease, completion.
    assert!(b.extend_lease("model-worker", &d.entry).await.or_fail());
    b.complete_job(&d.entry, &report(d.payload.as_ref().or_fail()))
        .await
        .or_fail();
    assert_eq!(b.job_backlog().await.or_fail().pending, 1, "the rules job");
}

async fn each_engine_stream_says_its_depth_and_oldest_entry<B: JobQueue + ReviewStore>(b: B) {
    let id = ReviewId::new();
    let mut model = job(&id, "specialist:security");
    model.lane.engine = "llm".into();
    b.publish_job(&model).await.or_fail();
    b.publish_job(&job(&id, "domain:core")).await.or_fail();
    b.publish_job(&job(&id, "domain:api")).await.or_fail();
    let waited = Duration::from_millis(30);
    tokio::time::sleep(waited).await;
    let got = b.take_jobs("rules-worker", &rules(), SHORT).await.or_fail();
    assert_eq!(got.len(), 1, "one job a read");
    let depth = b.job_backlog().await.or_fail();
    let of = |engine: &str| -> (u64, u64, u64) {
        depth
            .streams
            .iter()
            .filter(|s| s.engine == engine)
            .fold((0, 0, 0), |(p, u, age), s| {
                (p + s.pending, u + s.undelivered, age.max(s.oldest_age_ms))
            })
    };
    let (pending, undelivered, rules_age) = of("rules");
    assert_eq!((pending, undelivered), (1, 1), "{depth:?}");
    let (pending, undelivered, llm_age) = of("llm");
    assert_eq!((pending, undelivered), (0, 1), "{depth:?}");
    // Both have waited at least as long as the sleep above; the clocks
    // (Redis's, this process's) count whole milliseconds.
    let at_least = u64::try_from(waited.as_millis()).unwrap_or(u64::MAX) - 1;
    assert!(rules_age >= at_least && llm_age >= at_least, "{depth:?}");
    // The totals are the streams' sums.
    let sum = |f: fn(&revu_queue::StreamDepth) -> u64| depth.streams.iter().map(f).sum::<u64>();
    assert_eq!(depth.pending, sum(|s| s.pending));
    assert_eq!(depth.undelivered, sum(|s| s.undelivered));
    // Once every job is acknowledged, nothing is old.
    let mut all = got;
    all.extend(b.take_jobs("rules-worker", &rules(), SHORT).await.or_fail());
    let both = ["llm".to_owned()];
    all.extend(b.take_jobs("model-worker", &both, SHORT).await.or_fail());
    for d in &all {
        b.complete_job(&d.entry, &report(d.payload.as_ref().or_fail()))
            .await
            .or_fail();
    }
    let depth = b.job_backlog().await.or_fail();
    assert!(
        depth
            .streams
            .iter()
            .all(|s| s.oldest_age_ms == 0 && s.pending == 0),
        "{depth:?}"
    );
}

macro_rules! conformance {
    (paused: [$($case:ident),* $(,)?], raced: [$($raced:ident),* $(,)?] $(,)?) => {
        mod memory {
            $(
                #[tokio::test(start_paused = true)]
                async fn $case() {
                    super::$case(super::memory_on_tokio_time()).await;
                }
            )*
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $raced() {
                    super::$raced(super::MemoryBackend::new()).await;
                }
            )*
        }
        mod redis_streams {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $case() {
                    let server = super::RedisServer::start();
                    super::$case(super::redis_backend(&server).await).await;
                }
            )*
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $raced() {
                    let server = super::RedisServer::start();
                    super::$raced(super::redis_backend(&server).await).await;
                }
            )*
        }
        /// Every case on one real six-node Redis Cluster, in turn, each
        /// under a key prefix of its own.
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn redis_cluster_passes_every_case() {
            let cluster = RedisCluster::start();
            $(
                eprintln!("cluster case {}", stringify!($case));
                $case(cluster_backend(&cluster, stringify!($case)).await).await;
            )*
            $(
                eprintln!("cluster case {}", stringify!($raced));
                $raced(cluster_backend(&cluster, stringify!($raced)).await).await;
            )*
        }
    };
}

async fn cluster_backend(cluster: &RedisCluster, case: &str) -> RedisBackend {
    let options = RedisOptions {
        cluster: true,
        ..RedisOptions::default()
    };
    let prefix = format!("{}-{case}", cluster.prefix);
    RedisBackend::connect_with(&cluster.seeds(), &options, &prefix)
        .await
        .unwrap_or_else(|e| panic!("connecting to the cluster {}: {e}", cluster.seeds()))
}

conformance!(
    paused: [
        job_is_delivered_once_and_acked_with_its_report,
        empty_queue_waits_then_returns_nothing,
        silent_consumer_jobs_are_reclaimed_after_idle,
        dead_letter_acknowledges_and_counts,
        store_is_idempotent_and_settles_each_lane_once,
        lease_extension_and_release_follow_the_holder,
        trimming_never_removes_undelivered_or_pending_entries,
        creation_dispatches_lanes_and_retries_are_dispatched_once,
        a_delayed_retry_is_held_back_until_due,
        a_planned_lane_is_dispatched_once_and_only_while_active,
        jobs_reach_only_consumers_of_their_engine,
        each_engine_stream_says_its_depth_and_oldest_entry,
        tenants_have_their_own_reviews_and_idempotency_keys,
        quotas_charge_within_a_window_and_refuse_past_the_limit,
        the_lane_cache_keeps_a_body_until_it_expires,
        a_large_diff_is_stored_whole,
        a_large_record_reads_back_whole,
        a_phase_moves_only_from_the_phase_it_leaves,
    ],
    raced: [cancel_and_finish_race_and_exactly_one_wins],
);

#[tokio::test]
async fn redis_a_staged_diff_is_kept_in_a_key_of_its_own() {
    let server = RedisServer::start();
    let b = redis_backend(&server).await;
    a_large_diff_is_stored_whole(b).await;
    let client = redis::Client::open(server.url.as_str()).or_fail();
    let mut conn = client.get_multiplexed_async_connection().await.or_fail();
    let left: Vec<String> = redis::cmd("KEYS")
        .arg("*diff-staging*")
        .query_async(&mut conn)
        .await
        .or_fail();
    assert!(left.is_empty(), "staging keys left: {left:?}");
    // The diff stays in a key of its own, which does not expire.
    let apart: Vec<String> = redis::cmd("KEYS")
        .arg("*:review:*:diff")
        .query_async(&mut conn)
        .await
        .or_fail();
    assert_eq!(apart.len(), 1, "diff keys: {apart:?}");
    let ttl: i64 = redis::cmd("TTL")
        .arg(&apart[0])
        .query_async(&mut conn)
        .await
        .or_fail();
    assert_eq!(ttl, -1, "the staging key's expiry went with it");
}
