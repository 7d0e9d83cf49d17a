//! Stages 7–8 after gathering, as one pure function: verification of every
//! finding, verdict math, and the canonical report.
//!
//! The repository's `REVIEW.md` and `revu.toml` are re-read from the stored
//! bundle rather than carried in the plan: parsing is cheap and pure, and
//! the report then depends on nothing but stored state.

use crate::conventions::{REPO_CONFIG, RepoContext, source_file};
use crate::stages::verdict::{self, VerdictInput};
use crate::stages::verify;
use revu_common::bundle::ReviewBundle;
use revu_common::diff::Diff;
use revu_common::lane::{LaneKind, ReviewId};
use revu_common::report::{
    ConventionsReport, GuidanceGiven, LaneOutcome, LaneSummary, Report, SCHEMA_VERSION,
};
use revu_common::review::{LaneResult, ReviewPlan};
use revu_common::telemetry::names::span;
use std::collections::BTreeMap;

/// Builds the report of a review whose lanes have all settled.
pub fn assemble(
    id: &ReviewId,
    plan: &ReviewPlan,
    results: &BTreeMap<String, LaneResult>,
    diff: &Diff,
    bundle: &ReviewBundle,
) -> Report {
    let mut raised = Vec::new();
    let mut lanes = Vec::with_capacity(plan.lanes.len());
    for spec in &plan.lanes {
        let result = results.get(&spec.id);
        let body = result.and_then(|r| r.body.as_ref());
        if let Some(body) = body {
            raised.extend(body.findings.iter().cloned());
        }
        let (domain, dimension) = match &spec.kind {
            LaneKind::Domain { domain } => (Some(domain.clone()), None),
            LaneKind::Specialist { dimension } => (None, Some(*dimension)),
        };
        lanes.push(LaneSummary {
            id: spec.id.clone(),
            kind: spec.kind.label().to_owned(),
            domain,
            dimension,
            engine: spec.engine.clone(),
            outcome: result
                .map(|r| r.outcome)
                .unwrap_or(LaneOutcome::PipelineFault),
            attempts: result.map(|r| r.attempts).unwrap_or(0),
            files: spec.files.len(),
            checks: body.map(|b| b.checks.clone()).unwrap_or_default(),
            findings_raised: body.map(|b| b.findings.len()).unwrap_or(0),
            summary: body.map(|b| b.summary.clone()).unwrap_or_default(),
            banner: match result {
                Some(r) => r.banner.clone(),
                None => Some("lane never settled".to_owned()),
            },
        });
    }
    let (repo, mut conventions) = repo_context(bundle);
    let ledger = repo.config.ledger.run(diff);
    conventions.ledger_matches = ledger.len();
    raised.extend(ledger);
    let verified = verify::verify_with(raised, diff, bundle, &repo.conventions);
    conventions.path_guidance = repo
        .conventions
        .guidance
        .iter()
        .map(|g| {
            let guidance = g.render();
            GuidanceGiven {
                convention: format!("REVIEW.md:{}", g.line),
                lanes: plan
                    .lanes
                    .iter()
                    .filter(|l| l.guidance.contains(&guidance))
                    .map(|l| l.id.clone())
                    .collect(),
                guidance,
            }
        })
        .collect();
    conventions.overrides_applied = verified.conventions.overrides;
    conventions.nits_suppressed = verified.conventions.nits;
    conventions.blockers_protected = verified.conventions.protected;
    let failed_citations =
        verified.stats.dropped_unknown_file + verified.stats.dropped_missing_line;
    let decision = tracing::info_span!(span::VERDICT).in_scope(|| {
        verdict::decide(&VerdictInput {
            findings: &verified.findings,
            lanes: &lanes,
            signals: &plan.signals,
            rigor: plan.rigor.level,
            failed_citations,
        })
    });
    let summary = summarize(plan, &lanes, &verified.findings.len());
    Report {
        schema_version: SCHEMA_VERSION.to_owned(),
        review_id: id.0.clone(),
        verdict: decision.verdict,
        gate: decision.gate,
        gate_reasons: decision.gate_reasons,
        rigor: plan.rigor,
        summary,
        facts: plan.facts.clone(),
        lanes,
        dimensions_not_dispatched: plan.skipped_dimensions.clone(),
        findings: verified.findings,
        cross_cutting: verified.cross_cutting,
        verification: verified.stats,
        actions: decision.actions,
        cover_fallback: plan.cover_fallback.clone(),
        conventions,
    }
}

/// The repository context of the review. A `revu.toml` that no longer
/// loads (it was accepted at submission, so only a coordinator upgrade can
/// cause this) is reported, and the review goes on with `REVIEW.md` alone.
fn repo_context(bundle: &ReviewBundle) -> (RepoContext, ConventionsReport) {
    let (review_md, repo_config) = (bundle.conventions.as_deref(), bundle.repo_config.as_deref());
    match RepoContext::load(review_md, repo_config) {
        Ok(repo) => {
            let report = repo.report();
            (repo, report)
        }
        Err(e) => {
            let repo = RepoContext::load(review_md, None).unwrap_or_default();
            let mut report = repo.report();
            report.repo_config = repo_config.map(|t| source_file(REPO_CONFIG, t));
            report
                .warnings
                .push(format!("{e}; {REPO_CONFIG} was not applied"));
            (repo, report)
        }
    }
}

fn summarize(plan: &ReviewPlan, lanes: &[LaneSummary], findings: &usize) -> String {
    let complete = lanes
        .iter()
        .filter(|l| l.outcome == LaneOutcome::Complete)
        .count();
    format!(
        "Reviewed {} file(s) (+{} −{}) in {} lane(s), {} complete; {} finding(s) after verification.",
        plan.facts.files_changed,
        plan.facts.lines_added,
        plan.facts.lines_removed,
        lanes.len(),
        complete,
        findings
    )
}
