#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use Dimension::{Correctness, Design, Operability, Performance, Security, Testing};
use Severity::{Blocker, Important, Suggestion};
use proptest::prelude::*;
use revu_domain::finding::BlastRadius;

fn finding(rule: &str, severity: Severity, line: u32, dimension: Dimension) -> Finding {
    Finding {
        rule: rule.into(),
        severity,
        file: "src/a.rs".into(),
        line,
        end_line: None,
        dimension,
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

fn lane(id: &str, outcome: LaneOutcome, banner: Option<&str>) -> LaneSummary {
    LaneSummary {
        id: id.into(),
        kind: "domain".into(),
        domain: Some("api".into()),
        dimension: None,
        engine: "rules".into(),
        outcome,
        attempts: 1,
        files: 1,
        checks: vec![],
        findings_raised: 0,
        summary: String::new(),
        banner: banner.map(Into::into),
        usage: None,
        cache: None,
    }
}

fn decide_on(
    findings: &[Finding],
    lanes: &[LaneSummary],
    signals: &[Signal],
    failed: usize,
) -> Decision {
    decide(&VerdictInput {
        findings,
        lanes,
        signals,
        rigor: Rigor::Production,
        failed_citations: failed,
    })
}

#[test]
fn pre_existing_findings_below_blocker_do_not_count() {
    let mut old = finding("RV-COR-001", Important, 3, Correctness);
    old.pre_existing = true;
    let d = decide_on(
        &[old],
        &[lane("domain:api", LaneOutcome::Complete, None)],
        &[],
        0,
    );
    assert_eq!(d.verdict, Verdict::Approve);
    assert_eq!(d.gate, Gate::MergeReady);
    assert_eq!(d.actions, ["merge when CI is green"]);
    let mut blocker = finding("RV-SEC-001", Blocker, 3, Security);
    blocker.pre_existing = true;
    let d = decide_on(&[blocker], &[], &[], 0);
    assert_eq!(
        d.verdict,
        Verdict::RequestChanges,
        "a BLOCKER always counts"
    );
}

#[test]
fn fold_follows_the_documented_table() {
    let soft = [Design, Performance, Testing, Operability];
    for d in Dimension::ALL {
        let is_soft = soft.contains(&d);
        for s in [Blocker, Important, Suggestion] {
            assert_eq!(fold(s, d, Rigor::Production), Some(s));
        }
        assert_eq!(fold(Suggestion, d, Rigor::Prototype), Some(Suggestion));
        assert_eq!(fold(Suggestion, d, Rigor::Poc), Some(Suggestion));
        assert_eq!(fold(Blocker, d, Rigor::Prototype), Some(Blocker));
        let proto_important = if is_soft { Suggestion } else { Important };
        assert_eq!(
            fold(Important, d, Rigor::Prototype),
            Some(proto_important),
            "{d}"
        );
        assert_eq!(fold(Important, d, Rigor::Poc), Some(Suggestion));
        let poc_blocker = if is_soft { Important } else { Blocker };
        assert_eq!(fold(Blocker, d, Rigor::Poc), Some(poc_blocker), "{d}");
    }
}

#[test]
fn merged_finding_folds_to_its_most_severe_dimension() {
    let mut f = finding("R", Blocker, 1, Correctness);
    f.dimensions = vec![Correctness, Design];
    assert_eq!(folded_severity(&f, Rigor::Poc), Some(Blocker));
    f.dimension = Design;
    f.dimensions = vec![Design, Testing];
    assert_eq!(folded_severity(&f, Rigor::Poc), Some(Important));
}

#[test]
fn verdict_counts_folded_severities() {
    let design_blocker = [finding("R", Blocker, 1, Design)];
    let at = |rigor| {
        decide(&VerdictInput {
            findings: &design_blocker,
            lanes: &[],
            signals: &[],
            rigor,
            failed_citations: 0,
        })
    };
    assert_eq!(at(Rigor::Production).verdict, Verdict::RequestChanges);
    assert_eq!(at(Rigor::Poc).verdict, Verdict::ApproveWithFollowups);
    assert_eq!(at(Rigor::Poc).gate, Gate::MergeReady);
    let only_suggestions = [finding("R", Suggestion, 1, Security)];
    assert_eq!(
        decide_on(&only_suggestions, &[], &[], 0).verdict,
        Verdict::Approve
    );
}

#[test]
fn clean_review_is_merge_ready_with_one_action() {
    let d = decide_on(
        &[],
        &[lane("domain:api", LaneOutcome::Complete, None)],
        &[Signal::CiCd],
        0,
    );
    assert_eq!((d.verdict, d.gate), (Verdict::Approve, Gate::MergeReady));
    assert!(d.gate_reasons.is_empty());
    assert_eq!(d.actions, ["merge when CI is green"]);
}

#[test]
fn gate_reasons_list_every_cause_in_order() {
    let findings = [
        finding("A", Blocker, 3, Security),
        finding("B", Blocker, 9, Correctness),
    ];
    let lanes = [
        lane(
            "specialist:security",
            LaneOutcome::Incomplete,
            Some("missing section: checks"),
        ),
        lane(
            "domain:api",
            LaneOutcome::PipelineFault,
            Some("attempts exhausted"),
        ),
        lane("domain:docs", LaneOutcome::Complete, None),
    ];
    let signals = [
        Signal::PublicApi,
        Signal::DestructiveMigration,
        Signal::AuthSurface,
    ];
    let d = decide_on(&findings, &lanes, &signals, 1);
    assert_eq!(d.gate, Gate::NeedsHuman);
    assert_eq!(
        d.gate_reasons,
        [
            "2 blocker findings must be fixed",
            "lane domain:api faulted",
            "lane specialist:security is incomplete",
            "verification dropped 1 finding citing code that does not exist",
            "auth surface touched",
            "destructive migration",
        ]
    );
}

#[test]
fn actions_put_blockers_first_and_stop_at_five() {
    let findings = [
        finding("I1", Important, 1, Correctness),
        finding("B1", Blocker, 7, Security),
    ];
    let lanes = [lane(
        "domain:api",
        LaneOutcome::PipelineFault,
        Some("deadline exceeded"),
    )];
    let d = decide_on(&findings, &lanes, &[Signal::AuthSurface], 2);
    assert_eq!(
        d.actions,
        [
            "fix: B1 summary (src/a.rs:7)",
            "re-run lane domain:api: deadline exceeded",
            "get a human review of the auth surface change",
            "check why 2 findings cited code that does not exist",
            "follow up: I1 summary (src/a.rs:1)",
        ]
    );
    let many: Vec<Finding> = (1..9).map(|l| finding("I", Important, l, Design)).collect();
    let d = decide_on(&many, &[], &[], 0);
    assert_eq!(d.actions.len(), 5);
    assert_eq!(d.actions[0], "follow up: I summary (src/a.rs:1)");
    assert!(d.gate_reasons.is_empty());
}

fn arb_finding() -> impl Strategy<Value = Finding> {
    let sev = prop::sample::select(vec![Blocker, Important, Suggestion]);
    let dim = prop::sample::select(Dimension::ALL.to_vec());
    let dims = prop::collection::vec(prop::sample::select(Dimension::ALL.to_vec()), 0..3);
    (sev, dim, dims, 0u32..20).prop_map(|(s, d, ds, line)| Finding {
        dimensions: ds,
        ..finding("R", s, line, d)
    })
}

fn arb_lane() -> impl Strategy<Value = LaneSummary> {
    let outcome = prop::sample::select(vec![
        LaneOutcome::Complete,
        LaneOutcome::Incomplete,
        LaneOutcome::PipelineFault,
        LaneOutcome::Cancelled,
    ]);
    ("[ab]{1,2}", outcome).prop_map(|(id, o)| lane(&id, o, None))
}

fn arb_signal() -> impl Strategy<Value = Signal> {
    prop::sample::select(vec![
        Signal::AuthSurface,
        Signal::DestructiveMigration,
        Signal::PublicApi,
        Signal::CiCd,
        Signal::DependencyChange,
        Signal::GeneratedOrVendored,
        Signal::DocsOnly,
    ])
}

proptest! {
    #[test]
    fn verdict_and_gate_follow_the_rules(
        findings in prop::collection::vec(arb_finding(), 0..8),
        lanes in prop::collection::vec(arb_lane(), 0..4),
        signals in prop::collection::vec(arb_signal(), 0..3),
        rigor in prop::sample::select(vec![Rigor::Poc, Rigor::Prototype, Rigor::Production]),
        failed_citations in 0usize..3,
    ) {
        let input = VerdictInput { findings: &findings, lanes: &lanes, signals: &signals, rigor, failed_citations };
        let d = decide(&input);
        let any_blocker = findings.iter().any(|f| folded_severity(f, rigor) == Some(Blocker));
        prop_assert_eq!(d.verdict == Verdict::RequestChanges, any_blocker);
        if d.gate == Gate::MergeReady {
            prop_assert!(!any_blocker);
            prop_assert!(lanes.iter().all(|l| !matches!(l.outcome, LaneOutcome::PipelineFault | LaneOutcome::Incomplete)));
            prop_assert!(signals.iter().all(|s| !s.always_human()));
            prop_assert_eq!(failed_citations, 0);
            prop_assert!(d.gate_reasons.is_empty());
        } else {
            prop_assert!(!d.gate_reasons.is_empty());
        }
        prop_assert!((1..=MAX_ACTIONS).contains(&d.actions.len()));
        prop_assert_eq!(decide(&input), d);
    }

    #[test]
    fn folding_never_raises_a_severity(
        f in arb_finding(),
        rigor in prop::sample::select(vec![Rigor::Poc, Rigor::Prototype, Rigor::Production]),
    ) {
        for d in Dimension::ALL {
            prop_assert!(fold(f.severity, d, rigor).is_none_or(|s| s <= f.severity));
        }
        prop_assert!(folded_severity(&f, rigor).is_none_or(|s| s <= f.severity));
    }

    #[test]
    fn decision_ignores_finding_order(
        (findings, shuffled) in prop::collection::vec(arb_finding(), 0..8)
            .prop_flat_map(|v| (Just(v.clone()), Just(v).prop_shuffle())),
        rigor in prop::sample::select(vec![Rigor::Poc, Rigor::Prototype, Rigor::Production]),
    ) {
        let on = |findings: &[Finding]| decide(&VerdictInput { findings, lanes: &[], signals: &[], rigor, failed_citations: 0 });
        prop_assert_eq!(on(&findings), on(&shuffled));
    }
}
