//! Stages 7–8 after gathering, as one pure function: verification of every
//! finding, adjudication when the review has it, verdict math, and the
//! canonical report.
//!
//! The repository's `REVIEW.md` files, `revu.toml` and `CODEOWNERS` are re-read from the stored
//! bundle rather than carried in the plan: parsing is cheap and pure, and
//! the report then depends on nothing but stored state.

use crate::adjudicate;
use crate::conventions::{REPO_CONFIG, RepoContext, source_file};
use crate::verdict::{self, VerdictInput};
use crate::verify::{self, Verified};
use revu_domain::adjudication::{ADJUDICATION_LANE, is_candidate_for};
use revu_domain::bundle::ReviewBundle;
use revu_domain::diff::Diff;
use revu_domain::facts::SkipKind;
use revu_domain::finding::Finding;
use revu_domain::lane::{FileNote, LaneKind, LaneSpec, ReviewId};
use revu_domain::report::{
    ConventionsReport, Coverage, FileCoverage, FileRead, GuidanceGiven, LaneOutcome, LaneSummary,
    Report, SCHEMA_VERSION, Walkthrough,
};
use revu_domain::review::{LaneEnd, LaneResult, LaneResults, ReviewPlan, SYNTHESIS_LANE};
use revu_domain::telemetry::names::span;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Builds the report of a review whose lanes have all settled.
pub fn assemble(
    id: &ReviewId,
    plan: &ReviewPlan,
    results: &LaneResults,
    diff: &Diff,
    bundle: &ReviewBundle,
) -> Report {
    let lanes: Vec<LaneSummary> = plan
        .lanes
        .iter()
        .map(|spec| lane_summary(spec, results.get(&spec.id).map(Arc::as_ref)))
        .collect();
    let (repo, mut conventions) = repo_context(bundle);
    let (verified, ledger_matches) = verify_lanes(plan, results, diff, bundle, &repo);
    conventions.ledger_matches = ledger_matches;
    conventions.path_guidance = repo
        .conventions
        .guidance
        .iter()
        .map(|g| {
            let guidance = g.render();
            GuidanceGiven {
                convention: g.convention(),
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
    let (mut findings, adjudication) = match &plan.adjudication {
        Some(adj) => {
            let holds = |file: &str, line: u32| verify::holds_line(diff, bundle, file, line);
            let mut out = adjudicate::adjudicate(
                adj,
                results.get(ADJUDICATION_LANE).map(Arc::as_ref),
                verified.findings,
                &holds,
            );
            out.report.challenges =
                adjudicate::challenge::challenge(adj, results, &mut out.findings, &holds);
            (out.findings, Some(out.report))
        }
        None => {
            let mut findings = verified.findings;
            adjudicate::hold_back_unconfirmed(&mut findings, &[]);
            (findings, None)
        }
    };
    let decision = tracing::info_span!(span::VERDICT).in_scope(|| {
        verdict::decide(&VerdictInput {
            findings: &findings,
            lanes: &lanes,
            signals: &plan.signals,
            rigor: plan.rigor.level,
            failed_citations,
        })
    });
    let summary = summarize(plan, &lanes, findings.len());
    let owners = repo.owners(diff, &mut findings);
    let mut report = Report {
        schema_version: SCHEMA_VERSION.to_owned(),
        review_id: id.local().to_owned(),
        verdict: decision.verdict,
        gate: decision.gate,
        gate_reasons: decision.gate_reasons,
        rigor: plan.rigor,
        summary,
        facts: plan.facts.clone(),
        lanes,
        dimensions_not_dispatched: plan.skipped_dimensions.clone(),
        findings,
        cross_cutting: verified.cross_cutting,
        verification: verified.stats,
        actions: decision.actions,
        cover_fallback: plan.cover_fallback.clone(),
        walkthrough: plan.synthesis.as_ref().map(|s| {
            walkthrough(
                &s.engine,
                plan,
                results.get(SYNTHESIS_LANE).map(Arc::as_ref),
            )
        }),
        coverage: coverage(plan, results, diff, bundle),
        conventions,
        adjudication,
        code_index: bundle
            .code_index
            .as_ref()
            .map(revu_domain::report::IndexReport::of),
        usage: None,
        owners,
    };
    report.usage = revu_domain::report::ReviewUsage::of(&report.lanes);
    redact_report(&mut report);
    report
}

/// Masks credential-shaped values in everything the engines wrote into
/// the report: findings, lane summaries and failure banners, the
/// walkthrough. Engines quote the code they review, and failure reasons
/// quote commands' output; neither may carry a live secret into a report
/// that CI systems post and keep.
fn redact_report(report: &mut Report) {
    use revu_domain::redact::redact;
    let scrub = |text: &mut String| {
        if let std::borrow::Cow::Owned(masked) = redact(text) {
            *text = masked;
        }
    };
    for f in &mut report.findings {
        scrub(&mut f.summary);
        scrub(&mut f.why);
        scrub(&mut f.fix);
    }
    for lane in &mut report.lanes {
        scrub(&mut lane.summary);
        if let Some(banner) = &mut lane.banner {
            scrub(banner);
        }
        lane.checks.iter_mut().for_each(scrub);
    }
    report.cross_cutting.iter_mut().for_each(scrub);
    if let Some(w) = &mut report.walkthrough {
        scrub(&mut w.text);
        w.files.iter_mut().for_each(|n| scrub(&mut n.note));
    }
}

/// Which lanes reviewed which files and what they read of them, what was
/// skipped and why, and what the lanes could not finish.
fn coverage(
    plan: &ReviewPlan,
    results: &LaneResults,
    diff: &Diff,
    bundle: &ReviewBundle,
) -> Coverage {
    let reported = |spec: &&LaneSpec| {
        spec.kind.reviews()
            && !spec.kind.adjudicates()
            && results.get(&spec.id).is_some_and(|r| r.body().is_some())
    };
    // Each file's reporting lanes, skip and binary mark, found in one pass
    // over the lanes and the diff: a specialist lane lists every file, so
    // asking each lane about each file is quadratic on a large change.
    // A path's first place in the facts and how often it is there (a file
    // deleted and added again under one path is there twice).
    let mut at: HashMap<&str, (usize, usize)> = HashMap::new();
    for (i, f) in plan.facts.files.iter().enumerate() {
        at.entry(f.path.as_str()).or_insert((i, 0)).1 += 1;
    }
    let mut lanes_of: Vec<Vec<String>> = vec![Vec::new(); plan.facts.files.len()];
    for spec in plan.lanes.iter().filter(reported) {
        for path in &spec.files {
            if let Some(lanes) = at
                .get(path.as_str())
                .and_then(|&(i, _)| lanes_of.get_mut(i))
            {
                lanes.push(spec.id.clone());
            }
        }
    }
    let skips: HashMap<&str, &SkipKind> = plan
        .skipped_files
        .iter()
        .rev()
        .map(|s| (s.path.as_str(), &s.kind))
        .collect();
    let binaries: HashSet<&str> = diff
        .files
        .iter()
        .filter(|p| p.binary)
        .map(|p| p.path())
        .collect();
    let files = plan
        .facts
        .files
        .iter()
        .map(|f| {
            let lanes = match at.get(f.path.as_str()) {
                Some(&(i, 1)) => lanes_of.get_mut(i).map(std::mem::take),
                Some(&(i, _)) => lanes_of.get(i).cloned(),
                None => None,
            }
            .unwrap_or_default();
            let skipped = match skips.get(f.path.as_str()) {
                Some(kind) => Some(format!("{kind} file (--skip-files)")),
                None if lanes.is_empty() => Some("every lane given it failed to report".to_owned()),
                None => None,
            };
            let binary = binaries.contains(f.path.as_str());
            let read = if skipped.is_some() || binary {
                FileRead::None
            } else if bundle.head_files.contains_key(&f.path) {
                FileRead::Full
            } else {
                FileRead::Diff
            };
            FileCoverage {
                path: f.path.clone(),
                lanes,
                read,
                skipped,
            }
        })
        .collect();
    let truncated = plan
        .lanes
        .iter()
        .filter_map(|spec| match &results.get(&spec.id)?.end {
            LaneEnd::Incomplete { banner, .. } => Some(format!("{}: {banner}", spec.id)),
            _ => None,
        })
        .collect();
    Coverage {
        files,
        truncated,
        // The sources of an intent the lanes were given, and of none else.
        intent_sources: if bundle.intent.trim().is_empty() {
            Vec::new()
        } else {
            bundle.intent_sources.clone()
        },
    }
}

/// The synthesis lane's walkthrough, its file lines kept only for changed
/// files and put in the order of the facts.
fn walkthrough(engine: &str, plan: &ReviewPlan, result: Option<&LaneResult>) -> Walkthrough {
    let body = match result.map(|r| &r.end) {
        Some(LaneEnd::Complete { body }) => Some(body),
        _ => None,
    };
    let Some(body) = body else {
        let why = result
            .and_then(LaneResult::banner)
            .unwrap_or("the synthesis lane never settled");
        return Walkthrough {
            engine: engine.to_owned(),
            note: Some(format!("no walkthrough: {why}")),
            ..Walkthrough::default()
        };
    };
    let files: Vec<FileNote> = plan
        .facts
        .files
        .iter()
        .filter_map(|f| body.file_notes.iter().find(|n| n.path == f.path).cloned())
        .collect();
    let unknown: Vec<&str> = body
        .file_notes
        .iter()
        .filter(|n| !plan.facts.files.iter().any(|f| f.path == n.path))
        .map(|n| n.path.as_str())
        .collect();
    Walkthrough {
        engine: engine.to_owned(),
        text: body.walkthrough.clone(),
        files,
        note: (!unknown.is_empty()).then(|| {
            format!(
                "{} line(s) on files not in the change left out: {}",
                unknown.len(),
                unknown.join(", ")
            )
        }),
    }
}

/// Phase two's input: the BLOCKER and IMPORTANT findings verification
/// keeps, exactly as [`assemble`] verifies them, in report order.
pub fn adjudication_candidates(
    plan: &ReviewPlan,
    results: &LaneResults,
    diff: &Diff,
    bundle: &ReviewBundle,
) -> Vec<Finding> {
    let (repo, _) = repo_context(bundle);
    let (verified, _) = verify_lanes(plan, results, diff, bundle, &repo);
    let engine = plan.adjudication.as_ref().map_or("", |a| a.engine.as_str());
    verified
        .findings
        .into_iter()
        .filter(|f| is_candidate_for(engine, f))
        .collect()
}

/// Verifies what the review lanes and the review-miss ledger raised. The
/// adjudication lane raises nothing: its findings are never read. Returns
/// the verified findings and how many the ledger raised.
fn verify_lanes(
    plan: &ReviewPlan,
    results: &LaneResults,
    diff: &Diff,
    bundle: &ReviewBundle,
    repo: &RepoContext,
) -> (Verified, usize) {
    let mut raised: Vec<Finding> = plan
        .lanes
        .iter()
        .filter(|spec| spec.kind.reviews() && !spec.kind.adjudicates())
        .filter_map(|spec| results.get(&spec.id)?.body())
        .flat_map(|body| body.findings.iter().cloned())
        .collect();
    let ledger = repo.config.ledger.run(diff);
    let matches = ledger.len();
    raised.extend(ledger);
    let mut verified = verify::verify_with(raised, diff, bundle, &repo.conventions);
    crate::radius::apply(&mut verified, bundle);
    (verified, matches)
}

/// One lane's line in the report.
fn lane_summary(spec: &LaneSpec, result: Option<&LaneResult>) -> LaneSummary {
    let body = result.and_then(LaneResult::body);
    let (domain, dimension) = match &spec.kind {
        LaneKind::Domain { domain } => (Some(domain.clone()), None),
        LaneKind::Specialist { dimension } => (None, Some(*dimension)),
        LaneKind::Adjudication | LaneKind::Challenge | LaneKind::Grouping | LaneKind::Synthesis => {
            (None, None)
        }
    };
    let raised = match spec.kind {
        LaneKind::Domain { .. } | LaneKind::Specialist { .. } => {
            body.map(|b| b.findings.len()).unwrap_or(0)
        }
        LaneKind::Adjudication | LaneKind::Challenge | LaneKind::Grouping | LaneKind::Synthesis => {
            0
        }
    };
    LaneSummary {
        id: spec.id.clone(),
        kind: spec.kind.label().to_owned(),
        domain,
        dimension,
        engine: spec.engine.clone(),
        outcome: result
            .map(LaneResult::outcome)
            .unwrap_or(LaneOutcome::PipelineFault),
        attempts: result.map(|r| r.attempts).unwrap_or(0),
        files: spec.files.len(),
        checks: body.map(|b| b.checks.clone()).unwrap_or_default(),
        findings_raised: raised,
        summary: body.map(|b| b.summary.clone()).unwrap_or_default(),
        usage: result.and_then(|r| r.usage.clone()),
        cache: result.and_then(|r| r.cache),
        banner: match result {
            Some(r) => r.banner().map(str::to_owned),
            None => Some("lane never settled".to_owned()),
        },
    }
}

/// The repository context of the review. A `revu.toml` that no longer
/// loads (it was accepted at submission, so only a coordinator upgrade can
/// cause this) is reported, and the review goes on with `REVIEW.md` alone.
fn repo_context(bundle: &ReviewBundle) -> (RepoContext, ConventionsReport) {
    let (review_md, repo_config) = (bundle.conventions.as_deref(), bundle.repo_config.as_deref());
    let with_the_rest = |repo: RepoContext| {
        repo.with_nested(&bundle.nested_conventions)
            .with_codeowners(bundle.codeowners.as_ref())
    };
    match RepoContext::load(review_md, repo_config) {
        Ok(repo) => {
            let repo = with_the_rest(repo);
            let report = repo.report();
            (repo, report)
        }
        Err(e) => {
            let repo = with_the_rest(RepoContext::load(review_md, None).unwrap_or_default());
            let mut report = repo.report();
            report.repo_config = repo_config.map(|t| source_file(REPO_CONFIG, t));
            report
                .warnings
                .push(format!("{e}; {REPO_CONFIG} was not applied"));
            (repo, report)
        }
    }
}

fn summarize(plan: &ReviewPlan, lanes: &[LaneSummary], findings: usize) -> String {
    // The grouping and synthesis lanes review nothing.
    let lanes: Vec<&LaneSummary> = lanes.iter().filter(|l| l.counts_for_gate()).collect();
    let complete = lanes
        .iter()
        .filter(|l| l.outcome == LaneOutcome::Complete)
        .count();
    format!(
        "Reviewed {} file(s) (+{} −{}) in {} lane(s), {} complete; {} finding(s) after verification{}.",
        plan.facts.files_changed,
        plan.facts.lines_added,
        plan.facts.lines_removed,
        lanes.len(),
        complete,
        findings,
        if plan.adjudication.is_some() {
            " and adjudication"
        } else {
            ""
        }
    )
}
