//! The soak: 200 concurrent reviews while workers are killed and restarted
//! at random; a history checker asserts that every review reached exactly
//! one terminal state, every lane settled once, and nothing stayed pending.
//!
//! Bounded: a fixed number of reviews and kills, and a time limit on every
//! wait. `REVU_SOAK_REVIEWS` changes the number of reviews.

use revu_queue::redis::layout::shards;
use revu_tests::history::{ReviewHistory, check};
use revu_tests::{Client, Cluster, RedisServer, example, fault_engine};
use std::time::{Duration, Instant};

/// The delivery counters' key.
fn layout_stats(prefix: &str) -> String {
    format!("{prefix}:stats")
}

const WORKERS: usize = 3;
const KILLS: usize = 12;
const KILL_EVERY: Duration = Duration::from_millis(700);

fn pending(conn: &mut redis::Connection, key: &str, group: &str) -> u64 {
    let reply: redis::Value = redis::cmd("XPENDING")
        .arg(key)
        .arg(group)
        .query(conn)
        .unwrap_or_else(|e| panic!("XPENDING {key}: {e}"));
    match &reply {
        redis::Value::Array(items) => items
            .first()
            .and_then(|v| redis::from_redis_value_ref::<u64>(v).ok())
            .unwrap_or(u64::MAX),
        _ => u64::MAX,
    }
}

#[test]
fn soak_with_random_worker_kills_keeps_every_invariant() {
    let reviews: usize = std::env::var("REVU_SOAK_REVIEWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let rt = tokio::runtime::Runtime::new().unwrap_or_else(|e| panic!("{e}"));
    let jitter = format!("jitter={}", fault_engine("jitter 0.3"));
    let worker_args = [
        "--lease-secs",
        "2",
        "--concurrency",
        "4",
        "--exec-engine",
        jitter.as_str(),
    ];
    let mut cluster = Cluster::start_coordinator_only(
        RedisServer::start(),
        &[
            "--lane-engine",
            "domain:*=jitter",
            "--reclaim-idle-secs",
            "2",
        ],
    );
    for _ in 0..WORKERS {
        cluster.add_worker(&worker_args);
    }
    let diffs: Vec<Vec<u8>> = [
        "multi-file.patch",
        "secret-and-unwrap.patch",
        "docs-only.patch",
    ]
    .iter()
    .map(|n| std::fs::read(example(n)).unwrap_or_else(|e| panic!("{n}: {e}")))
    .collect();
    let endpoint = cluster.endpoint();

    // Submit everything at once, then wait for all of it in the background
    // while this thread kills and restarts workers.
    let run = rt.spawn(async move {
        let client = Client::connect(&endpoint, Duration::from_secs(10)).await;
        let mut tasks = tokio::task::JoinSet::new();
        for i in 0..reviews {
            let mut c = client.clone();
            let d = diffs[i % diffs.len()].clone();
            tasks.spawn(async move {
                let started = Instant::now();
                let id = c
                    .submit(d, &format!("soak-{i}"))
                    .await
                    .unwrap_or_else(|e| panic!("submit {i}: {e}"));
                let done = c.wait_terminal(&id, Duration::from_secs(240)).await;
                let seconds = started.elapsed().as_secs_f64();
                let events = c.events(&id).await;
                let report = serde_json::from_str(&done.report_json).unwrap_or_default();
                ReviewHistory {
                    id,
                    final_state: done.state,
                    report,
                    events,
                    seconds,
                }
            });
        }
        let mut out = Vec::with_capacity(reviews);
        while let Some(h) = tasks.join_next().await {
            out.push(h.unwrap_or_else(|e| panic!("review task: {e}")));
        }
        out
    });

    let mut kills = 0;
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    while kills < KILLS && !run.is_finished() {
        std::thread::sleep(KILL_EVERY);
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let victim = usize::try_from(seed % WORKERS as u64).unwrap_or(0);
        cluster.restart_worker(victim, &worker_args);
        kills += 1;
    }
    let histories = rt.block_on(run).unwrap_or_else(|e| panic!("soak run: {e}"));
    assert_eq!(histories.len(), reviews);
    let figures = check(&histories).unwrap_or_else(|problems| {
        panic!(
            "{} invariant violation(s):\n{}",
            problems.len(),
            problems.join("\n")
        )
    });

    // Nothing left pending on either stream.
    let redis = redis::Client::open(cluster.redis.url.as_str()).unwrap_or_else(|e| panic!("{e}"));
    let mut conn = redis.get_connection().unwrap_or_else(|e| panic!("{e}"));
    let prefix = cluster.redis.prefix.clone();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        // Domain lanes run `jitter`, specialist lanes `rules`.
        let layout = cluster.redis.layout();
        let jobs = shards()
            .flat_map(|s| ["jitter", "rules"].map(|engine| layout.jobs(s, engine)))
            .map(|key| pending(&mut conn, &key, "workers"))
            .sum::<u64>();
        let results = shards()
            .map(|s| pending(&mut conn, &layout.sharded(s, "results"), "coordinators"))
            .sum::<u64>();
        if jobs == 0 && results == 0 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "pending entries remain: jobs {jobs}, results {results}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let stats: std::collections::HashMap<String, u64> = redis::cmd("HGETALL")
        .arg(layout_stats(&prefix))
        .query(&mut conn)
        .unwrap_or_default();
    let stat = |k: &str| stats.get(k).copied().unwrap_or(0);
    let line = format!(
        "soak: reviews={} lanes={} kills={kills} attempts_started={} retries={} reclaimed_reports={} \
         duplicates_suppressed={} faults={} lanes_rerun={} max_recovery_secs={:.1} max_review_secs={:.1}",
        figures.reviews,
        figures.lanes,
        figures.attempts_started,
        stat("retries"),
        stat("reports_reclaimed"),
        stat("duplicates_suppressed"),
        figures.faults,
        figures.lanes_rerun,
        figures.max_recovery_seconds,
        figures.max_review_seconds,
    );
    println!("{line}");
    let out =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/soak-figures.txt");
    let _ = std::fs::write(out, format!("{line}\n"));
    assert_eq!(
        figures.faults, 0,
        "a killed worker must never fault a lane: {line}"
    );
    assert!(kills > 0, "the soak killed no worker: {line}");
}
