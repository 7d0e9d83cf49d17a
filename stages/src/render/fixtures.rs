//! The hand-built reports every renderer's golden tests read: a clean
//! docs-only review, and a blocked one with a faulted lane, a merged finding,
//! a finding on a whole file (cited at its first changed line) and text that
//! needs escaping; and variants of them
//! (adjudicated, with a walkthrough).

use revu_domain::adjudication::{
    ADJUDICATION_LANE, Action, AdjudicationChange, AdjudicationReport, AdjudicationStatus,
    ChallengeOutcome, ChallengeVerdict,
};
use revu_domain::diff::FileStatus;
use revu_domain::facts::{RiskTier, Signal};
use revu_domain::finding::{Dimension, Finding, Severity};
use revu_domain::intent::IntentSource;
use revu_domain::lane::FileNote;
use revu_domain::report::{
    Coverage, FactsSummary, FileCoverage, FileRead, FileSummary, Gate, LaneOutcome, LaneSummary,
    Report, Rigor, RigorChoice, RigorSource, SCHEMA_VERSION, Verdict, VerificationStats,
    Walkthrough,
};
use revu_domain::review::{SYNTHESIS_LANE, SkippedDimension};

pub fn lane(
    id: &str,
    kind: &str,
    outcome: LaneOutcome,
    findings: usize,
    summary: &str,
) -> LaneSummary {
    LaneSummary {
        id: id.into(),
        kind: kind.into(),
        domain: None,
        dimension: None,
        engine: "rules".into(),
        outcome,
        attempts: 1,
        files: 1,
        checks: vec!["citations".into()],
        findings_raised: findings,
        summary: summary.into(),
        banner: None,
        usage: None,
        cache: None,
    }
}

pub fn file(path: &str, status: FileStatus, added: u32, removed: u32, slice: &str) -> FileSummary {
    FileSummary {
        path: path.into(),
        old_path: None,
        status,
        binary: false,
        added,
        removed,
        slice: slice.into(),
    }
}

pub fn finding(
    rule: &str,
    severity: Severity,
    file: &str,
    line: u32,
    dimension: Dimension,
) -> Finding {
    Finding::at(rule, severity, file, line, dimension)
}

/// A docs-only change every lane passed.
pub fn clean_docs_report() -> Report {
    Report {
        schema_version: SCHEMA_VERSION.into(),
        review_id: "rv-0001".into(),
        verdict: Verdict::Approve,
        gate: Gate::MergeReady,
        gate_reasons: vec![],
        rigor: RigorChoice {
            level: Rigor::Production,
            source: RigorSource::Default,
        },
        summary:
            "Reviewed 1 file(s) (+12 −3) in 1 lane(s), 1 complete; 0 finding(s) after verification."
                .into(),
        facts: FactsSummary {
            files_changed: 1,
            lines_added: 12,
            lines_removed: 3,
            risk_tier: RiskTier::Trivial,
            signals: vec![Signal::DocsOnly],
            files: vec![file("docs/guide.md", FileStatus::Modified, 12, 3, "docs")],
        },
        lanes: vec![lane(
            "domain:docs",
            "domain",
            LaneOutcome::Complete,
            0,
            "links and headings check out",
        )],
        dimensions_not_dispatched: vec![SkippedDimension {
            dimension: Dimension::Performance,
            reason: "docs-only change".into(),
        }],
        findings: vec![],
        cross_cutting: vec![],
        verification: VerificationStats::default(),
        actions: vec!["merge when CI is green".into()],
        cover_fallback: None,
        walkthrough: None,
        coverage: Coverage {
            files: vec![covered("docs/guide.md", &["domain:docs"], FileRead::Diff)],
            truncated: vec![],
            intent_sources: vec![],
        },
        conventions: Default::default(),
        adjudication: None,
        code_index: None,
        usage: None,
        owners: Vec::new(),
    }
}

