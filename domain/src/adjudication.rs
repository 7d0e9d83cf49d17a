//! The optional adjudication lane of stage 7: after verification, one lane
//! re-tries every BLOCKER and IMPORTANT finding against the code and decides
//! per finding to confirm it, downgrade it one level, or drop it. It can
//! never add a finding or raise a severity or a confidence: its decisions
//! name candidates by index, and nothing else of its report is read.

use crate::finding::{Finding, Severity};
use serde::{Deserialize, Serialize};

/// Id of the adjudication lane within a review.
pub const ADJUDICATION_LANE: &str = "adjudication";

/// Whether verification's survivor `f` is re-tried by adjudication.
pub fn is_candidate(f: &Finding) -> bool {
    f.severity >= Severity::Important
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
                reason: String::new()
            }
        );
        assert!(serde_json::from_str::<Decision>(r#"{"index": 0, "action": "raise"}"#).is_err());
        assert!(serde_json::from_str::<Decision>(r#"{"index": -1, "action": "drop"}"#).is_err());
    }
}
