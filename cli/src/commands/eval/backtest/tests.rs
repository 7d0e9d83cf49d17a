#![allow(clippy::unwrap_used)]

use super::*;
use crate::test_reports;
use serde_json::{Value, json};

fn finding(severity: &str, dimension: &str, rule: &str, line: u32) -> Value {
    test_reports::finding(rule, severity, dimension, "app/db.py", line)
}

/// A report of a 40-line change.
fn report(gate: &str, findings: Vec<Value>, lanes: Vec<(&str, &str)>, signals: &[&str]) -> Report {
    let mut r = test_reports::blank();
    r["gate"] = json!(gate);
    r["findings"] = json!(findings);
    r["lanes"] = lanes
        .into_iter()
        .map(|(kind, outcome)| test_reports::lane(kind, outcome))
        .collect();
    r["facts"]["signals"] = json!(signals);
    r["facts"]["lines_added"] = json!(30);
    r["facts"]["lines_removed"] = json!(10);
    test_reports::read(r)
}

#[test]
fn the_causes_come_from_the_reports_fields_by_the_gate_rules() {
    let clean = report("MERGE-READY", vec![], vec![("domain", "COMPLETE")], &[]);
    assert_eq!(GateCause::of(&clean), []);

    let blocker = report(
        "NEEDS-HUMAN",
        vec![finding("BLOCKER", "security", "RV-SEC-001", 3)],
        vec![("domain", "COMPLETE")],
        &["auth_surface", "public_api"],
    );
    assert_eq!(
        GateCause::of(&blocker),
        [GateCause::Findings, GateCause::Trigger]
    );

    // At poc rigor a design BLOCKER counts as IMPORTANT: not a cause.
    let mut folded = report(
        "MERGE-READY",
        vec![finding("BLOCKER", "design", "RV-DES-001", 3)],
        vec![],
        &[],
    );
    folded.rigor.level = revu_domain::report::Rigor::Poc;
    assert_eq!(GateCause::of(&folded), []);

    // A faulted grouping lane does not count for the gate; a domain lane does.
    let lanes = report(
        "NEEDS-HUMAN",
        vec![],
        vec![("grouping", "PIPELINE-FAULT"), ("domain", "INCOMPLETE")],
        &[],
    );
    assert_eq!(GateCause::of(&lanes), [GateCause::Lane]);
    let grouping_only = report(
        "MERGE-READY",
        vec![],
        vec![("grouping", "PIPELINE-FAULT")],
        &[],
    );
    assert_eq!(GateCause::of(&grouping_only), []);

    let mut dropped = report("NEEDS-HUMAN", vec![], vec![], &[]);
    dropped.verification.dropped_missing_line = 2;
    assert_eq!(GateCause::of(&dropped), [GateCause::Verification]);
}

fn commit(n: u32) -> Commit {
    Commit {
        sha: format!("{n:040}"),
        short: format!("{n:07}"),
        subject: format!("change {n}"),
    }
}

#[test]
fn a_run_sums_its_commits_and_keeps_every_blocker() {
    let mut h = History::new(
        "/repo".into(),
        Asked {
            selection: Selection::Last(4),
            first_parent: true,
            commits: 4,
        },
    );
    let ms = Duration::from_millis;
    h.add(
        &commit(1),
        Outcome::Reviewed(Arc::new(report("MERGE-READY", vec![], vec![], &[]))),
        ms(100),
    );
    h.add(
        &commit(2),
        Outcome::Reviewed(Arc::new(report(
            "NEEDS-HUMAN",
            vec![
                finding("BLOCKER", "security", "RV-SEC-001", 3),
                finding("IMPORTANT", "correctness", "RV-COR-001", 9),
            ],
            vec![],
            &[],
        ))),
        ms(300),
    );
    h.add(
        &commit(3),
        Outcome::Reviewed(Arc::new(report(
            "NEEDS-HUMAN",
            vec![finding("BLOCKER", "security", "RV-SEC-001", 5)],
            vec![],
            &["destructive_migration"],
        ))),
        ms(200),
    );
    h.add(&commit(4), Outcome::Skipped("empty".into()), ms(5));
    h.finish();
    let s = &h.summary;
    assert_eq!((s.reviewed, s.skipped, s.failed), (3, 1, 0));
    assert_eq!(s.changed_lines, 120);
    assert_eq!(s.findings, 3);
    assert_eq!(s.findings_per_1000_lines, Some(25.0));
    assert_eq!(s.blockers, 2);
    assert_eq!(s.blocker_commits, [commit(2).sha, commit(3).sha]);
    assert_eq!(
        (
            s.gated.commits,
            s.gated.findings,
            s.gated.trigger,
            s.gated.findings_only
        ),
        (2, 2, 1, 1)
    );
    assert_eq!(s.findings_only_share, Some(0.3333));
    assert_eq!(
        (
            s.wall_ms.median,
            s.wall_ms.p90,
            s.wall_ms.max,
            s.wall_ms.total
        ),
        (200, 300, 300, 600)
    );
    assert_eq!(h.by_rule["RV-SEC-001"].blocker, 2);
    assert_eq!(h.by_rule["RV-COR-001"].important, 1);
    assert_eq!(h.blockers.len(), 2);
    assert_eq!(h.blockers[1].citation, "app/db.py:5");
    assert_eq!(h.commits[3].status, Status::Skipped);
    assert_eq!(h.commits[3].reason.as_deref(), Some("empty"));
}

#[test]
fn nearest_rank_percentiles() {
    let w = wall_times(vec![5, 1, 4, 2, 3, 6, 7, 8, 9, 10]);
    assert_eq!((w.median, w.p90, w.max, w.total), (5, 9, 10, 55));
    let none = wall_times(Vec::new());
    assert_eq!((none.median, none.p90, none.max, none.total), (0, 0, 0, 0));
}
