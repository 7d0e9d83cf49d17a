//! Restarts users never see: `revu submit` rides out its coordinator being
//! SIGKILLed and started again at the same address mid-review. It
//! reconnects with backoff, resumes the watch after the last event it saw,
//! fetches the report and exits as an undisturbed run would, and the
//! review is not submitted twice. And two coordinators side by side on one
//! Redis serve one fleet: a review submitted through one is watched through
//! the other, which finishes it when the first is SIGKILLed.

use revu_tests::procs::{drain, joined, wait_bounded};
use revu_tests::{Cluster, RedisServer, bin, example, fault_engine};
use std::process::{Command, Stdio};
use std::time::Duration;

#[test]
fn submit_rides_out_a_coordinator_restart_at_the_same_address() {
    let slow = format!("slow={}", fault_engine("clean 2"));
    let mut cluster = Cluster::start_coordinator_only(
        RedisServer::start(),
        &["--lane-engine", "domain:*=slow", "--reclaim-idle-secs", "1"],
    );
    cluster.add_worker(&["--exec-engine", &slow]);
    let mut child = Command::new(bin("revu"))
        .args(["submit", "--format", "json", "--timeout", "120"])
        .arg("--diff")
        .arg(example("multi-file.patch"))
        .arg("--coordinator")
        .arg(cluster.endpoint())
        .env_remove("REVU_COORDINATOR")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("starting revu submit: {e}"));
    let (stdout, stderr) = (drain(child.stdout.take()), drain(child.stderr.take()));
    // Mid-review: the quick specialist lanes reported, the slow domain
    // lanes are still running.
    cluster.redis.wait_until(
        "a lane report before the restart",
        Duration::from_secs(30),
        |r| r.stream_len("results") > 0,
    );
    cluster.restart_coordinator_in_place();
    let status = wait_bounded(&mut child, Duration::from_secs(90), "revu submit");
    let (stdout, stderr) = (joined(stdout), joined(stderr));
    let status = status.unwrap_or_else(|| panic!("revu submit did not finish; stderr:\n{stderr}"));
    assert_eq!(
        status.code(),
        Some(1),
        "NEEDS-HUMAN expected; stderr:\n{stderr}"
    );
    assert!(
        stderr.contains("reconnecting"),
        "the connection dropped: {stderr}"
    );
    let report: serde_json::Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("not a report ({e}); stderr:\n{stderr}"));
    assert_eq!(report["verdict"], "REQUEST CHANGES", "{report}");
    assert!(
        report["lanes"]
            .as_array()
            .is_some_and(|l| l.iter().all(|l| l["outcome"] == "COMPLETE")),
        "{report}"
    );
    assert_eq!(cluster.redis.review_count(), 1, "submitted once");
}

#[test]
fn two_coordinators_serve_one_fleet_and_the_survivor_finishes_the_review() {
    use revu_proto::v1::review_event::Kind;
    use revu_tests::client::Client;
    use revu_tests::scenario::{Scenario, count, lanes};
    let slow = format!("slow={}", fault_engine("clean 2"));
    let args = ["--lane-engine", "domain:*=slow", "--reclaim-idle-secs", "1"];
    let mut s = Scenario::start(&args, &[&["--exec-engine", &slow]]);
    let (_second, second_addr) = s.cluster.another_coordinator();
    let mut second = s.rt.block_on(Client::connect(
        &format!("http://{second_addr}"),
        Duration::from_secs(10),
    ));
    // Submitted through the first; watched through the second.
    let id = s.submit("multi-file.patch", "");
    let started = s.rt.block_on(async {
        tokio::time::timeout(
            Duration::from_secs(20),
            second.events_until(&id, Kind::LaneStarted),
        )
        .await
    });
    assert!(
        matches!(started, Ok(true)),
        "the second coordinator sees the review's lanes start"
    );
    s.cluster.kill_coordinator();
    // Only the second is left: it gathers the rest, the first's pending
    // reports included, and finishes the review.
    s.client = second;
    let report = s.report(&id, Duration::from_secs(60));
    let planned = lanes(&report).len();
    assert!(
        lanes(&report).iter().all(|l| l["outcome"] == "COMPLETE"),
        "{report}"
    );
    assert_eq!(report["verdict"], "REQUEST CHANGES", "{report}");
    assert_eq!(
        count(&s.events(&id), Kind::LaneFinished),
        planned,
        "every lane settled exactly once"
    );
    assert_eq!(s.cluster.redis.review_count(), 1);
}
