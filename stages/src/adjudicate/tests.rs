#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use Severity::{Blocker, Important, Suggestion};
use proptest::prelude::*;
use revu_domain::finding::{BlastRadius, Dimension};
use revu_domain::lane::{FaultKind, LaneReportBody};
use revu_domain::report::LaneOutcome;

fn finding(rule: &str, severity: Severity, line: u32) -> Finding {
    Finding {
        rule: rule.into(),
        severity,
        file: "src/a.rs".into(),
        line,
        end_line: None,
        dimension: Dimension::Correctness,
        dimensions: vec![],
        summary: format!("{rule} summary"),
        why: String::new(),
        fix: String::new(),
        confidence: 90,
        blast_radius: BlastRadius::Local,
        pre_existing: false,
        pre_existing_line: false,
        downgraded_from: None,
        meta: false,
        owners: Vec::new(),
    }
}

fn decide(index: usize, action: Action, reason: &str) -> Decision {
    Decision {
        index,
        action,
        reason: reason.into(),
    }
}

/// Two BLOCKERs, an IMPORTANT and a SUGGESTION; the first three are the
/// candidates.
fn verified() -> (Vec<Finding>, Vec<Finding>) {
    let findings = vec![
        finding("B1", Blocker, 1),
        finding("B2", Blocker, 2),
        finding("I1", Important, 3),
        finding("S1", Suggestion, 4),
    ];
    let candidates = findings
        .iter()
        .filter(|f| is_candidate(f))
        .cloned()
        .collect();
    (findings, candidates)
}

#[test]
fn candidates_stored_with_the_mark_in_their_summary_still_match() {
    let (mut findings, _) = verified();
    findings[1].pre_existing_line = true;
    let mut stored = findings[1].clone();
    stored.pre_existing_line = false;
    stored.summary = format!("[pre-existing] {}", stored.summary);
    let plan = AdjudicationPlan {
        engine: "llm".into(),
        candidates: vec![stored],
    };
    let result = lane(
        LaneOutcome::Complete,
        vec![decide(0, Action::Downgrade, "only reachable from tests")],
        vec![],
    );
    let out = adjudicate(&plan, Some(&result), findings);
    assert!(out.report.warnings.is_empty(), "{:?}", out.report.warnings);
    assert_eq!(out.findings[1].severity, Important);
    assert_eq!(out.report.changes[0].summary, "[pre-existing] B2 summary");
}

fn rules_and_severities(findings: &[Finding]) -> Vec<(&str, Severity)> {
    findings
        .iter()
        .map(|f| (f.rule.as_str(), f.severity))
        .collect()
}

#[test]
fn confirm_keeps_downgrade_lowers_one_level_drop_removes() {
    let (findings, candidates) = verified();
    let out = apply(
        "rules",
        findings,
        &candidates,
        &[
            decide(0, Action::Confirm, ""),
            decide(1, Action::Downgrade, "only reachable from tests"),
            decide(2, Action::Drop, "rule no longer fires at src/a.rs:3"),
        ],
    );
    assert_eq!(
        rules_and_severities(&out.findings),
        [("B1", Blocker), ("B2", Important), ("S1", Suggestion)]
    );
    let lowered: Vec<Option<Severity>> = out.findings.iter().map(|f| f.downgraded_from).collect();
    assert_eq!(
        lowered,
        [None, Some(Blocker), None],
        "only B2 says it was lowered"
    );
    let r = &out.report;
    assert_eq!(r.status, AdjudicationStatus::Applied);
    assert_eq!(
        (r.candidates, r.confirmed, r.downgraded, r.dropped),
        (3, 1, 1, 1)
    );
    assert_eq!(
        r.changes,
        [
            AdjudicationChange {
                action: Action::Downgrade,
                rule: "B2".into(),
                citation: "src/a.rs:2".into(),
                summary: "B2 summary".into(),
                from: Blocker,
                to: Some(Important),
                reason: "only reachable from tests".into(),
            },
            AdjudicationChange {
                action: Action::Drop,
                rule: "I1".into(),
                citation: "src/a.rs:3".into(),
                summary: "I1 summary".into(),
                from: Important,
                to: None,
                reason: "rule no longer fires at src/a.rs:3".into(),
            },
        ]
    );
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
}

