//! Routing in a mixed fleet, with real processes and a real redis-server:
//! jobs reach only workers that offer their engine, and a lane whose
//! engine no worker offers is faulted at the deadline with that reason.

use revu_tests::fault_engine;
use revu_tests::scenario::{Scenario, lanes};
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(60);

#[test]
fn a_rules_worker_beside_an_exec_worker_never_gets_the_exec_lanes() {
    let slow = format!("slow={}", fault_engine("clean 0.2"));
    // One worker offers only the rules; the other also offers `slow`, which
    // runs every specialist lane.
    let mut s = Scenario::start(
        &["--lane-engine", "specialist:*=slow"],
        &[&[], &["--exec-engine", slow.as_str()]],
    );
    let ids: Vec<String> = (0..3).map(|_| s.submit("multi-file.patch", "")).collect();
    for id in ids {
        let report = s.report(&id, WAIT);
        let lanes = lanes(&report);
        assert!(lanes.iter().any(|l| l["engine"] == "slow"), "{report}");
        for lane in &lanes {
            assert_eq!(lane["outcome"], "COMPLETE", "{lane}");
            // A lane handed to a worker without its engine would have
            // failed there and come back as a second attempt.
            assert_eq!(lane["attempts"], 1, "{lane}");
        }
    }
}

#[test]
fn a_lane_whose_engine_no_worker_offers_faults_at_the_deadline_saying_so() {
    let mut s = Scenario::start(
        &[
            "--lane-engine",
            "specialist:correctness=nobody",
            "--review-timeout-secs",
            "3",
        ],
        &[&[]],
    );
    let id = s.submit("secret-and-unwrap.patch", "");
    let report = s.report(&id, WAIT);
    let lanes = lanes(&report);
    let lane = lanes
        .iter()
        .find(|l| l["id"] == "specialist:correctness")
        .unwrap_or_else(|| panic!("no correctness lane: {report}"));
    assert_eq!(lane["outcome"], "PIPELINE-FAULT", "{lane}");
    assert!(
        lane["banner"]
            .as_str()
            .is_some_and(|b| b.contains("no worker offers engine `nobody`")),
        "{lane}"
    );
    for lane in lanes.iter().filter(|l| l["id"] != "specialist:correctness") {
        assert_eq!(lane["outcome"], "COMPLETE", "{lane}");
    }
    assert_eq!(report["gate"], "NEEDS-HUMAN");
}
