//! Fault injection with real processes and a real redis-server: killed
//! workers, a killed coordinator, a restarted Redis, lanes that always fail,
//! malformed reports, lanes slower than their lease.

use revu_proto::v1 as pb;
use revu_proto::v1::review_event::Kind;
use revu_tests::client::kind;
use revu_tests::{Client, Cluster, RedisServer, example, fault_engine};
use serde_json::Value;
use std::time::{Duration, Instant};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Runtime::new().unwrap_or_else(|e| panic!("runtime: {e}"))
}

fn diff(name: &str) -> Vec<u8> {
    std::fs::read(example(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn report(r: &pb::GetReviewResponse) -> Value {
    serde_json::from_str(&r.report_json)
        .unwrap_or_else(|e| panic!("report JSON: {e}: {}", r.report_json))
}

fn lanes(report: &Value) -> Vec<Value> {
    report["lanes"].as_array().cloned().unwrap_or_default()
}

/// Waits until some lane of `id` has started.
fn wait_lane_started(rt: &tokio::runtime::Runtime, client: &mut Client, id: &str) {
    let found = rt.block_on(async {
        tokio::time::timeout(
            Duration::from_secs(20),
            client.events_until(id, Kind::LaneStarted),
        )
        .await
    });
    assert!(
        matches!(found, Ok(true)),
        "no lane of {id} started within 20s"
    );
}

#[test]
fn worker_killed_while_holding_a_lane_the_lane_completes_on_another() {
    let rt = runtime();
    let slow = format!("slow={}", fault_engine("clean 2"));
    let mut cluster = Cluster::start_coordinator_only(RedisServer::start(), &["--engine", "slow"]);
    let first = cluster.add_worker(&["--lease-secs", "1", "--exec-engine", &slow]);
    let mut client = rt.block_on(Client::connect(
        &cluster.endpoint(),
        Duration::from_secs(10),
    ));
    let id = rt
        .block_on(client.submit(diff("docs-only.patch"), ""))
        .unwrap_or_else(|e| panic!("submit: {e}"));
    wait_lane_started(&rt, &mut client, &id);
    cluster.workers[first].kill();
    cluster.add_worker(&["--lease-secs", "1", "--exec-engine", &slow]);

    let done = rt.block_on(client.wait_terminal(&id, Duration::from_secs(30)));
    let r = report(&done);
    assert_eq!(r["gate"], "MERGE-READY", "{r}");
    assert!(lanes(&r).iter().all(|l| l["outcome"] == "COMPLETE"), "{r}");
    let events = rt.block_on(client.events(&id));
    let workers: std::collections::BTreeSet<&str> = events
        .iter()
        .filter(|e| kind(e) == Kind::LaneStarted)
        .map(|e| e.worker.as_str())
        .collect();
    assert_eq!(
        workers.len(),
        2,
        "the lane ran on the killed worker, then on another: {workers:?}"
    );
}

#[test]
fn worker_dying_after_its_engine_reported_loses_nothing() {
    let rt = runtime();
    let mut cluster = Cluster::start_coordinator_only(RedisServer::start(), &[]);
    cluster.add_worker(&["--lease-secs", "1", "--failpoint", "exit-after-engine"]);
    let mut client = rt.block_on(Client::connect(
        &cluster.endpoint(),
        Duration::from_secs(10),
    ));
    let id = rt
        .block_on(client.submit(diff("secret-and-unwrap.patch"), ""))
        .unwrap_or_else(|e| panic!("submit: {e}"));
    // The first worker exits holding its first lane; a healthy one takes over.
    let started = Instant::now();
    while cluster.workers[0].running() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "failpoint never hit"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    cluster.add_worker(&["--lease-secs", "1"]);
    let done = rt.block_on(client.wait_terminal(&id, Duration::from_secs(30)));
    let r = report(&done);
    assert_eq!(r["verdict"], "REQUEST CHANGES", "{r}");
    assert!(lanes(&r).iter().all(|l| l["outcome"] == "COMPLETE"), "{r}");
    let cited: Vec<String> = r["findings"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|f| format!("{}:{}", f["file"].as_str().unwrap_or(""), f["line"]))
        .collect();
    assert!(
        cited.contains(&"src/billing/client.rs:3".to_owned()),
        "{cited:?}"
    );
}

#[test]
fn always_failing_lane_is_dead_lettered_after_exactly_n_attempts() {
    let rt = runtime();
    let failing = format!("flaky={}", fault_engine("fail"));
    let mut cluster = Cluster::start_coordinator_only(
        RedisServer::start(),
        &[
            "--lane-engine",
            "domain:*=flaky",
            "--engine-retry",
            "flaky=3:50",
        ],
    );
    cluster.add_worker(&["--exec-engine", &failing]);
    let mut client = rt.block_on(Client::connect(
        &cluster.endpoint(),
        Duration::from_secs(10),
    ));
    let id = rt
        .block_on(client.submit(diff("docs-only.patch"), ""))
        .unwrap_or_else(|e| panic!("submit: {e}"));
    let done = rt.block_on(client.wait_terminal(&id, Duration::from_secs(30)));
    let r = report(&done);
    assert_eq!(r["gate"], "NEEDS-HUMAN", "{r}");
    let lane = lanes(&r)
        .into_iter()
        .find(|l| l["id"] == "domain:docs")
        .unwrap_or_default();
    assert_eq!(lane["outcome"], "PIPELINE-FAULT", "{lane}");
    assert_eq!(lane["attempts"], 3, "{lane}");
    let banner = lane["banner"].as_str().unwrap_or_default();
    assert!(
        banner.contains("simulated outage"),
        "fault reason in the report: {banner}"
    );
    let reasons = r["gate_reasons"].to_string();
    assert!(
        reasons.contains("domain:docs"),
        "gate names the faulted lane: {reasons}"
    );
    let events = rt.block_on(client.events(&id));
    assert_eq!(
        events
            .iter()
            .filter(|e| kind(e) == Kind::LaneRetried)
            .count(),
        2
    );
    assert_eq!(
        events
            .iter()
            .filter(|e| kind(e) == Kind::LaneFaulted)
            .count(),
        1
    );
    // And it is on the dead-letter stream with its reason.
    let redis = redis::Client::open(cluster.redis.url.as_str()).unwrap_or_else(|e| panic!("{e}"));
    let mut conn = redis.get_connection().unwrap_or_else(|e| panic!("{e}"));
    let dead: redis::streams::StreamRangeReply = redis::cmd("XRANGE")
        .arg(format!("{}:dead", cluster.redis.prefix))
        .arg("-")
        .arg("+")
        .query(&mut conn)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(dead.ids.len(), 1);
    let reason: String = dead.ids[0].get("reason").unwrap_or_default();
    assert!(reason.contains("simulated outage"), "{reason}");
}

#[test]
fn malformed_reports_are_sent_back_once_then_kept_as_incomplete() {
    let rt = runtime();
    let malformed = format!("broken={}", fault_engine("malformed"));
    let mut cluster =
        Cluster::start_coordinator_only(RedisServer::start(), &["--engine", "broken"]);
    cluster.add_worker(&["--exec-engine", &malformed]);
    let mut client = rt.block_on(Client::connect(
        &cluster.endpoint(),
        Duration::from_secs(10),
    ));
    let id = rt
        .block_on(client.submit(diff("docs-only.patch"), ""))
        .unwrap_or_else(|e| panic!("submit: {e}"));
    let done = rt.block_on(client.wait_terminal(&id, Duration::from_secs(30)));
    let r = report(&done);
    assert_eq!(r["gate"], "NEEDS-HUMAN", "{r}");
    let lane = lanes(&r).into_iter().next().unwrap_or_default();
    assert_eq!(lane["outcome"], "INCOMPLETE", "{lane}");
    assert_eq!(lane["attempts"], 2, "rejected back exactly once: {lane}");
    let banner = lane["banner"].as_str().unwrap_or_default();
    assert!(banner.contains("missing section `checks`"), "{banner}");
    assert!(banner.contains("`findings` is a string"), "{banner}");
}

#[test]
fn lane_slower_than_its_lease_keeps_it_while_alive() {
    let rt = runtime();
    let slow = format!("slow={}", fault_engine("clean 3"));
    let mut cluster = Cluster::start_coordinator_only(RedisServer::start(), &["--engine", "slow"]);
    cluster.add_worker(&["--lease-secs", "1", "--exec-engine", &slow]);
    cluster.add_worker(&["--lease-secs", "1", "--exec-engine", &slow]);
    let mut client = rt.block_on(Client::connect(
        &cluster.endpoint(),
        Duration::from_secs(10),
    ));
    let id = rt
        .block_on(client.submit(diff("docs-only.patch"), ""))
        .unwrap_or_else(|e| panic!("submit: {e}"));
    let done = rt.block_on(client.wait_terminal(&id, Duration::from_secs(30)));
    let r = report(&done);
    assert!(
        lanes(&r)
            .iter()
            .all(|l| l["outcome"] == "COMPLETE" && l["attempts"] == 1),
        "{r}"
    );
    let events = rt.block_on(client.events(&id));
    let starts = events
        .iter()
        .filter(|e| kind(e) == Kind::LaneStarted)
        .count();
    assert_eq!(
        starts, 1,
        "the heartbeat kept the lease: nobody reclaimed the lane"
    );
}

/// The report of `diff` on an undisturbed cluster configured like `args`.
fn undisturbed(
    rt: &tokio::runtime::Runtime,
    coordinator_args: &[&str],
    worker_args: &[&str],
    diff_name: &str,
) -> Value {
    let mut cluster = Cluster::start_coordinator_only(RedisServer::start(), coordinator_args);
    cluster.add_worker(worker_args);
    let mut client = rt.block_on(Client::connect(
        &cluster.endpoint(),
        Duration::from_secs(10),
    ));
    let id = rt
        .block_on(client.submit(diff(diff_name), ""))
        .unwrap_or_else(|e| panic!("submit: {e}"));
    report(&rt.block_on(client.wait_terminal(&id, Duration::from_secs(60))))
}

fn without_id(mut v: Value) -> Value {
    if let Some(o) = v.as_object_mut() {
        o.remove("review_id");
    }
    v
}

#[test]
fn coordinator_killed_mid_review_resumes_with_the_same_verdict() {
    let rt = runtime();
    let slow = format!("slow={}", fault_engine("clean 1"));
    let coordinator_args = ["--lane-engine", "domain:*=slow", "--reclaim-idle-secs", "1"];
    let worker_args = ["--exec-engine", slow.as_str()];
    let expected = undisturbed(&rt, &coordinator_args, &worker_args, "multi-file.patch");

    let mut cluster = Cluster::start_coordinator_only(RedisServer::start(), &coordinator_args);
    cluster.add_worker(&worker_args);
    let mut client = rt.block_on(Client::connect(
        &cluster.endpoint(),
        Duration::from_secs(10),
    ));
    let id = rt
        .block_on(client.submit(diff("multi-file.patch"), ""))
        .unwrap_or_else(|e| panic!("submit: {e}"));
    wait_lane_started(&rt, &mut client, &id);
    cluster.kill_coordinator();
    // Lanes keep reporting into Redis while no coordinator runs.
    std::thread::sleep(Duration::from_millis(1500));
    cluster.restart_coordinator();
    let mut client = rt.block_on(Client::connect(
        &cluster.endpoint(),
        Duration::from_secs(10),
    ));
    let done = rt.block_on(client.wait_terminal(&id, Duration::from_secs(60)));
    let got = report(&done);
    assert!(
        lanes(&got).iter().all(|l| l["outcome"] == "COMPLETE"),
        "{got}"
    );
    assert_eq!(
        without_id(got),
        without_id(expected),
        "same report as an undisturbed run"
    );
    let events = rt.block_on(client.events(&id));
    let finished = events
        .iter()
        .filter(|e| kind(e) == Kind::LaneFinished)
        .count();
    let planned = lanes(&report(&done)).len();
    assert_eq!(finished, planned, "every lane settled exactly once");
}

#[test]
fn redis_restart_mid_review_loses_no_accepted_review_or_reported_lane() {
    let rt = runtime();
    let slow = format!("slow={}", fault_engine("clean 1"));
    let redis = RedisServer::start_with(&["--appendonly", "yes", "--appendfsync", "always"]);
    let mut cluster = Cluster::start_coordinator_only(redis, &["--lane-engine", "domain:*=slow"]);
    cluster.add_worker(&["--exec-engine", &slow, "--lease-secs", "2"]);
    let mut client = rt.block_on(Client::connect(
        &cluster.endpoint(),
        Duration::from_secs(10),
    ));
    let id = rt
        .block_on(client.submit(diff("multi-file.patch"), "restart-key"))
        .unwrap_or_else(|e| panic!("submit: {e}"));
    wait_lane_started(&rt, &mut client, &id);
    cluster.redis.restart(Duration::from_millis(500));
    let done = rt.block_on(client.wait_terminal(&id, Duration::from_secs(90)));
    let r = report(&done);
    assert!(lanes(&r).iter().all(|l| l["outcome"] == "COMPLETE"), "{r}");
    assert_eq!(r["verdict"], "REQUEST CHANGES");
    // The idempotency key survived too.
    let again = rt
        .block_on(client.submit(diff("multi-file.patch"), "restart-key"))
        .unwrap_or_else(|e| panic!("resubmit: {e}"));
    assert_eq!(again, id);
}