#[test]
fn important_downgrades_to_suggestion() {
    let (findings, candidates) = verified();
    let out = apply(
        "x",
        findings,
        &candidates,
        &[
            decide(2, Action::Downgrade, "style"),
            decide(0, Action::Confirm, ""),
            decide(1, Action::Confirm, ""),
        ],
    );
    assert_eq!(out.findings[2].severity, Suggestion);
}

#[test]
fn out_of_range_repeated_and_unexplained_decisions_are_ignored_and_counted() {
    let (findings, candidates) = verified();
    let out = apply(
        "x",
        findings.clone(),
        &candidates,
        &[
            decide(0, Action::Confirm, ""),
            decide(0, Action::Drop, "second thoughts"),
            decide(3, Action::Drop, "the SUGGESTION is not a candidate"),
            decide(99, Action::Drop, "no such candidate"),
            decide(1, Action::Drop, "  "),
        ],
    );
    assert_eq!(out.findings, findings, "nothing changed");
    assert_eq!(out.report.confirmed, 1);
    assert_eq!(out.report.warnings.len(), 6, "{:#?}", out.report.warnings);
    assert!(
        out.report
            .warnings
            .contains(&"second decision for candidate 0 ignored".to_owned())
    );
    assert!(
        out.report
            .warnings
            .contains(&"candidate 2 has no decision; kept as verified".to_owned())
    );
}

#[test]
fn a_candidate_no_longer_verified_is_ignored() {
    let (findings, mut candidates) = verified();
    candidates[0].confidence = 50;
    let out = apply(
        "x",
        findings.clone(),
        &candidates,
        &[decide(0, Action::Drop, "gone")],
    );
    assert_eq!(out.findings, findings);
    assert!(out.report.warnings[0].starts_with("candidate 0 (src/a.rs:1) is not among"));
}

/// The adjudication lane ended `outcome`, its report (where that outcome
/// keeps one) holding `decisions` and `findings`.
fn lane(outcome: LaneOutcome, decisions: Vec<Decision>, findings: Vec<Finding>) -> LaneResult {
    let body = LaneReportBody {
        summary: "re-tried".into(),
        findings,
        decisions,
        ..LaneReportBody::default()
    };
    let end = match outcome {
        LaneOutcome::Complete => LaneEnd::Complete { body },
        LaneOutcome::Incomplete => LaneEnd::Incomplete {
            body,
            banner: "report incomplete: cut".into(),
        },
        LaneOutcome::PipelineFault => LaneEnd::PipelineFault {
            fault: FaultKind::Timeout,
            banner: "failed 3 attempt(s)".into(),
        },
        LaneOutcome::Cancelled => LaneEnd::Cancelled,
    };
    LaneResult {
        worker: "w".into(),
        duration_ms: 1,
        ..LaneResult::new(ADJUDICATION_LANE, end, 1)
    }
}

#[test]
fn a_faulted_or_incomplete_lane_leaves_the_findings_as_verified() {
    let (findings, candidates) = verified();
    let plan = AdjudicationPlan {
        engine: "llm".into(),
        candidates,
    };
    let drop_all: Vec<Decision> = (0..3).map(|i| decide(i, Action::Drop, "no")).collect();
    for outcome in [LaneOutcome::Incomplete, LaneOutcome::PipelineFault] {
        let result = lane(outcome, drop_all.clone(), vec![]);
        let out = adjudicate(&plan, Some(&result), findings.clone());
        assert_eq!(out.findings, findings);
        assert_eq!(out.report.status, AdjudicationStatus::NotApplied);
        assert_eq!(out.report.engine, "llm");
        assert_eq!(out.report.candidates, 3);
        assert_eq!(out.report.dropped, 0);
    }
}

