//! A review's stored state: its plan, its lane results and its progress
//! events. Lives in the backend (Redis), so any coordinator can resume it.

use crate::adjudication::AdjudicationPlan;
use crate::facts::Signal;
use crate::finding::{Dimension, Finding};
use crate::lane::{LaneJob, LaneKind, LaneSpec, ReviewId, Slice};
use crate::report::{FactsSummary, Gate, RigorChoice, Verdict};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::sync::Arc;

mod lane_result;
mod phase;

pub use lane_result::{LaneEnd, LaneResult};
pub use phase::{ReviewPhase, StepsAhead};

/// Where a review is in its life, as the public API reports it: every
/// phase before the review's end is `Running` ([`ReviewPhase::state`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReviewState {
    Running,
    Finished,
    Cancelled,
}

impl ReviewState {
    pub fn is_terminal(self) -> bool {
        !matches!(self, ReviewState::Running)
    }
}

/// Why a specialist dimension was not dispatched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkippedDimension {
    pub dimension: Dimension,
    pub reason: String,
}

/// Everything decided before dispatch (by default: no lanes, the default
/// rigor, the facts of an empty change).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewPlan {
    pub lanes: Vec<LaneSpec>,
    pub skipped_dimensions: Vec<SkippedDimension>,
    pub rigor: RigorChoice,
    pub facts: FactsSummary,
    pub signals: Vec<Signal>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cover_fallback: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<String>,
    /// Set when the review is adjudicated: once every lane above settled,
    /// phase two adds the adjudication lane to `lanes` and dispatches it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adjudication: Option<AdjudicationPlan>,
    /// Most tokens the review's lanes may spend together on model
    /// services (`--review-token-cap`); every lane job carries it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_cap: Option<u64>,
    /// Set when the domain slices are refined (`--refine-grouping`): the
    /// grouping lane runs first, and its slices (or, when it fails or its
    /// slices are not an exact cover, the proposal) become the domain lanes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grouping: Option<GroupingPlan>,
    /// Set when the report gets a walkthrough (`--synthesize`): once every
    /// other lane settled, the synthesis lane is added and dispatched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub synthesis: Option<SynthesisPlan>,
    /// Changed files given to no lane (`--skip-files`), each with why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped_files: Vec<SkippedFile>,
    /// The submission asked that no lane reuse a cached report.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_cache: bool,
    /// What revu's own checks found before any lane ran (the repository's
    /// review-miss ledger matches), shown to each review lane whose files
    /// they cite so that a model builds on them rather than repeats them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub known: Vec<Finding>,
}

/// A changed file the review left out of its lanes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkippedFile {
    pub path: String,
    pub kind: crate::facts::SkipKind,
}

/// Id of the grouping lane within a review.
pub const GROUPING_LANE: &str = "grouping";
/// Id of the synthesis lane within a review.
pub const SYNTHESIS_LANE: &str = "synthesis";

/// A review's slice refinement: the deterministic proposal it starts from,
/// and whether the domain lanes have been planned from its outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupingPlan {
    /// Engine that runs the grouping lane.
    pub engine: String,
    pub proposal: Vec<Slice>,
    /// The domain lanes are in the plan. Kept for records stored before
    /// reviews had a phase, whose phase is derived from it
    /// ([`ReviewPhase::of_legacy`]); the coordinator goes by the phase.
    #[serde(default)]
    pub applied: bool,
}

/// A review's synthesis step and, once dispatched, the findings it was
/// given to describe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SynthesisPlan {
    /// Engine that runs the synthesis lane.
    pub engine: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<Finding>,
}

impl ReviewPlan {
    pub fn lane(&self, id: &str) -> Option<&LaneSpec> {
        self.lanes.iter().find(|l| l.id == id)
    }

    /// The changed files the lanes review: every one but the skipped, in
    /// the order of the facts.
    pub fn reviewed_paths(&self) -> Vec<String> {
        let skipped: HashSet<&str> = self.skipped_files.iter().map(|s| s.path.as_str()).collect();
        self.facts
            .files
            .iter()
            .filter(|f| !skipped.contains(f.path.as_str()))
            .map(|f| f.path.clone())
            .collect()
    }

