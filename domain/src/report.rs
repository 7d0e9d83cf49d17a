//! The canonical report: the one JSON document every renderer reads.

use crate::diff::FileStatus;
use crate::facts::{RiskTier, Signal};
use crate::finding::{Dimension, Finding, Severity};
use serde::{Deserialize, Serialize};
use std::fmt;

pub use crate::usage::ReviewUsage;

/// Version of the report JSON; bumped on any incompatible change.
pub const SCHEMA_VERSION: &str = "1";

/// What the change deserves, from the findings alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Verdict {
    #[serde(rename = "APPROVE")]
    Approve,
    #[serde(rename = "APPROVE WITH FOLLOWUPS")]
    ApproveWithFollowups,
    #[serde(rename = "REQUEST CHANGES")]
    RequestChanges,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Approve => "APPROVE",
            Verdict::ApproveWithFollowups => "APPROVE WITH FOLLOWUPS",
            Verdict::RequestChanges => "REQUEST CHANGES",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether the change may merge without a person looking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Gate {
    #[serde(rename = "MERGE-READY")]
    MergeReady,
    #[serde(rename = "NEEDS-HUMAN")]
    NeedsHuman,
}

impl Gate {
    pub fn as_str(self) -> &'static str {
        match self {
            Gate::MergeReady => "MERGE-READY",
            Gate::NeedsHuman => "NEEDS-HUMAN",
        }
    }
}

impl fmt::Display for Gate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How strict the review is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rigor {
    Poc,
    Prototype,
    #[default]
    Production,
}

impl Rigor {
    pub fn parse(s: &str) -> Option<Rigor> {
        match s.trim().to_ascii_lowercase().as_str() {
            "poc" => Some(Rigor::Poc),
            "prototype" => Some(Rigor::Prototype),
            "production" => Some(Rigor::Production),
            _ => None,
        }
    }
}

/// Where the rigor came from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RigorSource {
    Request,
    RepoConfig,
    #[default]
    Default,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RigorChoice {
    pub level: Rigor,
    pub source: RigorSource,
}

/// How a lane ended, as the report tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum LaneOutcome {
    /// Reported with every mandatory section.
    Complete,
    /// Reported, but failed the completeness gate twice; kept with a banner.
    Incomplete,
    /// Never produced a usable report (attempts or deadline exhausted).
    #[serde(rename = "PIPELINE-FAULT")]
    PipelineFault,
    /// Not run because the review was cancelled.
    Cancelled,
}

/// One lane's line in the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaneSummary {
    pub id: String,
    /// `domain`, `specialist` or `adjudication`.
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dimension: Option<Dimension>,
    pub engine: String,
    pub outcome: LaneOutcome,
    pub attempts: u32,
    pub files: usize,
    pub checks: Vec<String>,
    /// Findings the lane raised, before verification.
    pub findings_raised: usize,
    pub summary: String,
    /// Why the lane is incomplete or faulted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub banner: Option<String>,
    /// What the lane spent on a model service, over all its attempts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<crate::lane::Usage>,
    /// `hit` when the lane's report was reused from the lane result cache
    /// (an identical input reviewed before), `miss` when it was stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<crate::lane::CacheUse>,
}

impl LaneSummary {
    /// Whether the lane's outcome counts for the gate: every lane but the
    /// grouping and synthesis lanes, whose failure the review survives
    /// (the proposal stands; the walkthrough is missing).
    pub fn counts_for_gate(&self) -> bool {
        !matches!(self.kind.as_str(), "grouping" | "synthesis")
    }
}

/// A file's line in the report's facts summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileSummary {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_path: Option<String>,
    pub status: FileStatus,
    pub binary: bool,
    pub added: u32,
    pub removed: u32,
    /// Domain slice the file was grouped into.
    pub slice: String,
}

/// The facts the verdict rests on.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FactsSummary {
    pub files_changed: usize,
    pub lines_added: u64,
    pub lines_removed: u64,
    pub risk_tier: RiskTier,
    pub signals: Vec<Signal>,
    pub files: Vec<FileSummary>,
}

