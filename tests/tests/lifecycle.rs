//! Deadlines, cancellation, backpressure and graceful drain, with real
//! processes and a real redis-server.

use revu_proto::v1 as pb;
use revu_proto::v1::review_event::Kind;
use revu_tests::client::kind;
use revu_tests::{Client, Cluster, RedisServer, example, fault_engine};
use serde_json::Value;
use std::time::{Duration, Instant};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Runtime::new().unwrap_or_else(|e| panic!("runtime: {e}"))
}

fn docs_diff() -> Vec<u8> {
    std::fs::read(example("docs-only.patch")).unwrap_or_else(|e| panic!("{e}"))
}

fn report(r: &pb::GetReviewResponse) -> Value {
    serde_json::from_str(&r.report_json)
        .unwrap_or_else(|e| panic!("report JSON: {e}: {}", r.report_json))
}

fn first_lane(r: &Value) -> Value {
    r["lanes"]
        .as_array()
        .and_then(|l| l.first())
        .cloned()
        .unwrap_or_default()
}

fn wait_started(rt: &tokio::runtime::Runtime, client: &mut Client, id: &str) {
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
fn cancel_stops_the_review_and_discards_late_reports() {
    let rt = runtime();
    let slow = format!("slow={}", fault_engine("clean 2"));
    let mut cluster = Cluster::start_coordinator_only(RedisServer::start(), &["--engine", "slow"]);
    cluster.add_worker(&["--exec-engine", &slow]);
    let mut client = rt.block_on(Client::connect(
        &cluster.endpoint(),
        Duration::from_secs(10),
    ));
    let id = rt
        .block_on(client.submit(docs_diff(), ""))
        .unwrap_or_else(|e| panic!("{e}"));
    wait_started(&rt, &mut client, &id);
    let resp = rt
        .block_on(client.cancel(&id))
        .unwrap_or_else(|e| panic!("cancel: {e}"));
    assert_eq!(resp.state, pb::ReviewState::Cancelled as i32);
    // The lane finishes on the worker after the cancel; its report is dropped.
    std::thread::sleep(Duration::from_millis(2500));
    let got = rt
        .block_on(client.get(&id))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(got.state, pb::ReviewState::Cancelled as i32);
    assert!(
        got.report_json.is_empty(),
        "a cancelled review has no report"
    );
    assert_eq!(got.lanes_settled, 0, "the late report was discarded");
    let events = rt.block_on(client.events(&id));
    assert_eq!(
        events.iter().filter(|e| kind(e) == Kind::Cancelled).count(),
        1
    );
    assert!(!events.iter().any(|e| kind(e) == Kind::Verdict));
}

#[test]
fn too_many_reviews_in_flight_get_resource_exhausted() {
    let rt = runtime();
    let slow = format!("slow={}", fault_engine("clean 2"));
    let mut cluster = Cluster::start_coordinator_only(
        RedisServer::start(),
        &["--engine", "slow", "--max-inflight", "1"],
    );
    cluster.add_worker(&["--exec-engine", &slow]);
    let mut client = rt.block_on(Client::connect(
        &cluster.endpoint(),
        Duration::from_secs(10),
    ));
    let first = rt
        .block_on(client.submit(docs_diff(), ""))
        .unwrap_or_else(|e| panic!("{e}"));
    let refused = rt.block_on(client.submit(docs_diff(), ""));
    let status = refused
        .err()
        .unwrap_or_else(|| panic!("second review accepted past the bound"));
    assert_eq!(status.code(), tonic::Code::ResourceExhausted, "{status}");
    // The accepted one is unharmed, and once it is done there is room again.
    let done = rt.block_on(client.wait_terminal(&first, Duration::from_secs(30)));
    assert_eq!(report(&done)["gate"], "MERGE-READY");
    assert!(rt.block_on(client.submit(docs_diff(), "")).is_ok());
}

#[test]
fn review_deadline_faults_lanes_that_never_report() {
    let rt = runtime();
    let slow = format!("slow={}", fault_engine("clean 30"));
    let mut cluster = Cluster::start_coordinator_only(
        RedisServer::start(),
        &["--engine", "slow", "--review-timeout-secs", "2"],
    );
    cluster.add_worker(&["--exec-engine", &slow]);
    let mut client = rt.block_on(Client::connect(
        &cluster.endpoint(),
        Duration::from_secs(10),
    ));
    let started = Instant::now();
    let id = rt
        .block_on(client.submit(docs_diff(), ""))
        .unwrap_or_else(|e| panic!("{e}"));
    let done = rt.block_on(client.wait_terminal(&id, Duration::from_secs(20)));
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "the deadline, not the lane, ended the review"
    );
    let r = report(&done);
    assert_eq!(r["gate"], "NEEDS-HUMAN");
    let lane = first_lane(&r);
    assert_eq!(lane["outcome"], "PIPELINE-FAULT");
    assert!(
        lane["banner"]
            .as_str()
            .unwrap_or_default()
            .contains("deadline"),
        "{lane}"
    );
}

