//! A fleet on a real Redis Cluster: a coordinator and two workers started
//! with `--redis-cluster` against six loopback `redis-server --cluster-enabled
//! yes` nodes (three masters, three replicas). Reviews finish before a
//! master is killed, while it fails over to its replica, and after: each
//! `revu submit` prints a report with every lane COMPLETE, and nothing
//! submitted is lost.

use revu_queue::redis::layout::key_shard;
use revu_tests::procs::{drain, joined, wait_bounded};
use revu_tests::{Cluster, RedisCluster, bin, example};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Each lane of the test's reviews sleeps this long on a worker.
const LANE_MS: &str = "300";

struct Submitting {
    key: String,
    child: Child,
    stdout: std::thread::JoinHandle<String>,
    stderr: std::thread::JoinHandle<String>,
}

fn submit(fleet: &Cluster, key: &str) -> Submitting {
    let mut child = Command::new(bin("revu"))
        .args(["submit", "--format", "json", "--timeout", "180"])
        .arg("--diff")
        .arg(example("multi-file.patch"))
        .args(["--idempotency-key", key])
        .arg("--coordinator")
        .arg(fleet.endpoint())
        .env_remove("REVU_COORDINATOR")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("starting revu submit: {e}"));
    let (stdout, stderr) = (drain(child.stdout.take()), drain(child.stderr.take()));
    Submitting {
        key: key.to_owned(),
        child,
        stdout,
        stderr,
    }
}

/// Waits for `s` and checks its report: a verdict, every lane COMPLETE.
fn finished(mut s: Submitting) -> serde_json::Value {
    let status = wait_bounded(&mut s.child, Duration::from_secs(200), "revu submit");
    let (stdout, stderr) = (joined(s.stdout), joined(s.stderr));
    let status = status.unwrap_or_else(|| panic!("{}: no exit; stderr:\n{stderr}", s.key));
    assert!(
        matches!(status.code(), Some(0 | 1)),
        "{}: exit {status:?}; stderr:\n{stderr}",
        s.key
    );
    let report: serde_json::Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{}: not a report ({e}); stderr:\n{stderr}", s.key));
    let lanes = report["lanes"].as_array().cloned().unwrap_or_default();
    assert!(!lanes.is_empty(), "{}: {report}", s.key);
    assert!(
        lanes.iter().all(|l| l["outcome"] == "COMPLETE"),
        "{}: a lane not COMPLETE: {report}",
        s.key
    );
    assert!(report["verdict"].is_string(), "{}: {report}", s.key);
    report
}

fn fleet_on(redis: &RedisCluster) -> Cluster {
    let mut fleet = Cluster::start_coordinator_only(
        redis.handle(),
        &[
            "--redis-cluster",
            "--engine",
            &format!("sleep:{LANE_MS}"),
            "--reclaim-idle-secs",
            "2",
        ],
    );
    for _ in 0..2 {
        fleet.add_worker(&[
            "--redis-cluster",
            "--sleep-engine",
            LANE_MS,
            "--concurrency",
            "8",
            "--lease-secs",
            "3",
        ]);
    }
    fleet
}

#[test]
fn a_fleet_on_redis_cluster_finishes_reviews_across_a_master_failover() {
    let mut redis = RedisCluster::start();
    let fleet = fleet_on(&redis);
    let _ = &fleet;

    // Before: reviews in every corner of the key space finish.
    let before: Vec<Submitting> = (0..4)
        .map(|i| submit(&fleet, &format!("before-{i}")))
        .collect();
    let verdicts: Vec<serde_json::Value> = before.into_iter().map(finished).collect();
    let first = &verdicts[0];

    // During: reviews in flight when the master serving the first one's
    // shard is SIGKILLed.
    let during: Vec<Submitting> = (0..6)
        .map(|i| submit(&fleet, &format!("during-{i}")))
        .collect();
    let shard = key_shard(None, "during-0");
    let slot = redis.slot_of(&format!("{{{}:{shard}}}", redis.prefix));
    let master = redis.master_of(slot);
    // Mid-run: the first lane reports of that shard are in, more lanes
    // still run.
    let results = format!("{{{}:{shard}}}:results", redis.prefix);
    let started = Instant::now();
    while redis
        .query_node::<u64>(master, redis::cmd("XLEN").arg(&results))
        .unwrap_or(0)
        < 1
    {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no lane report on {results} within 60 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    redis.kill(master);
    let promoted = redis.wait_failover(slot, master, Duration::from_secs(60));
    eprintln!("master on port {master} killed; its replica on port {promoted} took slot {slot}");
    for s in during {
        let report = finished(s);
        assert_eq!(report["verdict"], first["verdict"], "{report}");
    }

    // After: the cluster with one master fewer serves new reviews.
    let after: Vec<Submitting> = (0..4)
        .map(|i| submit(&fleet, &format!("after-{i}")))
        .collect();
    for s in after {
        finished(s);
    }

    // Nothing lost, nothing twice: one review per key.
    let reviews = count_reviews(&mut redis);
    assert_eq!(reviews, 14, "one review per submitted key");
}

/// Review hashes over every master of the cluster.
fn count_reviews(redis: &mut RedisCluster) -> usize {
    let pattern = format!("{{{}:?}}:review:*", redis.prefix);
    let ports: Vec<u16> = redis.nodes.iter().map(|n| n.port).collect();
    let mut seen = std::collections::BTreeSet::new();
    for port in ports {
        let is_master = redis
            .query_node::<Vec<redis::Value>>(port, &redis::cmd("ROLE"))
            .and_then(|r| r.first().cloned())
            .and_then(|v| redis::from_redis_value_ref::<String>(&v).ok())
            .is_some_and(|r| r == "master");
        if !is_master {
            continue;
        }
        let keys: Vec<String> = redis
            .query_node(port, redis::cmd("KEYS").arg(&pattern))
            .unwrap_or_default();
        seen.extend(keys.into_iter().filter(|k| {
            k.split_once("}:review:")
                .is_some_and(|(_, id)| !id.contains(':'))
        }));
    }
    seen.len()
}
