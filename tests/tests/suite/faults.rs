//! Fault injection with real processes and a real redis-server: killed
//! workers, a killed coordinator, a restarted Redis, lanes that always fail,
//! malformed reports, lanes slower than their lease.

use revu_proto::v1::review_event::Kind;
use revu_queue::redis::layout::shard_of;
use revu_tests::client::kind;
use revu_tests::scenario::{Scenario, citations, count, first_lane, lanes, without_id};
use revu_tests::{RedisServer, fault_engine};
use std::collections::BTreeSet;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(30);

fn all_complete(report: &serde_json::Value) -> bool {
    lanes(report).iter().all(|l| l["outcome"] == "COMPLETE")
}

#[test]
fn worker_killed_while_holding_a_lane_the_lane_completes_on_another() {
    let slow = format!("slow={}", fault_engine("clean 2"));
    let worker = ["--lease-secs", "1", "--exec-engine", slow.as_str()];
    let mut s = Scenario::start(&["--engine", "slow"], &[&worker]);
    let id = s.submit("docs-only.patch", "");
    s.wait_lane_started(&id);
    s.cluster.workers[0].kill();
    s.cluster.add_worker(&worker);

    let r = s.report(&id, WAIT);
    assert_eq!(r["gate"], "MERGE-READY", "{r}");
    assert!(all_complete(&r), "{r}");
    let events = s.events(&id);
    let workers: BTreeSet<&str> = events
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
    let mut s = Scenario::start(
        &[],
        &[&["--lease-secs", "1", "--failpoint", "exit-after-engine"]],
    );
    let id = s.submit("secret-and-unwrap.patch", "");
    // The first worker exits holding its first lane; a healthy one takes over.
    let started = std::time::Instant::now();
    while s.cluster.workers[0].running() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "failpoint never hit"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    s.cluster.add_worker(&["--lease-secs", "1"]);
    let r = s.report(&id, WAIT);
    assert_eq!(r["verdict"], "REQUEST CHANGES", "{r}");
    assert!(all_complete(&r), "{r}");
    assert!(
        citations(&r).contains(&"src/billing/client.rs:3".to_owned()),
        "{r}"
    );
}

#[test]
fn always_failing_lane_is_dead_lettered_after_exactly_n_attempts() {
    let failing = format!("flaky={}", fault_engine("fail"));
    let mut s = Scenario::start(
        &[
            "--lane-engine",
            "domain:*=flaky",
            "--engine-retry",
            "flaky=3:50",
        ],
        &[&["--exec-engine", &failing]],
    );
    let id = s.submit("docs-only.patch", "");
    let r = s.report(&id, WAIT);
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
    let events = s.events(&id);
    assert_eq!(count(&events, Kind::LaneRetried), 2);
    assert_eq!(count(&events, Kind::LaneFaulted), 1);
    // And it is on the dead-letter stream with its reason.
    let redis = redis::Client::open(s.cluster.redis.url.as_str()).unwrap_or_else(|e| panic!("{e}"));
    let mut conn = redis.get_connection().unwrap_or_else(|e| panic!("{e}"));
    let dead: redis::streams::StreamRangeReply = redis::cmd("XRANGE")
        .arg(
            s.cluster
                .redis
                .layout()
                .sharded(shard_of(&revu_domain::lane::ReviewId(id.clone())), "dead"),
        )
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
    let malformed = format!("broken={}", fault_engine("malformed"));
    let mut s = Scenario::start(&["--engine", "broken"], &[&["--exec-engine", &malformed]]);
    let id = s.submit("docs-only.patch", "");
    let r = s.report(&id, WAIT);
    assert_eq!(r["gate"], "NEEDS-HUMAN", "{r}");
    let lane = first_lane(&r);
    assert_eq!(lane["outcome"], "INCOMPLETE", "{lane}");
    assert_eq!(lane["attempts"], 2, "rejected back exactly once: {lane}");
    let banner = lane["banner"].as_str().unwrap_or_default();
    assert!(banner.contains("missing section `checks`"), "{banner}");
    assert!(banner.contains("`findings` is a string"), "{banner}");
}

#[test]
fn lane_slower_than_its_lease_keeps_it_while_alive() {
    let slow = format!("slow={}", fault_engine("clean 3"));
    let worker = ["--lease-secs", "1", "--exec-engine", slow.as_str()];
    let mut s = Scenario::start(&["--engine", "slow"], &[&worker, &worker]);
    let id = s.submit("docs-only.patch", "");
    let r = s.report(&id, WAIT);
    assert!(
        lanes(&r)
            .iter()
            .all(|l| l["outcome"] == "COMPLETE" && l["attempts"] == 1),
        "{r}"
    );
    assert_eq!(
        count(&s.events(&id), Kind::LaneStarted),
        1,
        "the heartbeat kept the lease: nobody reclaimed the lane"
    );
}

#[test]
fn coordinator_killed_mid_review_resumes_with_the_same_verdict() {
    let slow = format!("slow={}", fault_engine("clean 1"));
    let coordinator = ["--lane-engine", "domain:*=slow", "--reclaim-idle-secs", "1"];
    let worker = ["--exec-engine", slow.as_str()];
    let expected = {
        let mut undisturbed = Scenario::start(&coordinator, &[&worker]);
        let id = undisturbed.submit("multi-file.patch", "");
        undisturbed.report(&id, Duration::from_secs(60))
    };

    let mut s = Scenario::start(&coordinator, &[&worker]);
    let id = s.submit("multi-file.patch", "");
    s.wait_lane_started(&id);
    s.cluster.kill_coordinator();
    // Lanes keep reporting into Redis while no coordinator runs.
    let reported = s.cluster.redis.stream_len("results");
    s.cluster.redis.wait_until(
        "a report written while no coordinator runs",
        Duration::from_secs(30),
        |r| r.stream_len("results") > reported,
    );
    s.cluster.restart_coordinator();
    s.reconnect();
    let got = s.report(&id, Duration::from_secs(60));
    assert!(all_complete(&got), "{got}");
    let planned = lanes(&got).len();
    assert_eq!(
        without_id(got),
        without_id(expected),
        "same report as an undisturbed run"
    );
    assert_eq!(
        count(&s.events(&id), Kind::LaneFinished),
        planned,
        "every lane settled exactly once"
    );
}

#[test]
fn redis_restart_mid_review_loses_no_accepted_review_or_reported_lane() {
    let slow = format!("slow={}", fault_engine("clean 1"));
    let redis = RedisServer::start_own_with(&["--appendonly", "yes", "--appendfsync", "always"]);
    let mut s = Scenario::start_on(
        redis,
        &["--lane-engine", "domain:*=slow"],
        &[&["--exec-engine", &slow, "--lease-secs", "2"]],
    );
    let id = s.submit("multi-file.patch", "restart-key");
    s.wait_lane_started(&id);
    s.cluster.redis.restart(Duration::from_millis(500));
    let r = s.report(&id, Duration::from_secs(90));
    assert!(all_complete(&r), "{r}");
    assert_eq!(r["verdict"], "REQUEST CHANGES");
    // The idempotency key survived too.
    assert_eq!(s.submit("multi-file.patch", "restart-key"), id);
}