#[test]
fn lane_timeout_is_a_transient_failure_that_retries_then_faults() {
    let rt = runtime();
    let slow = format!("slow={}", fault_engine("clean 5"));
    let mut cluster = Cluster::start_coordinator_only(
        RedisServer::start(),
        &["--engine", "slow", "--engine-retry", "slow=2:50"],
    );
    cluster.add_worker(&["--exec-engine", &slow, "--lane-timeout-secs", "1"]);
    let mut client = rt.block_on(Client::connect(
        &cluster.endpoint(),
        Duration::from_secs(10),
    ));
    let id = rt
        .block_on(client.submit(docs_diff(), ""))
        .unwrap_or_else(|e| panic!("{e}"));
    let done = rt.block_on(client.wait_terminal(&id, Duration::from_secs(30)));
    let lane = first_lane(&report(&done));
    assert_eq!(lane["outcome"], "PIPELINE-FAULT", "{lane}");
    assert_eq!(lane["attempts"], 2, "{lane}");
    assert!(
        lane["banner"]
            .as_str()
            .unwrap_or_default()
            .contains("longer than 1s"),
        "{lane}"
    );
}

#[test]
fn sigterm_drains_the_lane_in_hand_before_exiting() {
    let rt = runtime();
    let slow = format!("slow={}", fault_engine("clean 2"));
    let mut cluster = Cluster::start_coordinator_only(RedisServer::start(), &["--engine", "slow"]);
    let w = cluster.add_worker(&["--exec-engine", &slow, "--drain-secs", "20"]);
    let mut client = rt.block_on(Client::connect(
        &cluster.endpoint(),
        Duration::from_secs(10),
    ));
    let id = rt
        .block_on(client.submit(docs_diff(), ""))
        .unwrap_or_else(|e| panic!("{e}"));
    wait_started(&rt, &mut client, &id);
    assert!(
        cluster.workers[w].terminate(Duration::from_secs(20)),
        "worker exited on its own after draining"
    );
    // Drained, not abandoned: the report was written before exit.
    let done = rt.block_on(client.wait_terminal(&id, Duration::from_secs(5)));
    let lane = first_lane(&report(&done));
    assert_eq!(
        (lane["outcome"].as_str(), lane["attempts"].as_u64()),
        (Some("COMPLETE"), Some(1))
    );
}

#[test]
fn drain_that_runs_out_of_time_releases_the_lane_to_another_worker_at_once() {
    let rt = runtime();
    let slow = format!("slow={}", fault_engine("clean 3"));
    let mut cluster = Cluster::start_coordinator_only(RedisServer::start(), &["--engine", "slow"]);
    // A long lease: without the release, the lane would wait a minute.
    let w = cluster.add_worker(&[
        "--exec-engine",
        &slow,
        "--drain-secs",
        "1",
        "--lease-secs",
        "60",
    ]);
    let mut client = rt.block_on(Client::connect(
        &cluster.endpoint(),
        Duration::from_secs(10),
    ));
    let id = rt
        .block_on(client.submit(docs_diff(), ""))
        .unwrap_or_else(|e| panic!("{e}"));
    wait_started(&rt, &mut client, &id);
    assert!(cluster.workers[w].terminate(Duration::from_secs(10)));
    cluster.add_worker(&["--exec-engine", &slow, "--lease-secs", "60"]);
    let done = rt.block_on(client.wait_terminal(&id, Duration::from_secs(20)));
    assert_eq!(first_lane(&report(&done))["outcome"], "COMPLETE");
}