    /// Attempt `attempt` of `lane` of review `id`, to start at once, with
    /// what every job of the lane carries (its candidates, the token cap).
    pub fn job(&self, id: &ReviewId, lane: &LaneSpec, attempt: u32, deadline_ms: u64) -> LaneJob {
        let proposal = match (&lane.kind, &self.grouping) {
            (LaneKind::Grouping, Some(g)) => g.proposal.clone(),
            _ => Vec::new(),
        };
        LaneJob {
            token_cap: self.token_cap,
            no_cache: self.no_cache,
            proposal,
            ..LaneJob::new(
                id.clone(),
                lane.clone(),
                attempt,
                deadline_ms,
                self.candidates_for(lane),
            )
        }
    }

    /// The findings every job of `lane` carries: the adjudication
    /// candidates for the adjudication lane, its own candidate for a
    /// challenge lane, the report's findings for the synthesis lane, and
    /// for a review lane what revu found already in its files
    /// ([`ReviewPlan::known`]).
    pub fn candidates_for(&self, lane: &LaneSpec) -> Vec<Finding> {
        match (&lane.kind, &self.adjudication, &self.synthesis) {
            (LaneKind::Adjudication, Some(a), _) => a.candidates.clone(),
            (LaneKind::Challenge, Some(a), _) => {
                crate::adjudication::challenged_candidate(&lane.id)
                    .and_then(|i| a.candidates.get(i))
                    .cloned()
                    .into_iter()
                    .collect()
            }
            (LaneKind::Synthesis, _, Some(s)) => s.findings.clone(),
            (LaneKind::Domain { .. } | LaneKind::Specialist { .. }, _, _) => self
                .known
                .iter()
                .filter(|f| lane.files.contains(&f.file))
                .cloned()
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// The stored record of a review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "StoredRecord", into = "StoredRecord")]
pub struct ReviewRecord {
    pub id: ReviewId,
    /// Moved only by the store, from the phase it leaves
    /// (`ReviewStore::move_phase`).
    pub phase: ReviewPhase,
    pub created_ms: u64,
    /// Unix milliseconds after which missing lanes are faulted.
    pub deadline_ms: u64,
    /// Shared, not copied, by every clone of the record: a large change's
    /// plan lists each of its files in several lanes.
    pub plan: Arc<ReviewPlan>,
    /// W3C `traceparent` of the span that accepted the review, so that
    /// spans of later work on it (gathering, finalizing, on any
    /// coordinator) join the review's trace. Set only when tracing is on.
    pub traceparent: Option<String>,
    /// The idempotency key the review was submitted under, if any, so that
    /// the key can expire with the review.
    pub idempotency_key: Option<String>,
}

impl ReviewRecord {
    /// A new review of `plan`, in the phase it starts in, created at
    /// `created_ms` and due by `deadline_ms` (Unix milliseconds), outside
    /// any trace.
    pub fn running(id: ReviewId, plan: ReviewPlan, created_ms: u64, deadline_ms: u64) -> Self {
        ReviewRecord {
            id,
            phase: ReviewPhase::start(&plan),
            created_ms,
            deadline_ms,
            plan: Arc::new(plan),
            traceparent: None,
            idempotency_key: None,
        }
    }

    /// This record moved to `phase` (the plan shared, not copied).
    pub fn in_phase(&self, phase: ReviewPhase) -> Self {
        ReviewRecord {
            phase,
            ..self.clone()
        }
    }
}

/// A review record as it is stored. `state` is what records held before
/// reviews had a phase, and is still written for readers that know only
/// it; a record without `phase` takes the phase its old fields imply.
#[derive(Serialize, Deserialize)]
struct StoredRecord {
    id: ReviewId,
    state: ReviewState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    phase: Option<ReviewPhase>,
    created_ms: u64,
    deadline_ms: u64,
    plan: Arc<ReviewPlan>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    traceparent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    idempotency_key: Option<String>,
}

impl From<StoredRecord> for ReviewRecord {
    fn from(s: StoredRecord) -> Self {
        ReviewRecord {
            phase: s
                .phase
                .unwrap_or_else(|| ReviewPhase::of_legacy(s.state, &s.plan)),
            id: s.id,
            created_ms: s.created_ms,
            deadline_ms: s.deadline_ms,
            plan: s.plan,
            traceparent: s.traceparent,
            idempotency_key: s.idempotency_key,
        }
    }
}

impl From<ReviewRecord> for StoredRecord {
    fn from(r: ReviewRecord) -> Self {
        StoredRecord {
            id: r.id,
            state: r.phase.state(),
            phase: Some(r.phase),
            created_ms: r.created_ms,
            deadline_ms: r.deadline_ms,
            plan: r.plan,
            traceparent: r.traceparent,
            idempotency_key: r.idempotency_key,
        }
    }
}

/// Every settled lane of a review by lane id, shared rather than copied
/// by each reader of the store.
pub type LaneResults = std::collections::BTreeMap<String, Arc<LaneResult>>;

/// What the store records of one lane's dispatches: the attempt whose
/// report is awaited (reports of older attempts are stale), and the attempt
/// the completeness gate sent back, if it did (it does so once per lane).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaneAttempts {
    pub awaited: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate_rejected: Option<u32>,
}

/// The stages a watcher of a review sees start and finish.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stage {
    Facts,
    Grouping,
    ExactCover,
    Plan,
    Dispatch,
    Adjudication,
    Synthesis,
    Verify,
    Render,
}

impl Stage {
    /// The name on the wire (`exact-cover`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Facts => "facts",
            Stage::Grouping => "grouping",
            Stage::ExactCover => "exact-cover",
            Stage::Plan => "plan",
            Stage::Dispatch => "dispatch",
            Stage::Adjudication => "adjudication",
            Stage::Synthesis => "synthesis",
            Stage::Verify => "verify",
            Stage::Render => "render",
        }
    }
}