/// What verification removed, so that nothing disappears unseen.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerificationStats {
    /// Findings raised by all lanes.
    pub raised: usize,
    /// Dropped: the cited file is not in the change.
    pub dropped_unknown_file: usize,
    /// Dropped: the cited line does not exist on the head side.
    pub dropped_missing_line: usize,
    /// Dropped: confidence below the floor of its severity.
    pub dropped_low_confidence: usize,
    /// Dropped: a non-BLOCKER on a line the change did not touch (reports
    /// written before such findings were kept as pre-existing).
    pub dropped_untouched_line: usize,
    /// Kept below BLOCKER on a line the change did not add, marked
    /// `pre_existing` and not counted by the verdict.
    #[serde(default)]
    pub pre_existing: usize,
    /// Merged into another finding on the same line with the same root cause.
    pub merged_duplicates: usize,
    /// Dropped: a SUGGESTION the repo's `REVIEW.md` lists as an allowed nit.
    #[serde(default)]
    pub dropped_allowed_nit: usize,
    /// Given another severity by a `REVIEW.md` severity override (counted
    /// per raised finding, like the drops; not a drop itself).
    #[serde(default)]
    pub severity_overridden: usize,
    /// Raised from IMPORTANT to BLOCKER by the blast-radius rule: 50 or
    /// more transitive importers of the cited file.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub elevated: usize,
    /// Findings that survived verification (adjudication, when on, may
    /// drop some of them afterwards; see the report's `adjudication`).
    pub kept: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The canonical report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    pub schema_version: String,
    pub review_id: String,
    pub verdict: Verdict,
    pub gate: Gate,
    /// Why the gate is what it is, one reason per line.
    pub gate_reasons: Vec<String>,
    pub rigor: RigorChoice,
    pub summary: String,
    pub facts: FactsSummary,
    pub lanes: Vec<LaneSummary>,
    /// Specialist dimensions triage did not dispatch, each with why.
    pub dimensions_not_dispatched: Vec<crate::review::SkippedDimension>,
    pub findings: Vec<Finding>,
    /// Different root causes on the same line, noted for the reader.
    pub cross_cutting: Vec<String>,
    pub verification: VerificationStats,
    /// The next steps, most important first.
    pub actions: Vec<String>,
    /// Set when a refinement of the domain slices was not used (the
    /// grouping lane failed, or its slices were not an exact cover).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cover_fallback: Option<String>,
    /// The synthesis lane's walkthrough; absent when the review has no
    /// synthesis step. It has no say over findings or verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub walkthrough: Option<Walkthrough>,
    /// What the review read of the change.
    #[serde(default)]
    pub coverage: Coverage,
    /// What the repository's `REVIEW.md` and `revu.toml` did to this review.
    #[serde(default)]
    pub conventions: ConventionsReport,
    /// What the adjudication lane confirmed, downgraded and dropped; absent
    /// when the review was not adjudicated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adjudication: Option<crate::adjudication::AdjudicationReport>,
    /// What the client's code index read; absent when the review had none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_index: Option<IndexReport>,
    /// What the review's lanes spent on model services together; absent
    /// when no lane used one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<ReviewUsage>,
    /// The owners, by the repository's `CODEOWNERS`, of every changed file
    /// that carries a BLOCKER or an always-human signal: who a CI job asks
    /// to review. Empty without a `CODEOWNERS` file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub owners: Vec<FileOwners>,
}

/// What the client's code index read, and what it found downstream.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexReport {
    pub files: usize,
    #[serde(default)]
    pub with_errors: usize,
    #[serde(default)]
    pub skipped: usize,
    pub languages: std::collections::BTreeMap<String, usize>,
    /// Uses at head of what the change removed, renamed or re-shaped,
    /// resolved to it with certainty (each a finding).
    pub stale_uses: usize,
    /// Names at head that may use what the change took away but that the
    /// index could not resolve to it with certainty: no finding, listed for
    /// the reader (at most [`MAX_UNCONFIRMED`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unconfirmed: Vec<UnconfirmedUse>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub downstream: Vec<crate::code_index::DownstreamHit>,
}

/// Most unconfirmed stale uses a report lists.
pub const MAX_UNCONFIRMED: usize = 20;

/// A possible stale use the index could not confirm.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnconfirmedUse {
    pub file: String,
    pub line: u32,
    pub symbol: String,
    /// How the change took it away (`removed`, `renamed to \`x\``, …).
    pub change: String,
    /// Why the index could not resolve the use with certainty.
    pub doubt: String,
}

impl IndexReport {
    pub fn of(index: &crate::code_index::CodeIndex) -> IndexReport {
        IndexReport {
            files: index.stats.files,
            with_errors: index.stats.with_errors,
            skipped: index.stats.skipped,
            languages: index.stats.languages.clone(),
            stale_uses: index.omissions.iter().filter(|o| o.doubt.is_none()).count(),
            unconfirmed: index
                .omissions
                .iter()
                .filter_map(|o| {
                    Some(UnconfirmedUse {
                        file: o.site.file.clone(),
                        line: o.site.line,
                        symbol: o.symbol.clone(),
                        change: o.change.describe(),
                        doubt: o.doubt.clone()?,
                    })
                })
                .take(MAX_UNCONFIRMED)
                .collect(),
            downstream: index.downstream.clone(),
        }
    }
}

