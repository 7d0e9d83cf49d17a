//! Repo conventions end to end through `prepare` and `assemble`: a fixture
//! change, its `REVIEW.md` and `revu.toml`, and the findings lanes raised.
//! The acceptance tests of the review contract live here, each on its own,
//! and one golden test pins the whole conventions section of the report.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use revu_coordinator::config::ReviewSettings;
use revu_domain::bundle::ReviewBundle;
use revu_domain::finding::{BlastRadius, Dimension, Finding, Severity};
use revu_domain::lane::{LaneReportBody, ReviewId};
use revu_domain::report::Report;
use revu_domain::review::{LaneEnd, LaneResult, LaneResults};
use revu_stages::assemble::assemble;
use revu_stages::grouping::{Grouper, default_domains};
use revu_stages::prepare::{PlanRequest, prepare};
use std::sync::Arc;

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/conventions/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn finding(rule: &str, severity: Severity, file: &str, line: u32, summary: &str) -> Finding {
    Finding {
        rule: rule.into(),
        severity,
        file: file.into(),
        line,
        end_line: None,
        dimension: Dimension::Correctness,
        dimensions: vec![],
        summary: summary.into(),
        why: "why".into(),
        fix: "fix".into(),
        confidence: 90,
        blast_radius: BlastRadius::Local,
        pre_existing: false,
        pre_existing_line: false,
        downgraded_from: None,
        meta: false,
        owners: Vec::new(),
    }
}

/// What the lanes raised on the fixture change.
fn raised() -> Vec<Finding> {
    vec![
        finding(
            "RV-COR-001",
            Severity::Important,
            "services/payments/balance.rs",
            2,
            "unwrap in production code",
        ),
        finding(
            "RV-OPS-001",
            Severity::Suggestion,
            "examples/demo.rs",
            2,
            "debug print",
        ),
        finding(
            "RV-OPS-001",
            Severity::Suggestion,
            "src/cli.rs",
            2,
            "debug print",
        ),
        finding(
            "RV-SEC-001",
            Severity::Blocker,
            "src/auth/token.rs",
            2,
            "hard-coded signing key",
        ),
        finding(
            "RV-DES-001",
            Severity::Important,
            "docs/payments.md",
            2,
            "doc names a function the API does not export",
        ),
    ]
}

/// Runs the fixture review with the given conventions and findings.
fn review(review_md: Option<&str>, revu_toml: Option<&str>, raised: Vec<Finding>) -> Report {
    let diff = fixture("change.diff").into_bytes();
    let settings = ReviewSettings::default();
    let grouper = Grouper::new(&default_domains(), settings.max_slice_files).unwrap();
    let request = PlanRequest {
        review_md: review_md.map(str::to_owned),
        repo_config: revu_toml.map(str::to_owned),
        ..PlanRequest::default()
    };
    let prepared = prepare(&diff, &settings.plan(), &grouper, &request).unwrap();
    let mut body = Some(LaneReportBody {
        reviewed: vec![],
        checks: vec!["fixture".into()],
        findings: raised,
        summary: "fixture lane".into(),
        ..LaneReportBody::default()
    });
    let results: LaneResults = prepared
        .plan
        .lanes
        .iter()
        .map(|l| {
            let result = LaneResult {
                worker: "w".into(),
                duration_ms: 1,
                // Every finding goes to the first lane, the others are clean.
                ..LaneResult::new(
                    l.id.clone(),
                    LaneEnd::Complete {
                        body: body.take().unwrap_or_default(),
                    },
                    1,
                )
            };
            (l.id.clone(), Arc::new(result))
        })
        .collect();
    let bundle = ReviewBundle {
        diff: diff.into(),
        conventions: review_md.map(str::to_owned),
        repo_config: revu_toml.map(str::to_owned),
        ..ReviewBundle::default()
    };
    assemble(
        &ReviewId("rv-conventions".into()),
        &prepared.plan,
        &results,
        &revu_domain::diff::parse(&bundle.diff).unwrap(),
        &bundle,
    )
}

