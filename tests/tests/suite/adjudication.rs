//! The adjudication lane end to end: phase two dispatched after every
//! review lane settled, decisions applied to the report, and a failing or
//! malformed adjudicator leaving the findings as verified and the gate
//! NEEDS-HUMAN.

use revu_tests::fault_engine;
use revu_tests::scenario::{citations, lanes, review_checked};
use serde_json::Value;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(30);
const PATCH: &str = "examples/multi-file.patch";

/// Reviews `PATCH` on a fresh cluster and returns the report, checked
/// against the published report schema.
fn review(coordinator: &[&str], worker: &[&str]) -> Value {
    review_checked(
        PATCH.trim_start_matches("examples/"),
        coordinator,
        worker,
        WAIT,
    )
}

fn adjudication_lane(report: &Value) -> Value {
    lanes(report)
        .into_iter()
        .find(|l| l["id"] == "adjudication")
        .unwrap_or_else(|| panic!("no adjudication lane: {report}"))
}

fn blockers(report: &Value) -> usize {
    report["findings"]
        .as_array()
        .map(|f| f.iter().filter(|f| f["severity"] == "BLOCKER").count())
        .unwrap_or(0)
}

#[test]
fn rules_adjudicator_confirms_every_blocker_and_keeps_the_verdict() {
    let plain = review(&[], &[]);
    assert!(plain.get("adjudication").is_none(), "off by default");
    let r = review(&["--adjudicate", "rules"], &[]);

    let lane = adjudication_lane(&r);
    assert_eq!(lane["outcome"], "COMPLETE", "{lane}");
    assert_eq!(lane["kind"], "adjudication", "{lane}");
    let a = &r["adjudication"];
    assert_eq!(a["engine"], "rules", "{a}");
    assert_eq!(a["status"], "applied", "{a}");
    let candidates = plain["findings"]
        .as_array()
        .map(|f| f.iter().filter(|f| f["severity"] != "SUGGESTION").count())
        .unwrap_or(0);
    assert!(blockers(&plain) > 0, "the example has BLOCKERs: {plain}");
    assert_eq!(a["candidates"], candidates, "{a}");
    assert_eq!(a["confirmed"], candidates, "{a}");
    assert_eq!((&a["dropped"], &a["downgraded"]), (&0.into(), &0.into()));

    assert_eq!(r["verdict"], plain["verdict"]);
    assert_eq!(r["gate"], plain["gate"]);
    // The same findings, each BLOCKER and IMPORTANT saying it was confirmed.
    let confirmed = |f: &Value| {
        f["why"]
            .as_str()
            .is_some_and(|w| w.contains("Adjudicated: confirmed — rule still fires at"))
    };
    let mut unnoted = r["findings"].clone();
    for (f, before) in unnoted
        .as_array_mut()
        .into_iter()
        .flatten()
        .zip(plain["findings"].as_array().into_iter().flatten())
    {
        assert_eq!(f["severity"] != "SUGGESTION", confirmed(f), "{f}");
        f["why"] = before["why"].clone();
    }
    assert_eq!(unnoted, plain["findings"]);
}

#[test]
fn exec_adjudicator_drop_is_listed_with_its_reason_and_the_finding_is_gone() {
    let plain = review(&[], &[]);
    let engine = format!("judge={}", fault_engine("adjudicate-drop-first"));
    let r = review(&["--adjudicate", "judge"], &["--exec-engine", &engine]);

    assert_eq!(adjudication_lane(&r)["outcome"], "COMPLETE", "{r}");
    let a = &r["adjudication"];
    assert_eq!(a["dropped"], 1, "{a}");
    let change = &a["changes"][0];
    assert_eq!(change["action"], "drop", "{a}");
    assert_eq!(change["reason"], "simulated adjudicator: not reachable");
    // The first candidate is the first BLOCKER in report order.
    let first = plain["findings"]
        .as_array()
        .and_then(|f| f.iter().find(|f| f["severity"] == "BLOCKER"))
        .cloned()
        .unwrap_or_default();
    let cited = format!("{}:{}", first["file"].as_str().unwrap_or(""), first["line"]);
    assert_eq!(change["citation"], cited.as_str(), "{a}");
    assert_eq!(change["rule"], first["rule"], "{a}");
    assert!(
        !citations(&r).contains(&cited),
        "{cited} still reported: {r}"
    );
    assert!(citations(&plain).contains(&cited));
    assert_eq!(
        r["findings"].as_array().map(Vec::len),
        plain["findings"].as_array().map(|f| f.len() - 1)
    );
    assert_eq!(blockers(&r), blockers(&plain) - 1);
}

#[test]
fn failing_adjudicator_faults_its_lane_leaves_findings_and_needs_a_human() {
    let plain = review(&[], &[]);
    let engine = format!("flaky={}", fault_engine("fail"));
    let r = review(
        &["--adjudicate", "flaky", "--engine-retry", "flaky=2:50"],
        &["--exec-engine", &engine],
    );

    let lane = adjudication_lane(&r);
    assert_eq!(lane["outcome"], "PIPELINE-FAULT", "{lane}");
    assert_eq!(lane["attempts"], 2, "{lane}");
    assert_eq!(r["adjudication"]["status"], "not_applied", "{r}");
    assert_eq!(r["findings"], plain["findings"]);
    assert_eq!(r["gate"], "NEEDS-HUMAN");
    let reasons = r["gate_reasons"].to_string();
    assert!(reasons.contains("adjudication"), "{reasons}");
}

#[test]
fn adjudicator_without_decisions_is_sent_back_once_then_not_applied() {
    let plain = review(&[], &[]);
    let engine = format!("mute={}", fault_engine("clean"));
    let r = review(&["--adjudicate", "mute"], &["--exec-engine", &engine]);

    let lane = adjudication_lane(&r);
    assert_eq!(lane["outcome"], "INCOMPLETE", "{lane}");
    assert_eq!(lane["attempts"], 2, "rejected back exactly once: {lane}");
    let banner = lane["banner"].as_str().unwrap_or_default();
    assert!(banner.contains("missing section `decisions`"), "{banner}");
    assert_eq!(r["adjudication"]["status"], "not_applied", "{r}");
    assert_eq!(r["findings"], plain["findings"]);
    assert_eq!(r["gate"], "NEEDS-HUMAN");
}