#[test]
fn findings_the_lane_lists_are_never_added() {
    let (findings, candidates) = verified();
    let plan = AdjudicationPlan {
        engine: "x".into(),
        candidates,
    };
    let confirm_all = (0..3).map(|i| decide(i, Action::Confirm, "")).collect();
    let result = lane(
        LaneOutcome::Complete,
        confirm_all,
        vec![finding("NEW", Blocker, 9)],
    );
    let out = adjudicate(&plan, Some(&result), findings.clone());
    assert_eq!(out.findings, findings);
    assert_eq!(out.report.confirmed, 3);
    assert_eq!(
        out.report.warnings,
        ["the lane listed 1 finding(s); ignored: adjudication never adds findings"]
    );
}

#[test]
fn without_candidates_there_is_nothing_to_adjudicate() {
    let plan = AdjudicationPlan {
        engine: "rules".into(),
        candidates: vec![],
    };
    let clean = vec![finding("S1", Suggestion, 4)];
    let out = adjudicate(&plan, None, clean.clone());
    assert_eq!(out.findings, clean);
    assert_eq!(out.report.status, AdjudicationStatus::NothingToAdjudicate);
    assert!(out.report.warnings.is_empty());
}

fn arb_finding() -> impl Strategy<Value = Finding> {
    (
        prop::sample::select(vec!["A", "B", "MISS-001"]),
        prop::sample::select(vec![Blocker, Important, Suggestion]),
        0u32..4,
        0u8..=100,
    )
        .prop_map(|(rule, severity, line, confidence)| Finding {
            confidence,
            ..finding(rule, severity, line)
        })
}

fn arb_decision() -> impl Strategy<Value = Decision> {
    (
        0usize..14,
        prop::sample::select(Action::ALL.to_vec()),
        prop::sample::select(vec!["", "because"]),
    )
        .prop_map(|(index, action, reason)| decide(index, action, reason))
}

/// The verified findings and candidates: either as phase two builds them,
/// or arbitrary ones (a lane that drifted from what verification keeps).
fn arb_case() -> impl Strategy<Value = (Vec<Finding>, Vec<Finding>)> {
    prop::collection::vec(arb_finding(), 0..12).prop_flat_map(|findings| {
        let built: Vec<Finding> = findings
            .iter()
            .filter(|f| is_candidate(f))
            .cloned()
            .collect();
        let arbitrary = prop::collection::vec(arb_finding(), 0..8);
        (Just(findings), prop_oneof![Just(built), arbitrary.boxed()])
    })
}

/// Whether `after` can be what adjudication made of `before`: the same
/// finding at the same severity, or at a lower one that names the one it
/// was raised with.
fn same_or_lower(after: &Finding, before: &Finding) -> bool {
    let lowered = after.severity < before.severity;
    let says_so = after.downgraded_from == lowered.then_some(before.severity);
    after.severity <= before.severity
        && says_so
        && Finding {
            severity: before.severity,
            downgraded_from: None,
            ..after.clone()
        } == *before
}

proptest! {
    #[test]
    fn adjudication_never_adds_raises_or_touches_confidence(
        (findings, candidates) in arb_case(),
        decisions in prop::collection::vec(arb_decision(), 0..16),
    ) {
        let out = apply("x", findings.clone(), &candidates, &decisions);
        let r = &out.report;
        prop_assert_eq!(out.findings.len() + r.dropped, findings.len());
        prop_assert!(r.confirmed + r.downgraded + r.dropped <= candidates.len());
        prop_assert_eq!(r.changes.len(), r.downgraded + r.dropped);
        // The output is the input, in order, minus drops, each finding the
        // same but for a severity that can only have gone down.
        let mut before = findings.iter();
        for after in &out.findings {
            prop_assert!(
                before.any(|b| same_or_lower(after, b)),
                "{after:?} is not an adjudicated input finding"
            );
        }
        let lowered = out.findings.iter().zip(&findings).filter(|(a, b)| a.severity < b.severity);
        if r.dropped == 0 {
            prop_assert_eq!(lowered.count(), r.downgraded);
        }
        for c in &r.changes {
            prop_assert!(!c.reason.is_empty());
            prop_assert!(c.to.is_none_or(|to| Some(to) == lower(c.from)));
        }
    }
}
