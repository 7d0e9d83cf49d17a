//! Stages 1–4 before dispatch, as one pure function: facts, grouping, the
//! exact-cover gate and the lane plan.

use crate::config::ReviewSettings;
use crate::service::ServiceError;
use revu_common::adjudication::AdjudicationPlan;
use revu_common::diff::{self, Diff, DiffError};
use revu_common::facts::{Facts, Signal};
use revu_common::report::{FactsSummary, FileSummary, Rigor, RigorChoice, RigorSource};
use revu_common::review::ReviewPlan;
use revu_common::telemetry::names::span;
use revu_stages::conventions::{RepoConfigError, RepoContext};
use revu_stages::{cover, grouping::Grouper, plan};
use std::collections::BTreeMap;
use tracing::info_span;

/// A parsed diff and the plan built from it.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub diff: Diff,
    pub facts: Facts,
    pub plan: ReviewPlan,
}

/// What a submission asks for besides the diff.
#[derive(Debug, Clone, Default)]
pub struct PlanRequest {
    pub rigor: Option<Rigor>,
    pub labels: Vec<String>,
    /// The repository's `REVIEW.md`: path guidance for the lanes.
    pub review_md: Option<String>,
    /// The repository's `revu.toml`: rigor when the request sets none,
    /// grouping domains and slice size.
    pub repo_config: Option<String>,
}

/// Why a submission cannot be planned.
#[derive(Debug, thiserror::Error)]
pub enum PrepareError {
    #[error(transparent)]
    Diff(#[from] DiffError),
    #[error(transparent)]
    RepoConfig(#[from] RepoConfigError),
}

impl From<PrepareError> for ServiceError {
    fn from(e: PrepareError) -> Self {
        match e {
            PrepareError::Diff(d) => ServiceError::InvalidDiff(d),
            PrepareError::RepoConfig(c) => ServiceError::InvalidRequest(c.to_string()),
        }
    }
}

/// Resolves rigor: the request, else the repo's config, else production.
pub fn resolve_rigor(requested: Option<Rigor>, repo: Option<Rigor>) -> RigorChoice {
    match (requested, repo) {
        (Some(level), _) => RigorChoice {
            level,
            source: RigorSource::Request,
        },
        (None, Some(level)) => RigorChoice {
            level,
            source: RigorSource::RepoConfig,
        },
        (None, None) => RigorChoice {
            level: Rigor::Production,
            source: RigorSource::Default,
        },
    }
}

/// Parses the diff and the repository's files and plans the review.
pub fn prepare(
    bytes: &[u8],
    settings: &ReviewSettings,
    grouper: &Grouper,
    request: &PlanRequest,
) -> Result<Prepared, PrepareError> {
    // Compiling the repo's globs and ledger regexes is work for the same
    // blocking thread as parsing the diff.
    let repo = RepoContext::load(request.review_md.as_deref(), request.repo_config.as_deref())?;
    let (diff, facts) = info_span!(span::FACTS).in_scope(|| {
        let diff = diff::parse(bytes)?;
        let facts = Facts::from_diff(&diff);
        Ok::<_, PrepareError>((diff, facts))
    })?;
    let paths: Vec<String> = facts.files.iter().map(|f| f.path.clone()).collect();
    let grouper = repo.config.grouper(grouper);
    let proposal = info_span!(span::GROUPING).in_scope(|| grouper.propose(&paths));
    let outcome = info_span!(span::EXACT_COVER).in_scope(|| cover::settle(&paths, proposal, None));
    let slice_of: BTreeMap<&str, &str> = outcome
        .slices
        .iter()
        .flat_map(|s| s.files.iter().map(move |f| (f.as_str(), s.name.as_str())))
        .collect();
    let source_changed = facts.signals.iter().all(|s| *s != Signal::DocsOnly)
        && facts
            .files
            .iter()
            .any(|f| grouper.domain_of(&f.path) != "docs");
    let mut lane_plan = info_span!(span::PLAN).in_scope(|| {
        plan::plan(
            &outcome.slices,
            &paths,
            facts.risk_tier,
            &facts.signals,
            source_changed,
            &settings.engine,
        )
    });
    for lane in &mut lane_plan.lanes {
        lane.engine = settings.engine_for(&lane.id).to_owned();
        lane.guidance = repo.guidance_for(&lane.files);
    }
    let summary = FactsSummary {
        files_changed: facts.totals.files,
        lines_added: facts.totals.added,
        lines_removed: facts.totals.removed,
        risk_tier: facts.risk_tier,
        signals: facts.signals.clone(),
        files: facts
            .files
            .iter()
            .map(|f| FileSummary {
                path: f.path.clone(),
                old_path: f.old_path.clone(),
                status: f.status,
                binary: f.binary,
                added: f.added,
                removed: f.removed,
                slice: slice_of
                    .get(f.path.as_str())
                    .map(|s| (*s).to_owned())
                    .unwrap_or_default(),
            })
            .collect(),
    };
    let plan = ReviewPlan {
        lanes: lane_plan.lanes,
        skipped_dimensions: lane_plan.skipped,
        rigor: resolve_rigor(request.rigor, repo.config.rigor),
        facts: summary,
        signals: facts.signals.clone(),
        cover_fallback: outcome.fallback,
        labels: request.labels.clone(),
        adjudication: settings.adjudicate.as_ref().map(|engine| AdjudicationPlan {
            engine: engine.clone(),
            candidates: Vec::new(),
        }),
        token_cap: settings.review_token_cap,
    };
    Ok(Prepared { diff, facts, plan })
}
