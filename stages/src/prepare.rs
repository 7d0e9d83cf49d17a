//! Stages 1–4 before dispatch, as one pure function: facts, grouping, the
//! exact-cover gate and the lane plan.

use crate::conventions::{RepoConfigError, RepoContext};
use crate::limits::{LimitExceeded, within};
use crate::{cover, grouping::Grouper, plan};
use revu_domain::adjudication::AdjudicationPlan;
use revu_domain::diff::DiffError;
use revu_domain::facts::SkipFiles;
use revu_domain::facts::{Facts, RiskTier, Signal};
use revu_domain::finding::Finding;
use revu_domain::lane::{LaneKind, LaneSpec, Slice};
use revu_domain::packages::Package;
use revu_domain::report::{FactsSummary, FileSummary, Rigor, RigorChoice, RigorSource};
use revu_domain::review::{GROUPING_LANE, GroupingPlan, ReviewPlan, SkippedFile, SynthesisPlan};
use revu_domain::telemetry::names::span;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};
use tracing::info_span;

/// A diff's facts and the plan built from them.
#[derive(Debug, Clone)]
pub struct Prepared {
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
    /// `REVIEW.md` files below the root, by directory: their guidance too.
    pub nested_review_md: std::collections::BTreeMap<String, String>,
    /// The repository's `revu.toml`: rigor when the request sets none,
    /// grouping domains and slice size.
    pub repo_config: Option<String>,
    /// No lane may reuse a cached report.
    pub no_cache: bool,
    /// The repository's packages that hold changed files, as the client
    /// found them: each gets domain slices of its own.
    pub packages: Vec<Package>,
}

/// Why a submission cannot be planned.
#[derive(Debug, thiserror::Error)]
pub enum PrepareError {
    #[error(transparent)]
    Diff(#[from] DiffError),
    #[error(transparent)]
    RepoConfig(#[from] RepoConfigError),
    #[error(transparent)]
    Limit(#[from] LimitExceeded),
}

/// What planning takes from the review's settings: the engines of its
/// lanes, the files it leaves out, its optional lanes and its limits.
#[derive(Debug, Clone)]
pub struct PlanSettings {
    /// Engine of the lanes no [`LaneEngine`] names.
    pub engine: String,
    /// Engines of matching lanes; the first match wins.
    pub lane_engines: Vec<LaneEngine>,
    pub skip_files: SkipFiles,
    /// Engine of the adjudication lane; [`NO_ADJUDICATION`] for none;
    /// unset for the first of `model_engines` that reviews a lane.
    pub adjudicate: Option<String>,
    /// Engines that reach a model: when one reviews, adjudication is on
    /// unless turned off.
    pub model_engines: Vec<String>,
    pub refine_grouping: Option<String>,
    pub synthesize: Option<String>,
    pub review_token_cap: Option<u64>,
    pub max_files: usize,
    pub max_file_lines: usize,
    pub max_lanes: usize,
}

/// An engine for the lanes `lane` matches: a lane id
/// (`specialist:security`), or a prefix ending in `*` (`domain:*`).
/// `--lane-engine LANE=ENGINE`, written the same way in a config file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct LaneEngine {
    pub lane: String,
    pub engine: String,
}

impl TryFrom<String> for LaneEngine {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        parse_lane_engine(&s)
    }
}

impl From<LaneEngine> for String {
    fn from(l: LaneEngine) -> String {
        format!("{}={}", l.lane, l.engine)
    }
}

/// An engine name, as given, that is not 1-64 of a-z, 0-9, '-', '_' and ':'.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("engine name {name:?} must be 1-64 of a-z, 0-9, '-', '_' and ':'")]
pub struct BadEngineName {
    pub name: String,
}

/// Whether `name` may name an engine: 1-64 of a-z, 0-9, '-', '_' and ':'.
pub fn valid_engine_name(name: &str) -> Result<(), BadEngineName> {
    if !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"-_:".contains(&b))
    {
        Ok(())
    } else {
        Err(BadEngineName {
            name: name.to_owned(),
        })
    }
}

/// `LANE=ENGINE`.
pub fn parse_lane_engine(s: &str) -> Result<LaneEngine, String> {
    let (lane, engine) = s
        .split_once('=')
        .ok_or_else(|| format!("{s:?} is not LANE=ENGINE"))?;
    if lane.is_empty() {
        return Err(format!("{s:?} names no lane"));
    }
    valid_engine_name(engine).map_err(|e| e.to_string())?;
    Ok(LaneEngine {
        lane: lane.to_owned(),
        engine: engine.to_owned(),
    })
}

