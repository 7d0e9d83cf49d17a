//! Golden tests for triage: the lane plan `prepare` builds for fixture diffs.
//! Each snapshot is the whole decision a reader needs to audit: tier and
//! signals, the lanes with their files and guidance, and every dimension
//! left out with why.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use revu_coordinator::config::ReviewSettings;
use revu_domain::lane::LaneKind;
use revu_stages::grouping::{Grouper, default_domains};
use revu_stages::prepare::{PlanRequest, Prepared, prepare};
use std::fmt::Write;

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn plan_of(diff: &str, request: &PlanRequest) -> Prepared {
    let settings = ReviewSettings::default();
    let grouper = Grouper::new(&default_domains(), settings.max_slice_files).unwrap();
    prepare(&fixture(diff), &settings.plan(), &grouper, request).unwrap()
}

/// The plan as a reviewer reads it.
fn describe(p: &Prepared) -> String {
    let plan = &p.plan;
    let mut out = String::new();
    writeln!(out, "risk tier: {}", json(&plan.facts.risk_tier)).unwrap();
    writeln!(out, "signals: {}", json(&plan.signals)).unwrap();
    writeln!(
        out,
        "rigor: {} (from {})",
        json(&plan.rigor.level),
        json(&plan.rigor.source)
    )
    .unwrap();
    writeln!(out, "lanes:").unwrap();
    for lane in &plan.lanes {
        let what = match &lane.kind {
            LaneKind::Specialist { .. } | LaneKind::Grouping | LaneKind::Synthesis => {
                format!("all {} file(s)", lane.files.len())
            }
            LaneKind::Domain { .. } | LaneKind::Adjudication | LaneKind::Challenge => {
                lane.files.join(", ")
            }
        };
        writeln!(out, "  {} [{}]: {what}", lane.id, lane.engine).unwrap();
        for g in &lane.guidance {
            writeln!(out, "    guidance: {g}").unwrap();
        }
    }
    writeln!(out, "not dispatched:").unwrap();
    for s in &plan.skipped_dimensions {
        writeln!(out, "  {}: {}", s.dimension, s.reason).unwrap();
    }
    out
}

/// The serde name of a value, so the snapshot reads like the report.
fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap().replace('"', "")
}

#[test]
fn docs_only_change_dispatches_no_specialist() {
    let p = plan_of("triage/docs_only.diff", &PlanRequest::default());
    assert!(p.plan.lanes.iter().all(|l| l.id.starts_with("domain:")));
    insta::assert_snapshot!(describe(&p));
}

#[test]
fn local_change_gets_correctness_and_testing() {
    let p = plan_of("triage/local_change.diff", &PlanRequest::default());
    insta::assert_snapshot!(describe(&p));
}

#[test]
fn auth_change_is_high_risk_and_gets_all_six() {
    let p = plan_of("triage/auth_change.diff", &PlanRequest::default());
    assert!(p.plan.skipped_dimensions.is_empty());
    insta::assert_snapshot!(describe(&p));
}

#[test]
fn destructive_migration_is_high_risk_and_gets_all_six() {
    let p = plan_of("triage/migration.diff", &PlanRequest::default());
    assert!(p.plan.skipped_dimensions.is_empty());
    insta::assert_snapshot!(describe(&p));
}

#[test]
fn repo_config_sets_rigor_domains_and_guidance() {
    let request = PlanRequest {
        review_md: Some(String::from_utf8(fixture("conventions/REVIEW.md")).unwrap()),
        repo_config: Some(String::from_utf8(fixture("conventions/revu.toml")).unwrap()),
        ..PlanRequest::default()
    };
    let p = plan_of("conventions/change.diff", &request);
    assert!(p.plan.lanes.iter().any(|l| l.id == "domain:payments"));
    insta::assert_snapshot!(describe(&p));
}

#[test]
fn requested_rigor_beats_the_repo_config() {
    let request = PlanRequest {
        rigor: Some(revu_domain::report::Rigor::Production),
        repo_config: Some("rigor = \"poc\"\n".into()),
        ..PlanRequest::default()
    };
    let p = plan_of("triage/local_change.diff", &request);
    assert_eq!(
        (p.plan.rigor.level, p.plan.rigor.source),
        (
            revu_domain::report::Rigor::Production,
            revu_domain::report::RigorSource::Request
        )
    );
}
