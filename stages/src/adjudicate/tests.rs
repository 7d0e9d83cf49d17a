#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use Severity::{Blocker, Important, Suggestion};
use proptest::prelude::*;
use revu_domain::adjudication::is_candidate;
use revu_domain::finding::Dimension;
use revu_domain::lane::{FaultKind, LaneReportBody};
use revu_domain::report::LaneOutcome;

fn finding(rule: &str, severity: Severity, line: u32) -> Finding {
    Finding {
        summary: format!("{rule} summary"),
        ..Finding::at(rule, severity, "src/a.rs", line, Dimension::Correctness)
    }
}

fn decide(index: usize, action: Action, reason: &str) -> Decision {
    Decision {
        index,
        action,
        reason: reason.into(),
        evidence: "src/a.rs:1".into(),
    }
}

/// Every line is one the review holds.
fn any_line(_: &str, _: u32) -> bool {
    true
}

/// The findings as they read before adjudication noted anything in `why`.
fn without_notes(findings: &[Finding]) -> Vec<Finding> {
    findings
        .iter()
        .map(|f| Finding {
            why: String::new(),
            ..f.clone()
        })
        .collect()
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
        challenge: false,
        challenged: Vec::new(),
    };
    let result = lane(
        LaneOutcome::Complete,
        vec![decide(0, Action::Downgrade, "only reachable from tests")],
        vec![],
    );
    let out = adjudicate(&plan, Some(&result), findings, &any_line);
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
        &any_line,
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
        &any_line,
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
        &any_line,
    );
    assert_eq!(
        without_notes(&out.findings),
        without_notes(&findings),
        "nothing changed"
    );
    assert_eq!(out.findings[0].why, "Adjudicated: confirmed.");
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
        &any_line,
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
        challenge: false,
        challenged: Vec::new(),
    };
    let drop_all: Vec<Decision> = (0..3).map(|i| decide(i, Action::Drop, "no")).collect();
    for outcome in [LaneOutcome::Incomplete, LaneOutcome::PipelineFault] {
        let result = lane(outcome, drop_all.clone(), vec![]);
        let out = adjudicate(&plan, Some(&result), findings.clone(), &any_line);
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
        challenge: false,
        challenged: Vec::new(),
    };
    let confirm_all = (0..3).map(|i| decide(i, Action::Confirm, "")).collect();
    let result = lane(
        LaneOutcome::Complete,
        confirm_all,
        vec![finding("NEW", Blocker, 9)],
    );
    let out = adjudicate(&plan, Some(&result), findings.clone(), &any_line);
    assert_eq!(without_notes(&out.findings), without_notes(&findings));
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
        challenge: false,
        challenged: Vec::new(),
    };
    let clean = vec![finding("S1", Suggestion, 4)];
    let out = adjudicate(&plan, None, clean.clone(), &any_line);
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
            why: before.why.clone(),
            ..after.clone()
        } == *before
}

proptest! {
    #[test]
    fn adjudication_never_adds_raises_or_touches_confidence(
        (findings, candidates) in arb_case(),
        decisions in prop::collection::vec(arb_decision(), 0..16),
    ) {
        let out = apply("x", findings.clone(), &candidates, &decisions, &any_line);
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
        // Lowered by a decision, or held back: an unconfirmed BLOCKER
        // below the confidence it needs.
        let lowered = out.findings.iter().zip(&findings).filter(|(a, b)| {
            a.severity < b.severity && !(b.confidence < UNCONFIRMED_BELOW && a.why.contains("Unconfirmed"))
        });
        if r.dropped == 0 {
            prop_assert_eq!(lowered.count(), r.downgraded);
        }
        for c in &r.changes {
            prop_assert!(!c.reason.is_empty());
            prop_assert!(c.to.is_none_or(|to| Some(to) == lower(c.from)));
        }
    }
}