/// A risky change: a BLOCKER, an IMPORTANT, a merged finding, a faulted
/// lane, and text that needs escaping.
pub fn blocked_report() -> Report {
    let blocker = Finding {
        summary: "session token compared with `==`".into(),
        why: "a non-constant-time comparison leaks the token byte by byte".into(),
        fix: "use `subtle::ConstantTimeEq`".into(),
        confidence: 95,
        end_line: Some(44),
        ..finding(
            "RV-SEC-001",
            Severity::Blocker,
            "src/auth/session.rs",
            42,
            Dimension::Security,
        )
    };
    let merged = Finding {
        dimensions: vec![Dimension::Correctness, Dimension::Design],
        summary: "retry loop never gives up".into(),
        why: "a dead peer spins forever. (Severity disagreement: correctness said IMPORTANT, design said SUGGESTION; kept IMPORTANT.)".into(),
        fix: "bound the attempts | back off".into(),
        ..finding("RV-COR-003", Severity::Important, "src/api/client.rs", 17, Dimension::Correctness)
    };
    let important = Finding {
        summary: "handler has no test for the 404 path".into(),
        why: "the branch was added without coverage".into(),
        fix: String::new(),
        confidence: 75,
        ..finding(
            "RV-TST-002",
            Severity::Important,
            "src/api/routes.rs",
            1,
            Dimension::Testing,
        )
    };
    let mut faulted = lane("domain:api", "domain", LaneOutcome::PipelineFault, 0, "");
    faulted.attempts = 3;
    faulted.files = 2;
    faulted.banner = Some("attempts exhausted (3/3): worker deadline exceeded".into());
    let mut renamed = file("src/api/client.rs", FileStatus::Renamed, 20, 4, "api");
    renamed.old_path = Some("src/api/old_client.rs".into());
    Report {
        schema_version: SCHEMA_VERSION.into(),
        review_id: "rv-0002".into(),
        verdict: Verdict::RequestChanges,
        gate: Gate::NeedsHuman,
        gate_reasons: vec![
            "1 blocker finding must be fixed".into(),
            "lane domain:api faulted".into(),
            "verification dropped 2 findings citing code that does not exist".into(),
            "auth surface touched".into(),
        ],
        rigor: RigorChoice {
            level: Rigor::Production,
            source: RigorSource::Request,
        },
        summary:
            "Reviewed 4 file(s) (+88 −9) in 3 lane(s), 2 complete; 3 finding(s) after verification."
                .into(),
        facts: FactsSummary {
            files_changed: 4,
            lines_added: 88,
            lines_removed: 9,
            risk_tier: RiskTier::HighRisk,
            signals: vec![Signal::AuthSurface, Signal::PublicApi],
            files: vec![
                file("src/auth/session.rs", FileStatus::Modified, 30, 5, "auth"),
                renamed,
                file("src/api/routes.rs", FileStatus::Added, 36, 0, "api"),
                FileSummary {
                    binary: true,
                    ..file("docs/odd|name`.png", FileStatus::Added, 0, 0, "docs")
                },
            ],
        },
        lanes: vec![
            lane(
                "domain:auth",
                "domain",
                LaneOutcome::Complete,
                1,
                "token handling | sessions",
            ),
            faulted,
            lane(
                "specialist:correctness",
                "specialist",
                LaneOutcome::Complete,
                4,
                "one retry bug",
            ),
        ],
        dimensions_not_dispatched: vec![],
        findings: vec![blocker, merged, important],
        cross_cutting: vec![
            "src/api/client.rs:17: 2 distinct issues (RV-COR-003, RV-PRF-001)".into(),
        ],
        verification: VerificationStats {
            raised: 8,
            dropped_unknown_file: 1,
            dropped_missing_line: 1,
            dropped_low_confidence: 1,
            dropped_untouched_line: 1,
            merged_duplicates: 1,
            kept: 3,
            ..VerificationStats::default()
        },
        actions: vec![
            "fix: session token compared with `==` (src/auth/session.rs:42-44)".into(),
            "re-run lane domain:api: attempts exhausted (3/3): worker deadline exceeded".into(),
            "get a human review of the auth surface change".into(),
            "check why 2 findings cited code that does not exist".into(),
            "follow up: retry loop never gives up (src/api/client.rs:17)".into(),
        ],
        cover_fallback: Some(
            "refinement listed src/api/routes.rs twice; kept the deterministic proposal".into(),
        ),
        walkthrough: None,
        coverage: Coverage {
            files: vec![
                covered(
                    "src/auth/session.rs",
                    &["domain:auth", "specialist:correctness"],
                    FileRead::Full,
                ),
                covered(
                    "src/api/client.rs",
                    &["specialist:correctness"],
                    FileRead::Diff,
                ),
                covered(
                    "src/api/routes.rs",
                    &["specialist:correctness"],
                    FileRead::Diff,
                ),
                FileCoverage {
                    skipped: Some("every lane given it failed to report".into()),
                    ..covered("docs/odd|name`.png", &[], FileRead::None)
                },
            ],
            truncated: vec![
                "specialist:correctness: the review's token cap of 9000 is spent".into(),
            ],
            intent_sources: vec![IntentSource::Github, IntentSource::Commits],
        },
        conventions: Default::default(),
        adjudication: None,
        code_index: None,
        usage: None,
        owners: Vec::new(),
    }
}

