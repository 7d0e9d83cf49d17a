//! The optional adjudication lane of stage 7: after verification, one lane
//! re-tries every BLOCKER and IMPORTANT finding against the code and decides
//! per finding to confirm it, downgrade it one level, or drop it. It can
//! never add a finding or raise a severity or a confidence: its decisions
//! name candidates by index, and nothing else of its report is read.

use crate::finding::{Finding, Severity};
use serde::{Deserialize, Serialize};

/// Id of the adjudication lane within a review.
pub const ADJUDICATION_LANE: &str = "adjudication";

/// The id of the challenge lane of candidate `index`: `challenge:3`.
pub fn challenge_lane(index: usize) -> String {
    format!("challenge:{index}")
}

/// The candidate a challenge lane's id names.
pub fn challenged_candidate(lane_id: &str) -> Option<usize> {
    lane_id.strip_prefix("challenge:")?.parse().ok()
}

/// Whether verification's survivor `f` is re-tried by adjudication.
pub fn is_candidate(f: &Finding) -> bool {
    f.severity >= Severity::Important
}

/// The built-in rules engine, which adjudicates by running rules again.
pub const RULES_ENGINE: &str = "rules";

/// Whether `f` is a candidate for an adjudication lane run by `engine`.
/// The rules engine can only re-run rules: a model's finding is not its
/// to confirm, so it is no candidate there (and a BLOCKER of a model that
/// needs confirming stays unconfirmed).
pub fn is_candidate_for(engine: &str, f: &Finding) -> bool {
    is_candidate(f) && !(engine == RULES_ENGINE && crate::finding::is_model_rule(&f.rule))
}

/// What the adjudicator decided about one candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// The finding stands as it is.
    Confirm,
    /// The finding stands one severity lower.
    Downgrade,
    /// The finding is not real; it leaves the report.
    Drop,
}

impl Action {
    /// Every action, by wire name.
    pub const ALL: [Action; 3] = [Action::Confirm, Action::Downgrade, Action::Drop];

    /// The wire name (`confirm`, `downgrade`, `drop`).
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Confirm => "confirm",
            Action::Downgrade => "downgrade",
            Action::Drop => "drop",
        }
    }

    /// Whether the decision must say why (anything that changes a finding).
    pub fn needs_reason(self) -> bool {
        self != Action::Confirm
    }
}

/// One decision of an adjudication report: `candidates[index]` gets `action`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    pub index: usize,
    pub action: Action,
    /// Why; required (non-empty) for `downgrade` and `drop`.
    #[serde(default)]
    pub reason: String,
    /// `file:line` of the code that shows why: required for a `drop` or
    /// `downgrade` of a BLOCKER, and only a line the review holds (the
    /// change, a head file, a caller the code index carries) counts.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub evidence: String,
}

impl Decision {
    /// The `file` and `line` [`Decision::evidence`] cites (`path:12`, or
    /// the first line of `path:12-14`); `None` when it cites none.
    pub fn evidence_at(&self) -> Option<(&str, u32)> {
        let (file, lines) = self.evidence.trim().rsplit_once(':')?;
        let first = lines.split(['-', ',']).next()?.trim();
        let line = first.parse::<u32>().ok().filter(|l| *l > 0)?;
        let file = file.trim().trim_start_matches("./");
        (!file.is_empty()).then_some((file, line))
    }
}

/// A review's adjudication setting and, once phase two dispatched the lane,
/// the candidates it was given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdjudicationPlan {
    /// Engine that runs the adjudication lane.
    pub engine: String,
    /// The verified BLOCKER and IMPORTANT findings, in report order; set
    /// when the lane is dispatched.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<Finding>,
    /// Each BLOCKER candidate also gets a challenge lane, a second opinion
    /// told to disprove it: set for BROAD and HIGH_RISK changes adjudicated
    /// by a model.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub challenge: bool,
    /// The candidates (by index) that got a challenge lane; set when the
    /// lanes are dispatched.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub challenged: Vec<usize>,
}

/// What became of adjudication in this review.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AdjudicationStatus {
    /// The lane completed and its decisions were applied.
    Applied,
    /// Verification left no BLOCKER or IMPORTANT finding; no lane ran.
    NothingToAdjudicate,
    /// The lane faulted or was incomplete: the findings are as verification
    /// left them, and the lane's outcome forces NEEDS-HUMAN.
    NotApplied,
}

/// One finding the adjudicator downgraded or dropped, with its reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdjudicationChange {
    /// `downgrade` or `drop`.
    pub action: Action,
    pub rule: String,
    /// `file:line` of the finding.
    pub citation: String,
    pub summary: String,
    pub from: Severity,
    /// The severity after a downgrade; absent for a drop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<Severity>,
    pub reason: String,
}

/// The report's account of adjudication.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdjudicationReport {
    pub engine: String,
    pub status: AdjudicationStatus,
    /// Findings sent to the lane.
    pub candidates: usize,
    pub confirmed: usize,
    pub downgraded: usize,
    pub dropped: usize,
    /// Every downgrade and drop, in candidate order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<AdjudicationChange>,
    /// Decisions ignored (unknown index, repeated candidate, …) and other
    /// notes; an ignored decision leaves its finding as it was.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The second opinions on BLOCKER candidates, in candidate order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub challenges: Vec<ChallengeOutcome>,
}

/// What a challenge lane made of one BLOCKER candidate, beside what
/// adjudication decided.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChallengeOutcome {
    pub rule: String,
    /// `file:line` of the finding.
    pub citation: String,
    pub summary: String,
    /// What the adjudication lane decided; absent when it decided nothing
    /// for the candidate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adjudication: Option<Action>,
    pub verdict: ChallengeVerdict,
    /// The challenger's reason, or why its answer was not used.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// The `file:line` the challenger cited.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub evidence: String,
}

/// How a challenge ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChallengeVerdict {
    /// The finding survived the attempt to disprove it.
    Stands,
    /// Disproved with a cited reason: the finding is downgraded one level.
    Disproved,
    /// Disproved without evidence the review holds, or about a finding
    /// adjudication already removed or lowered: nothing changed.
    NotApplied,
    /// The lane faulted or its report was incomplete: nothing changed.
    Unsettled,
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn decisions_use_lowercase_actions_and_default_the_reason() {
        let d: Decision = serde_json::from_str(r#"{"index": 2, "action": "confirm"}"#).unwrap();
        assert_eq!(
            d,
            Decision {
                index: 2,
                action: Action::Confirm,
                reason: String::new(),
                evidence: String::new(),
            }
        );
        assert!(serde_json::from_str::<Decision>(r#"{"index": 0, "action": "raise"}"#).is_err());
        assert!(serde_json::from_str::<Decision>(r#"{"index": -1, "action": "drop"}"#).is_err());
    }

    #[test]
    fn evidence_cites_a_file_and_its_first_line() {
        let at = |evidence: &str| Decision {
            index: 0,
            action: Action::Drop,
            reason: "guarded".into(),
            evidence: evidence.into(),
        };
        assert_eq!(at("app/db.py:12").evidence_at(), Some(("app/db.py", 12)));
        assert_eq!(
            at(" ./app/db.py:12-14 ").evidence_at(),
            Some(("app/db.py", 12))
        );
        assert_eq!(at("app/db.py").evidence_at(), None);
        assert_eq!(at("app/db.py:0").evidence_at(), None);
        assert_eq!(at(":3").evidence_at(), None);
        assert_eq!(at("").evidence_at(), None);
    }
}
