//! The grouping and synthesis lanes end to end on real Redis: the domain
//! lanes follow the grouping lane's slices when they cover the change
//! exactly, the proposal when they do not or the lane fails; the synthesis
//! lane's walkthrough lands in the report; and neither ever changes the
//! findings, the verdict or the gate.

use revu_tests::fault_engine;
use revu_tests::scenario::{lanes, review_checked};
use serde_json::Value;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(30);
const PATCH: &str = "multi-file.patch";

/// Reviews [`PATCH`] on a fresh cluster; the report, checked against the
/// published schema.
fn review(coordinator: &[&str], worker: &[&str]) -> Value {
    review_checked(PATCH, coordinator, worker, WAIT)
}

fn lane(report: &Value, id: &str) -> Value {
    lanes(report)
        .into_iter()
        .find(|l| l["id"] == id)
        .unwrap_or_else(|| panic!("no lane {id}: {report}"))
}

fn domain_lanes(report: &Value) -> Vec<String> {
    lanes(report)
        .into_iter()
        .filter(|l| l["kind"] == "domain")
        .filter_map(|l| l["id"].as_str().map(str::to_owned))
        .collect()
}

/// What the optional lanes may never change.
fn same_judgment(a: &Value, b: &Value) {
    assert_eq!(a["verdict"], b["verdict"]);
    assert_eq!(a["gate"], b["gate"]);
    assert_eq!(a["gate_reasons"], b["gate_reasons"]);
    assert_eq!(a["findings"], b["findings"]);
}

#[test]
fn rules_keep_the_proposal_and_write_a_line_for_every_file() {
    let plain = review(&[], &[]);
    assert!(plain.get("walkthrough").is_none(), "off by default");
    let r = review(
        &["--refine-grouping", "rules", "--synthesize", "rules"],
        &[],
    );
    same_judgment(&r, &plain);
    assert_eq!(lane(&r, "grouping")["outcome"], "COMPLETE", "{r}");
    assert_eq!(lane(&r, "synthesis")["outcome"], "COMPLETE", "{r}");
    assert_eq!(domain_lanes(&r), domain_lanes(&plain));
    assert!(r.get("cover_fallback").is_none(), "{r}");
    let w = &r["walkthrough"];
    assert_eq!(w["engine"], "rules", "{w}");
    assert!(
        w["text"].as_str().is_some_and(|t| t.contains("5 file(s)")),
        "{w}"
    );
    let described: Vec<&Value> = w["files"].as_array().into_iter().flatten().collect();
    let changed: Vec<&Value> = r["facts"]["files"]
        .as_array()
        .into_iter()
        .flatten()
        .collect();
    assert_eq!(described.len(), changed.len(), "{w}");
    for (note, file) in described.iter().zip(&changed) {
        assert_eq!(note["path"], file["path"], "in the order of the facts: {w}");
    }
}

#[test]
fn a_refinement_that_covers_the_change_becomes_the_domain_lanes() {
    let plain = review(&[], &[]);
    let engine = format!("planner={}", fault_engine("group-merge"));
    let r = review(
        &["--refine-grouping", "planner"],
        &["--exec-engine", &engine],
    );
    assert_eq!(domain_lanes(&r), ["domain:all"], "{r}");
    assert!(r.get("cover_fallback").is_none(), "{r}");
    for file in r["facts"]["files"].as_array().into_iter().flatten() {
        assert_eq!(file["slice"], "all", "{file}");
    }
    // The same rules over the same files find the same things.
    same_judgment(&r, &plain);
}

#[test]
fn a_refinement_that_invents_a_file_falls_back_to_the_proposal_with_a_note() {
    let plain = review(&[], &[]);
    let engine = format!("planner={}", fault_engine("group-invent"));
    let r = review(
        &["--refine-grouping", "planner"],
        &["--exec-engine", &engine],
    );
    assert_eq!(domain_lanes(&r), domain_lanes(&plain));
    let note = r["cover_fallback"].as_str().unwrap_or_default();
    assert!(
        note.contains("not in the change") && note.contains("src/ghost.rs"),
        "{note}"
    );
    same_judgment(&r, &plain);
}

#[test]
fn failing_optional_lanes_leave_the_judgment_alone() {
    let plain = review(&[], &[]);
    let engine = format!("flaky={}", fault_engine("fail"));
    let r = review(
        &[
            "--refine-grouping",
            "flaky",
            "--synthesize",
            "flaky",
            "--engine-retry",
            "flaky=2:50",
        ],
        &["--exec-engine", &engine],
    );
    assert_eq!(lane(&r, "grouping")["outcome"], "PIPELINE-FAULT", "{r}");
    assert_eq!(lane(&r, "synthesis")["outcome"], "PIPELINE-FAULT", "{r}");
    assert_eq!(domain_lanes(&r), domain_lanes(&plain));
    let note = r["cover_fallback"].as_str().unwrap_or_default();
    assert!(note.contains("grouping lane faulted"), "{note}");
    let w = &r["walkthrough"];
    assert_eq!(w["text"], "", "{w}");
    assert!(
        w["note"]
            .as_str()
            .is_some_and(|n| n.starts_with("no walkthrough")),
        "{w}"
    );
    same_judgment(&r, &plain);
}

#[test]
fn a_synthesis_lane_that_raises_a_finding_is_sent_back_and_never_heard() {
    let plain = review(&[], &[]);
    let engine = format!("narrator={}", fault_engine("synthesize-finding"));
    let r = review(&["--synthesize", "narrator"], &["--exec-engine", &engine]);
    let synthesis = lane(&r, "synthesis");
    assert_eq!(synthesis["outcome"], "INCOMPLETE", "{synthesis}");
    assert_eq!(synthesis["attempts"], 2, "sent back once: {synthesis}");
    let banner = synthesis["banner"].as_str().unwrap_or_default();
    assert!(banner.contains("`findings` must be empty"), "{banner}");
    assert!(
        r["walkthrough"]["note"]
            .as_str()
            .is_some_and(|n| n.starts_with("no walkthrough")),
        "{r}"
    );
    same_judgment(&r, &plain);
}