fn with_fixture_conventions(raised: Vec<Finding>) -> Report {
    review(
        Some(&fixture("REVIEW.md")),
        Some(&fixture("revu.toml")),
        raised,
    )
}

fn severity_of(report: &Report, rule: &str, file: &str) -> Option<Severity> {
    report
        .findings
        .iter()
        .find(|f| f.rule == rule && f.file == file)
        .map(|f| f.severity)
}

#[test]
fn an_allowed_nit_suppresses_a_matching_suggestion() {
    let report = with_fixture_conventions(raised());
    assert_eq!(severity_of(&report, "RV-OPS-001", "examples/demo.rs"), None);
    // The same rule outside the nit's path is still a finding.
    assert_eq!(
        severity_of(&report, "RV-OPS-001", "src/cli.rs"),
        Some(Severity::Suggestion)
    );
    assert_eq!(report.verification.dropped_allowed_nit, 1);
    let nits = &report.conventions.nits_suppressed;
    assert_eq!(nits.len(), 1);
    assert_eq!(nits[0].citation, "examples/demo.rs:2");
    assert_eq!(nits[0].convention, "REVIEW.md:20");
}

#[test]
fn a_severity_override_raises_an_important_to_blocker() {
    let without = review(None, None, raised());
    let path = "services/payments/balance.rs";
    assert_eq!(
        severity_of(&without, "RV-COR-001", path),
        Some(Severity::Important)
    );
    let with = with_fixture_conventions(raised());
    assert_eq!(
        severity_of(&with, "RV-COR-001", path),
        Some(Severity::Blocker)
    );
    assert_eq!(with.verdict.as_str(), "REQUEST CHANGES");
    assert!(
        with.conventions
            .overrides_applied
            .iter()
            .any(|e| e.rule == "RV-COR-001"
                && e.from == Severity::Important
                && e.to == Some(Severity::Blocker))
    );
}

#[test]
fn no_convention_drops_or_lowers_a_blocker() {
    // The fixture caps `src/auth/**` at IMPORTANT, which matches the BLOCKER
    // and is refused; the refusal is reported.
    let report = with_fixture_conventions(raised());
    assert_eq!(
        severity_of(&report, "RV-SEC-001", "src/auth/token.rs"),
        Some(Severity::Blocker)
    );
    let protected: Vec<&str> = report
        .conventions
        .blockers_protected
        .iter()
        .map(|e| e.convention.as_str())
        .collect();
    assert_eq!(protected, ["REVIEW.md:15"]);
    // A catch-all REVIEW.md aimed at every finding changes no BLOCKER.
    let hostile = "## Severity Overrides\n- `**`: at most SUGGESTION\n\
                   ## Allowed Nits\n- `**`\n- matching \"\"\n- `RV-SEC-001`\n";
    let report = review(Some(hostile), None, raised());
    let blockers: Vec<&Finding> = report
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Blocker)
        .collect();
    assert_eq!(blockers.len(), 1);
    assert_eq!(blockers[0].citation(), "src/auth/token.rs:2");
    assert_eq!(report.verdict.as_str(), "REQUEST CHANGES");
}

#[test]
fn the_ledger_raises_a_finding_citing_its_id() {
    let report = with_fixture_conventions(vec![]);
    assert_eq!(report.conventions.ledger_checks, ["MISS-012"]);
    assert_eq!(report.conventions.ledger_matches, 1);
    let miss = report
        .findings
        .iter()
        .find(|f| f.rule == "MISS-012")
        .unwrap();
    assert_eq!(miss.citation(), "services/payments/balance.rs:3");
    assert_eq!(miss.severity, Severity::Important);
}

#[test]
fn the_report_states_the_sources_and_says_when_there_are_none() {
    let report = review(None, None, vec![]);
    let json = serde_json::to_value(&report.conventions).unwrap();
    assert_eq!(json["review_md"], serde_json::Value::Null);
    assert_eq!(json["repo_config"], serde_json::Value::Null);
    let report = with_fixture_conventions(vec![]);
    let review_md = report.conventions.review_md.unwrap();
    assert_eq!(review_md.name, "REVIEW.md");
    assert_eq!(review_md.sha256.len(), 64);
    assert_eq!(report.rigor.level, revu_domain::report::Rigor::Prototype);
}