/// What the review read: every changed file with the lanes that reviewed
/// it, the files left out and why, and the lanes that could not finish
/// what they were given.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Coverage {
    /// In the order of `facts.files`.
    pub files: Vec<FileCoverage>,
    /// `lane: why` for each lane that reported without finishing (a budget
    /// spent, an answer cut, hunks left out).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub truncated: Vec<String>,
    /// Where the intent the lanes were given came from; empty when they
    /// were given none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub intent_sources: Vec<crate::intent::IntentSource>,
}

/// One changed file in the coverage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileCoverage {
    pub path: String,
    /// Lanes that reported on it (complete or incomplete).
    pub lanes: Vec<String>,
    pub read: FileRead,
    /// Why no lane reviewed it, when none did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

/// What the lanes had of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileRead {
    /// Its whole content after the change, and its hunks.
    Full,
    /// Its hunks only.
    Diff,
    /// Nothing to read: binary, or given to no lane.
    None,
}

/// What the synthesis lane wrote: prose for the reader, nothing the
/// verdict reads.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Walkthrough {
    /// Engine that wrote it.
    pub engine: String,
    /// The change, in a few paragraphs; empty when the lane failed.
    pub text: String,
    /// One line per changed file, in the order of `facts.files`; files the
    /// lane said nothing about are absent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<crate::lane::FileNote>,
    /// Why the walkthrough is missing or partial (the lane failed, it named
    /// files not in the change).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A repository file a review used, identified by its content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceFile {
    /// `REVIEW.md` or `revu.toml`, relative to the repository root.
    pub name: String,
    pub bytes: usize,
    /// Hex SHA-256 of the exact text used, so a reader can tell which version.
    pub sha256: String,
}

/// One convention acting on one finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConventionEffect {
    /// Where the convention is written, e.g. `REVIEW.md:14`.
    pub convention: String,
    pub rule: String,
    /// `file:line` of the finding.
    pub citation: String,
    pub from: Severity,
    /// The severity after; absent when the finding was suppressed or kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<Severity>,
}

/// One `REVIEW.md` path guidance bullet and the lanes it was given to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GuidanceGiven {
    /// Where the guidance is written, e.g. `REVIEW.md:7`.
    pub convention: String,
    /// As the lanes received it: `glob: text`.
    pub guidance: String,
    /// Lane ids; empty when no changed file matched.
    pub lanes: Vec<String>,
}

/// The owners of one changed file, and why the report names them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileOwners {
    pub file: String,
    /// Users, teams (`@org/team`) or e-mail addresses, as `CODEOWNERS`
    /// writes them; empty when no line of it matches the file.
    pub owners: Vec<String>,
    /// `blocker`, and the always-human signals of the file
    /// (`auth_surface`, `destructive_migration`).
    pub because: Vec<String>,
}

/// The repository's own review settings and what they changed. Both sources
/// are always stated, `null` when the submission carried none.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConventionsReport {
    /// The `REVIEW.md` used.
    #[serde(default)]
    pub review_md: Option<SourceFile>,
    /// The `revu.toml` used.
    #[serde(default)]
    pub repo_config: Option<SourceFile>,
    /// The `REVIEW.md` files below the root that applied to changed files
    /// (`pkg/api/REVIEW.md`), each on top of those above it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nested_review_md: Vec<SourceFile>,
    /// The `CODEOWNERS` file that named owners (`.github/CODEOWNERS`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub codeowners: Option<SourceFile>,
    /// Every path guidance bullet, with the lanes it went to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub path_guidance: Vec<GuidanceGiven>,
    /// Review-miss ledger entries run as checks, by id.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ledger_checks: Vec<String>,
    /// Findings the ledger raised, before verification.
    #[serde(default)]
    pub ledger_matches: usize,
    /// Severity overrides that changed a finding.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub overrides_applied: Vec<ConventionEffect>,
    /// Allowed nits that suppressed a SUGGESTION.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nits_suppressed: Vec<ConventionEffect>,
    /// Conventions that would have lowered or silenced a BLOCKER, refused.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blockers_protected: Vec<ConventionEffect>,
    /// Malformed bullets and other problems, each naming its line.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}
