//! Deadlines, cancellation, backpressure and graceful drain, with real
//! processes and a real redis-server.

use revu_proto::v1 as pb;
use revu_proto::v1::review_event::Kind;
use revu_tests::fault_engine;
use revu_tests::scenario::{Scenario, count, first_lane};
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(30);

/// A scenario whose lanes all run the fault engine in `mode` on one worker
/// started with `worker` flags, plus the coordinator's `extra` flags.
fn with_engine(mode: &str, extra: &[&str], worker: &[&str]) -> Scenario {
    let engine = format!("fault={}", fault_engine(mode));
    let mut coordinator = vec!["--engine", "fault"];
    coordinator.extend_from_slice(extra);
    let mut worker_args = vec!["--exec-engine", engine.as_str()];
    worker_args.extend_from_slice(worker);
    Scenario::start(&coordinator, &[&worker_args])
}

#[test]
fn cancel_stops_the_review_and_discards_late_reports() {
    let mut s = with_engine("clean 2", &[], &[]);
    let id = s.submit("docs-only.patch", "");
    s.wait_lane_started(&id);
    let resp =
        s.rt.block_on(s.client.cancel(&id))
            .unwrap_or_else(|e| panic!("cancel: {e}"));
    assert_eq!(resp.state, pb::ReviewState::Cancelled as i32);
    // The lane finishes on the worker after the cancel; its report is dropped.
    s.cluster
        .redis
        .wait_until("the late report discarded", WAIT, |r| {
            r.stat("late_reports") >= 1
        });
    let got =
        s.rt.block_on(s.client.get(&id))
            .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(got.state, pb::ReviewState::Cancelled as i32);
    assert!(
        got.report_json.is_empty(),
        "a cancelled review has no report"
    );
    assert_eq!(got.lanes_settled, 0, "the late report was discarded");
    let events = s.events(&id);
    assert_eq!(count(&events, Kind::Cancelled), 1);
    assert_eq!(count(&events, Kind::Verdict), 0);
}

#[test]
fn too_many_reviews_in_flight_get_resource_exhausted() {
    let mut s = with_engine("clean 2", &["--max-inflight", "1"], &[]);
    let first = s.submit("docs-only.patch", "");
    let status = s
        .try_submit("docs-only.patch", "")
        .err()
        .unwrap_or_else(|| panic!("second review accepted past the bound"));
    assert_eq!(status.code(), tonic::Code::ResourceExhausted, "{status}");
    // The accepted one is unharmed, and once it is done there is room again.
    assert_eq!(s.report(&first, WAIT)["gate"], "MERGE-READY");
    assert!(s.try_submit("docs-only.patch", "").is_ok());
}

/// What only the processes show of a deadline: the flag reaches the
/// running sweeper, which faults a lane its worker still runs. Which lanes
/// it faults, and when, is tested on paused time in the coordinator's own
/// tests; here the deadline is the shortest the flag takes.
#[test]
fn review_deadline_faults_lanes_that_never_report() {
    let mut s = with_engine("clean 30", &["--review-timeout-secs", "1"], &[]);
    let started = Instant::now();
    let id = s.submit("docs-only.patch", "");
    let r = s.report(&id, Duration::from_secs(20));
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "the deadline, not the lane, ended the review"
    );
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
    let mut s = with_engine(
        "clean 5",
        &["--engine-retry", "fault=2:50"],
        &["--lane-timeout-secs", "1"],
    );
    let id = s.submit("docs-only.patch", "");
    let lane = first_lane(&s.report(&id, WAIT));
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
    let mut s = with_engine("clean 2", &[], &["--drain-secs", "20"]);
    let id = s.submit("docs-only.patch", "");
    s.wait_lane_started(&id);
    assert!(
        s.cluster.workers[0].terminate(Duration::from_secs(20)),
        "worker exited on its own after draining"
    );
    // Drained, not abandoned: the report was written before exit.
    let lane = first_lane(&s.report(&id, Duration::from_secs(5)));
    assert_eq!(
        (lane["outcome"].as_str(), lane["attempts"].as_u64()),
        (Some("COMPLETE"), Some(1))
    );
}

#[test]
fn drain_that_runs_out_of_time_releases_the_lane_to_another_worker_at_once() {
    // A lane far longer than the grace period, and a long lease: without the
    // release the lane would wait a minute, and without stopping the engine
    // the worker would linger for the whole lane.
    let mut s = with_engine(
        "clean 30",
        &[],
        &["--drain-secs", "1", "--lease-secs", "60"],
    );
    let id = s.submit("docs-only.patch", "");
    s.wait_lane_started(&id);
    let asked = Instant::now();
    assert!(
        s.cluster.workers[0].terminate(Duration::from_secs(10)),
        "worker exited on its own"
    );
    assert!(
        asked.elapsed() < Duration::from_secs(8),
        "exited within its grace period"
    );
    let quick = format!("fault={}", fault_engine("clean 0"));
    s.cluster
        .add_worker(&["--exec-engine", &quick, "--lease-secs", "60"]);
    assert_eq!(
        first_lane(&s.report(&id, Duration::from_secs(20)))["outcome"],
        "COMPLETE"
    );
}