#[test]
fn golden_conventions_applied_to_the_fixture_review() {
    let report = with_fixture_conventions(raised());
    insta::assert_json_snapshot!(serde_json::json!({
        "rigor": report.rigor,
        "verdict": report.verdict,
        "gate": report.gate,
        "findings": report
            .findings
            .iter()
            .map(|f| format!("{} {} {} ({})", f.severity, f.citation(), f.rule, f.summary))
            .collect::<Vec<_>>(),
        "verification": report.verification,
        "conventions": report.conventions,
    }));
}

#[tokio::test]
async fn a_submission_with_a_bad_revu_toml_is_refused_naming_the_line() {
    use revu_coordinator::service::{Coordinator, RequestError, ServiceError, Submission};
    use revu_queue::memory::MemoryBackend;
    let coordinator = Coordinator::new(MemoryBackend::new(), ReviewSettings::default()).unwrap();
    let submission = Submission {
        diff: fixture("change.diff").into_bytes(),
        repo_config: Some("rigor = \"poc\"\n[grouping]\nmax_files = 3\n".into()),
        ..Submission::default()
    };
    match coordinator.submit(submission).await {
        Err(ServiceError::InvalidRequest(RequestError::RepoConfig(e))) => {
            assert_eq!(e.line, 3, "{e}");
            assert!(
                e.to_string()
                    .contains("revu.toml line 3: unknown field `max_files`"),
                "{e}"
            );
        }
        other => panic!("expected an invalid request, got {other:?}"),
    }
}

#[test]
fn a_stored_revu_toml_that_no_longer_loads_is_reported_and_review_md_still_applies() {
    // Accepted at submission by an older coordinator, say; the report must
    // still be written, saying what was not applied.
    let report = {
        let diff = fixture("change.diff").into_bytes();
        let settings = ReviewSettings::default();
        let grouper = Grouper::new(&default_domains(), settings.max_slice_files).unwrap();
        let prepared = prepare(&diff, &settings.plan(), &grouper, &PlanRequest::default()).unwrap();
        let bundle = ReviewBundle {
            diff: diff.into(),
            conventions: Some(fixture("REVIEW.md")),
            repo_config: Some("rigor = \"someday\"\n".into()),
            ..ReviewBundle::default()
        };
        let results = prepared
            .plan
            .lanes
            .iter()
            .map(|l| {
                let body = LaneReportBody {
                    findings: if l.id == "domain:docs" {
                        raised()
                    } else {
                        vec![]
                    },
                    ..LaneReportBody::default()
                };
                let result = LaneResult {
                    worker: "w".into(),
                    duration_ms: 1,
                    ..LaneResult::new(l.id.clone(), LaneEnd::Complete { body }, 1)
                };
                (l.id.clone(), Arc::new(result))
            })
            .collect();
        assemble(
            &ReviewId("rv-stale".into()),
            &prepared.plan,
            &results,
            &revu_domain::diff::parse(&bundle.diff).unwrap(),
            &bundle,
        )
    };
    let warnings = &report.conventions.warnings;
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("revu.toml line 1") && w.contains("was not applied")),
        "{warnings:?}"
    );
    assert!(report.conventions.repo_config.is_some());
    assert_eq!(report.verification.dropped_allowed_nit, 1);
}

#[test]
fn reports_with_conventions_validate_against_the_published_schema() {
    let schema: serde_json::Value =
        serde_json::from_str(revu_domain::report_schema::REPORT_SCHEMA).unwrap();
    let validator = jsonschema::options().build(&schema).unwrap();
    for report in [
        with_fixture_conventions(raised()),
        review(None, None, raised()),
    ] {
        let json = serde_json::to_value(&report).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&json)
            .map(|e| format!("{}: {e}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{errors:#?}");
    }
}