/// What a watcher of a review sees.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum ProgressEvent {
    StageStarted {
        stage: Stage,
    },
    StageFinished {
        stage: Stage,
    },
    LaneDispatched {
        lane_id: String,
        attempt: u32,
    },
    LaneStarted {
        lane_id: String,
        attempt: u32,
        worker: String,
    },
    LaneRetried {
        lane_id: String,
        attempt: u32,
        reason: String,
    },
    LaneFinished {
        lane_id: String,
        attempt: u32,
        findings: u32,
    },
    LaneFaulted {
        lane_id: String,
        reason: String,
    },
    Verdict {
        verdict: Verdict,
        gate: Gate,
    },
    Cancelled,
}

impl ProgressEvent {
    /// Whether no event follows this one.
    pub fn is_final(&self) -> bool {
        matches!(
            self,
            ProgressEvent::Verdict { .. } | ProgressEvent::Cancelled
        )
    }
}

/// Milliseconds since the Unix epoch, by the system's clock. Code that
/// compares times with now reads a [`crate::clock::Clock`] it is given.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_are_named_on_the_wire_as_they_serialize() {
        for stage in [
            Stage::Facts,
            Stage::Grouping,
            Stage::ExactCover,
            Stage::Plan,
            Stage::Dispatch,
            Stage::Adjudication,
            Stage::Synthesis,
            Stage::Verify,
            Stage::Render,
        ] {
            let json = serde_json::to_value(stage).unwrap_or_default();
            assert_eq!(json, stage.as_str());
        }
    }

    #[test]
    fn each_lane_carries_the_findings_it_is_given() {
        use crate::adjudication::{AdjudicationPlan, challenge_lane};
        use crate::finding::{Dimension, Severity};
        let at = |file: &str, line| {
            Finding::at(
                "MISS-001",
                Severity::Important,
                file,
                line,
                Dimension::Design,
            )
        };
        let lane = |id: &str, kind: LaneKind, files: &[&str]| LaneSpec {
            id: id.into(),
            kind,
            engine: "llm".into(),
            files: files.iter().map(|f| (*f).to_owned()).collect(),
            guidance: Vec::new(),
        };
        let plan = ReviewPlan {
            known: vec![at("a.py", 1), at("b.py", 2)],
            adjudication: Some(AdjudicationPlan {
                engine: "llm".into(),
                candidates: vec![at("c.py", 3), at("d.py", 4)],
                challenge: true,
                challenged: vec![1],
            }),
            ..ReviewPlan::default()
        };
        let files = |found: Vec<Finding>| found.into_iter().map(|f| f.file).collect::<Vec<_>>();
        let domain = LaneKind::Domain {
            domain: "api".into(),
        };
        assert_eq!(
            files(plan.candidates_for(&lane("domain:api", domain, &["b.py"]))),
            ["b.py"]
        );
        let security = LaneKind::Specialist {
            dimension: Dimension::Security,
        };
        assert_eq!(
            files(plan.candidates_for(&lane("specialist:security", security, &["a.py", "b.py"]))),
            ["a.py", "b.py"]
        );
        assert_eq!(
            files(plan.candidates_for(&lane("adjudication", LaneKind::Adjudication, &[]))),
            ["c.py", "d.py"]
        );
        assert_eq!(
            files(plan.candidates_for(&lane(&challenge_lane(1), LaneKind::Challenge, &[]))),
            ["d.py"]
        );
    }
}