/// Most review-miss ledger matches the lanes are shown.
const MAX_KNOWN: usize = 50;

/// The review-miss ledger's matches in the change, shown to the lanes
/// whose files they cite (bounded; the report carries them all). The diff
/// is parsed for it only when the repository keeps a ledger.
fn known_findings(repo: &RepoContext, bytes: &[u8]) -> Vec<Finding> {
    if repo.config.ledger.is_empty() {
        return Vec::new();
    }
    let Ok(diff) = revu_domain::diff::parse(bytes) else {
        return Vec::new();
    };
    let mut known = repo.config.ledger.run(&diff);
    known.truncate(MAX_KNOWN);
    known
}

/// `--adjudicate none`: no adjudication, even where a model reviews.
pub const NO_ADJUDICATION: &str = "none";

impl PlanSettings {
    /// The engine of the adjudication lane: the one asked for; else, when
    /// an engine that reaches a model reviews lanes (the review's engine
    /// or one a [`LaneEngine`] names), that engine; none with
    /// [`NO_ADJUDICATION`].
    pub fn adjudication_engine(&self) -> Option<String> {
        match self.adjudicate.as_deref() {
            Some(NO_ADJUDICATION) => None,
            Some(engine) => Some(engine.to_owned()),
            None => std::iter::once(&self.engine)
                .chain(self.lane_engines.iter().map(|l| &l.engine))
                .find(|e| self.model_engines.contains(e))
                .cloned(),
        }
    }

    /// The engine of lane `lane_id`: the first [`LaneEngine`] that matches
    /// it, else the review's engine.
    pub fn engine_for(&self, lane_id: &str) -> &str {
        self.lane_engines
            .iter()
            .find(|l| match l.lane.strip_suffix('*') {
                Some(prefix) => lane_id.starts_with(prefix),
                None => lane_id == l.lane,
            })
            .map(|l| l.engine.as_str())
            .unwrap_or(&self.engine)
    }
}