#[test]
fn a_blocker_is_dropped_or_lowered_only_on_evidence_the_review_holds() {
    let (findings, candidates) = verified();
    // Only src/a.rs:7 is a line the review holds.
    let holds = |file: &str, line: u32| file == "src/a.rs" && line == 7;
    let on = |d: Decision, evidence: &str| Decision {
        evidence: evidence.into(),
        ..d
    };
    let out = apply(
        "llm",
        findings,
        &candidates,
        &[
            on(decide(0, Action::Drop, "guarded upstream"), "src/b.rs:3"),
            on(decide(1, Action::Downgrade, "tests only"), ""),
            on(decide(2, Action::Drop, "not reachable"), ""),
        ],
        &holds,
    );
    // Both BLOCKERs stand; an IMPORTANT needs no evidence.
    assert_eq!(
        rules_and_severities(&out.findings),
        [("B1", Blocker), ("B2", Blocker), ("S1", Suggestion)]
    );
    assert_eq!(out.report.dropped, 1);
    let refused: Vec<&String> = out
        .report
        .warnings
        .iter()
        .filter(|w| w.contains("refused"))
        .collect();
    assert_eq!(refused.len(), 2, "{:#?}", out.report.warnings);
    assert!(refused[0].contains("\"src/b.rs:3\", not a line the review holds"));
    assert!(refused[1].contains("it cites no evidence"));
    let held = apply(
        "llm",
        verified().0,
        &verified().1,
        &[on(
            decide(0, Action::Drop, "guarded at line 7"),
            "src/a.rs:7",
        )],
        &holds,
    );
    assert_eq!(held.report.dropped, 1);
}

#[test]
fn why_says_what_adjudication_decided() {
    let (findings, candidates) = verified();
    let out = apply(
        "llm",
        findings,
        &candidates,
        &[
            decide(0, Action::Confirm, "traced the None from the form"),
            decide(1, Action::Downgrade, "only reachable from an admin tool"),
            decide(2, Action::Confirm, ""),
        ],
        &any_line,
    );
    let whys: Vec<&str> = out.findings.iter().map(|f| f.why.as_str()).collect();
    assert_eq!(
        whys,
        [
            "Adjudicated: confirmed — traced the None from the form",
            "Adjudicated: downgraded — only reachable from an admin tool",
            "Adjudicated: confirmed.",
            "",
        ]
    );
}

#[test]
fn a_lowered_finding_meets_its_new_floor_again() {
    let (mut findings, _) = verified();
    findings[1].confidence = 65;
    let candidates: Vec<Finding> = findings
        .iter()
        .filter(|f| is_candidate(f))
        .cloned()
        .collect();
    let out = apply(
        "llm",
        findings,
        &candidates,
        &[
            decide(0, Action::Confirm, ""),
            decide(1, Action::Downgrade, "overstated"),
            decide(2, Action::Confirm, ""),
        ],
        &any_line,
    );
    assert_eq!(
        rules_and_severities(&out.findings),
        [("B1", Blocker), ("I1", Important), ("S1", Suggestion)]
    );
    assert_eq!((out.report.downgraded, out.report.dropped), (0, 1));
    assert!(
        out.report.changes[0].reason.starts_with(
            "downgraded to IMPORTANT, below that severity's confidence floor (65 < 70)"
        ),
        "{:?}",
        out.report.changes[0]
    );
}

#[test]
fn a_low_confidence_blocker_reaches_the_verdict_only_confirmed() {
    let (mut findings, _) = verified();
    findings[0].confidence = 60;
    findings[1].confidence = 60;
    let candidates: Vec<Finding> = findings
        .iter()
        .filter(|f| is_candidate(f))
        .cloned()
        .collect();
    // Adjudicated: B1 confirmed stays a BLOCKER; B2 without a decision is
    // held back.
    let out = apply(
        "llm",
        findings.clone(),
        &candidates,
        &[decide(0, Action::Confirm, "traced it")],
        &any_line,
    );
    assert_eq!(
        rules_and_severities(&out.findings)[..2],
        [("B1", Blocker), ("B2", Important)]
    );
    assert_eq!(out.findings[1].downgraded_from, Some(Blocker));
    assert!(
        out.findings[1]
            .why
            .starts_with("Unconfirmed: raised as a BLOCKER at confidence 60")
    );
    // Not adjudicated at all: both held back.
    let mut plain = findings;
    hold_back_unconfirmed(&mut plain, &[]);
    assert!(plain[..2].iter().all(|f| f.severity == Important));
}

#[test]
fn the_rules_engine_is_given_no_model_finding_to_confirm() {
    let model = Finding {
        confidence: 60,
        ..finding("llm:security", Blocker, 5)
    };
    assert!(is_candidate_for("llm", &model));
    assert!(!is_candidate_for("rules", &model));
    assert!(is_candidate_for(
        "rules",
        &finding("RV-SEC-002", Blocker, 5)
    ));
    // Left as verified, and held back for want of a confirmation.
    let plan = AdjudicationPlan {
        engine: "rules".into(),
        candidates: vec![],
        challenge: false,
        challenged: Vec::new(),
    };
    let out = adjudicate(&plan, None, vec![model], &any_line);
    assert_eq!(out.report.status, AdjudicationStatus::NothingToAdjudicate);
    assert_eq!(out.findings[0].severity, Important);
}