/// [`blocked_report`] after an adjudication lane downgraded its BLOCKER and
/// dropped an IMPORTANT, with one decision ignored.
pub fn adjudicated_report() -> Report {
    let mut r = blocked_report();
    r.review_id = "rv-0003".into();
    r.findings[0].severity = Severity::Important;
    r.lanes.push(lane(
        ADJUDICATION_LANE,
        "adjudication",
        LaneOutcome::Complete,
        0,
        "re-ran 3 candidate(s): 1 confirmed, 1 downgraded, 1 dropped",
    ));
    r.adjudication = Some(AdjudicationReport {
        engine: "rules".into(),
        status: AdjudicationStatus::Applied,
        candidates: 3,
        confirmed: 1,
        downgraded: 1,
        dropped: 1,
        changes: vec![
            AdjudicationChange {
                action: Action::Downgrade,
                rule: "RV-SEC-001".into(),
                citation: "src/auth/session.rs:42-44".into(),
                summary: "session token compared with `==`".into(),
                from: Severity::Blocker,
                to: Some(Severity::Important),
                reason: "only test code calls it".into(),
            },
            AdjudicationChange {
                action: Action::Drop,
                rule: "RV-COR-002".into(),
                citation: "src/api/client.rs:9".into(),
                summary: "stale cache read".into(),
                from: Severity::Important,
                to: None,
                reason: "rule no longer fires at src/api/client.rs:9".into(),
            },
        ],
        warnings: vec!["second decision for candidate 0 ignored".into()],
        challenges: vec![ChallengeOutcome {
            rule: "RV-SEC-001".into(),
            citation: "src/auth/session.rs:42-44".into(),
            summary: "session token compared with `==`".into(),
            adjudication: Some(Action::Downgrade),
            verdict: ChallengeVerdict::Stands,
            reason: "the token reaches the comparison from the cookie".into(),
            evidence: String::new(),
        }],
    });
    r
}

/// One file's coverage.
fn covered(path: &str, lanes: &[&str], read: FileRead) -> FileCoverage {
    FileCoverage {
        path: path.into(),
        lanes: lanes.iter().map(|l| (*l).to_owned()).collect(),
        read,
        skipped: None,
    }
}

/// [`clean_docs_report`] with a synthesis lane's walkthrough, one of whose
/// paragraphs would open a heading.
pub fn synthesized_report() -> Report {
    let mut r = clean_docs_report();
    r.review_id = "rv-0004".into();
    r.lanes.push(lane(
        SYNTHESIS_LANE,
        "synthesis",
        LaneOutcome::Complete,
        0,
        "walkthrough of 1 file",
    ));
    r.walkthrough = Some(Walkthrough {
        engine: "rules".into(),
        text: "The change rewrites the install guide.\n\n# It is docs only, so no code\nchanges behaviour."
            .into(),
        files: r
            .facts
            .files
            .iter()
            .map(|f| FileNote {
                path: f.path.clone(),
                note: "install steps | reordered".into(),
            })
            .collect(),
        note: Some("1 line(s) on files not in the change left out: src/ghost.rs".into()),
    });
    r
}