/// The diff's size within the limits: files, and changed lines per file.
fn within_size(facts: &Facts, settings: &PlanSettings) -> Result<(), LimitExceeded> {
    within(
        || "changed files".into(),
        facts.files.len(),
        settings.max_files,
        "--max-files",
    )?;
    for f in &facts.files {
        let lines =
            usize::try_from(u64::from(f.added) + u64::from(f.removed)).unwrap_or(usize::MAX);
        within(
            || format!("changed lines of {}", f.path),
            lines,
            settings.max_file_lines,
            "--max-file-lines",
        )?;
    }
    Ok(())
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

/// Reads the diff's facts and the repository's files and plans the review.
pub fn prepare(
    bytes: &[u8],
    settings: &PlanSettings,
    grouper: &Grouper,
    request: &PlanRequest,
) -> Result<Prepared, PrepareError> {
    // Compiling the repo's globs and ledger regexes is work for the same
    // blocking thread as parsing the diff.
    let repo = RepoContext::load(request.review_md.as_deref(), request.repo_config.as_deref())?
        .with_nested(&request.nested_review_md);
    // The plan needs the facts only: read them in one pass that keeps no
    // line text, so a large diff is never held parsed here.
    let facts = info_span!(span::FACTS).in_scope(|| Facts::scan(bytes))?;
    within_size(&facts, settings)?;
    let skipped_files: Vec<SkippedFile> = facts
        .files
        .iter()
        .filter_map(|f| {
            let kind = settings.skip_files.skips(&f.path)?;
            Some(SkippedFile {
                path: f.path.clone(),
                kind,
            })
        })
        .collect();
    // The lanes review the rest.
    let skipped: HashSet<&str> = skipped_files.iter().map(|s| s.path.as_str()).collect();
    let paths: Vec<String> = plan_paths(&facts)
        .into_iter()
        .filter(|p| !skipped.contains(p.as_str()))
        .collect();
    let grouper = repo.config.grouper(grouper);
    let packages: &[Package] = if repo.config.slice_by_package {
        &request.packages
    } else {
        &[]
    };
    let proposal = info_span!(span::GROUPING).in_scope(|| grouper.propose_in(&paths, packages));
    let outcome = info_span!(span::EXACT_COVER).in_scope(|| cover::settle(&paths, proposal, None));
    let source_changed = facts.signals.iter().all(|s| *s != Signal::DocsOnly)
        && facts
            .files
            .iter()
            .any(|f| grouper.domain_of(&f.path) != "docs");
    // The specialists; the domain lanes follow from the slices.
    let mut lane_plan = info_span!(span::PLAN).in_scope(|| {
        plan::plan(
            &[],
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
                slice: String::new(),
            })
            .collect(),
    };
    let mut plan = ReviewPlan {
        lanes: lane_plan.lanes,
        skipped_dimensions: lane_plan.skipped,
        rigor: resolve_rigor(request.rigor, repo.config.rigor),
        facts: summary,
        signals: facts.signals.clone(),
        cover_fallback: outcome.fallback,
        labels: request.labels.clone(),
        adjudication: settings
            .adjudication_engine()
            .map(|engine| AdjudicationPlan {
                // A second opinion on each BLOCKER of a broad or high-risk
                // change, when a model adjudicates.
                challenge: matches!(facts.risk_tier, RiskTier::Broad | RiskTier::HighRisk)
                    && settings.model_engines.contains(&engine),
                engine,
                candidates: Vec::new(),
                challenged: Vec::new(),
            }),
        token_cap: settings.review_token_cap,
        grouping: None,
        synthesis: settings.synthesize.as_ref().map(|engine| SynthesisPlan {
            engine: engine.clone(),
            findings: Vec::new(),
        }),
        skipped_files,
        no_cache: request.no_cache,
        known: known_findings(&repo, bytes),
    };
    match &settings.refine_grouping {
        // The grouping lane runs first, beside the specialists; the
        // domain lanes wait for its slices.
        Some(engine) => {
            plan.lanes.insert(
                0,
                LaneSpec {
                    id: GROUPING_LANE.to_owned(),
                    kind: LaneKind::Grouping,
                    engine: engine.clone(),
                    files: paths.clone(),
                    guidance: Vec::new(),
                },
            );
            name_slices(&mut plan, &outcome.slices);
            plan.grouping = Some(GroupingPlan {
                engine: engine.clone(),
                proposal: outcome.slices,
                applied: false,
            });
        }
        None => place_domain_lanes(&mut plan, &outcome.slices, settings, &repo),
    }
    // With a grouping lane, the domain lanes of its proposal are still to come.
    let lanes = plan.lanes.len() + plan.grouping.as_ref().map_or(0, |g| g.proposal.len());
    within(
        || "planned lanes".into(),
        lanes,
        settings.max_lanes,
        "--max-lanes",
    )?;
    Ok(Prepared { facts, plan })
}

/// The head-side paths of the change, in the order of its facts.
fn plan_paths(facts: &Facts) -> Vec<String> {
    facts.files.iter().map(|f| f.path.clone()).collect()
}

/// Puts the domain lanes of `slices` into `plan` (after the grouping lane,
/// before the specialists), each with its engine and the repository's
/// guidance for its files, and names each file's slice in the facts.
pub fn place_domain_lanes(
    plan: &mut ReviewPlan,
    slices: &[Slice],
    settings: &PlanSettings,
    repo: &RepoContext,
) {
    let mut lanes = plan::domain_lanes(slices, &settings.engine);
    for lane in &mut lanes {
        lane.engine = settings.engine_for(&lane.id).to_owned();
        lane.guidance = repo.guidance_for(&lane.files);
    }
    let at = plan
        .lanes
        .iter()
        .position(|l| l.kind == LaneKind::Grouping)
        .map_or(0, |i| i + 1);
    plan.lanes.splice(at..at, lanes);
    name_slices(plan, slices);
}

/// Names, in the facts, the slice each file is reviewed in.
fn name_slices(plan: &mut ReviewPlan, slices: &[Slice]) {
    let slice_of: BTreeMap<&str, &str> = slices
        .iter()
        .flat_map(|s| s.files.iter().map(move |f| (f.as_str(), s.name.as_str())))
        .collect();
    for file in &mut plan.facts.files {
        file.slice = slice_of
            .get(file.path.as_str())
            .map(|s| (*s).to_owned())
            .unwrap_or_default();
    }
}
