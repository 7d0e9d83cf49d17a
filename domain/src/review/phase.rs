//! A review's phase, and the moves between phases: the whole table in one
//! pure function.
//!
//! ```text
//!  Grouping ─── grouping lane settled ───► Reviewing
//!     │                                        │
//!     │                     every lane settled: the first step ahead
//!     │                  ┌─────────────────────┼─────────────────────┐
//!     │                  ▼ adjudication        ▼ synthesis           │ none
//!     │            Adjudicating ─────────► Synthesizing              │
//!     │                  │ no synthesis        │ settled             │
//!     │ closed faulted   ▼                     ▼                     │
//!     └─────────────► Finalizing ◄─────────────┴─────────────────────┘
//!                        │ report stored
//!                        ▼
//!                     Finished
//!
//!  every phase before Finished ─── cancel ───► Cancelled
//! ```
//!
//! Every move goes forward in the order of [`ReviewPhase::ALL`], and
//! nothing leaves Finished or Cancelled: a review passes each phase at
//! most once. The store applies a move atomically and only from the phase
//! the move leaves (`ReviewStore::move_phase`, a compare-and-set), so of
//! a cancel and a finish racing, exactly one happens and the other is told
//! which phase won. Since phases only move forward, a caller that lost a
//! move to a non-terminal phase and tries again does so at most once per
//! phase.

use super::{ReviewPlan, ReviewState, SYNTHESIS_LANE};
use crate::adjudication::ADJUDICATION_LANE;
use serde::{Deserialize, Serialize};

/// Where a review is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReviewPhase {
    /// Only a refined review: its grouping lane (and its specialists) run;
    /// the domain lanes wait for the grouping lane's slices.
    Grouping,
    /// The review lanes run.
    Reviewing,
    /// Every review lane settled; the adjudication lane runs.
    Adjudicating,
    /// Every other lane settled; the synthesis lane runs.
    Synthesizing,
    /// Every lane settled; the report is being verified and rendered.
    Finalizing,
    /// The report is stored.
    Finished,
    Cancelled,
}

/// What a review still has to run once the lanes of its phase settled.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StepsAhead {
    /// The review is adjudicated and has candidates to adjudicate.
    pub adjudication: bool,
    /// The review gets a walkthrough.
    pub synthesis: bool,
}

impl ReviewPhase {
    /// Every phase, in the order moves go.
    pub const ALL: [ReviewPhase; 7] = [
        ReviewPhase::Grouping,
        ReviewPhase::Reviewing,
        ReviewPhase::Adjudicating,
        ReviewPhase::Synthesizing,
        ReviewPhase::Finalizing,
        ReviewPhase::Finished,
        ReviewPhase::Cancelled,
    ];

    /// The phase a new review of `plan` starts in.
    pub fn start(plan: &ReviewPlan) -> Self {
        if plan.grouping.is_some() {
            ReviewPhase::Grouping
        } else {
            ReviewPhase::Reviewing
        }
    }

    /// The phase of a record stored before reviews had one, from what that
    /// record held: its state, whether its domain lanes were planned from
    /// the grouping lane, and which of the later lanes its plan has.
    pub fn of_legacy(state: ReviewState, plan: &ReviewPlan) -> Self {
        match state {
            ReviewState::Finished => ReviewPhase::Finished,
            ReviewState::Cancelled => ReviewPhase::Cancelled,
            ReviewState::Running if plan.lane(SYNTHESIS_LANE).is_some() => {
                ReviewPhase::Synthesizing
            }
            ReviewState::Running if plan.lane(ADJUDICATION_LANE).is_some() => {
                ReviewPhase::Adjudicating
            }
            ReviewState::Running if plan.grouping.as_ref().is_some_and(|g| !g.applied) => {
                ReviewPhase::Grouping
            }
            ReviewState::Running => ReviewPhase::Reviewing,
        }
    }

    /// No move leaves this phase.
    pub fn is_terminal(self) -> bool {
        matches!(self, ReviewPhase::Finished | ReviewPhase::Cancelled)
    }

    /// The state the public API reports for this phase.
    pub fn state(self) -> ReviewState {
        match self {
            ReviewPhase::Finished => ReviewState::Finished,
            ReviewPhase::Cancelled => ReviewState::Cancelled,
            _ => ReviewState::Running,
        }
    }

    /// Whether a review may move from this phase to `to` (the diagram
    /// above, edge for edge).
    pub fn allows(self, to: ReviewPhase) -> bool {
        use ReviewPhase::*;
        match (self, to) {
            (Finished | Cancelled, _) => false,
            (_, Cancelled) => true,
            (Grouping, Reviewing)
            | (Reviewing, Adjudicating | Synthesizing)
            | (Adjudicating, Synthesizing)
            | (Finalizing, Finished) => true,
            // Every lane settled, or the review is closed with every
            // lane faulted (which a review still grouping may be).
            (Grouping | Reviewing | Adjudicating | Synthesizing, Finalizing) => true,
            _ => false,
        }
    }

    /// Where a review goes once the lanes of this phase settled, with
    /// `ahead` still to run; `None` for a phase no settled lane moves
    /// (Finalizing waits for its report, Finished and Cancelled for
    /// nothing).
    pub fn once_settled(self, ahead: StepsAhead) -> Option<ReviewPhase> {
        use ReviewPhase::*;
        match self {
            Grouping => Some(Reviewing),
            Reviewing if ahead.adjudication => Some(Adjudicating),
            Reviewing | Adjudicating if ahead.synthesis => Some(Synthesizing),
            Reviewing | Adjudicating | Synthesizing => Some(Finalizing),
            Finalizing | Finished | Cancelled => None,
        }
    }

    /// The name it is stored under (`grouping`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewPhase::Grouping => "grouping",
            ReviewPhase::Reviewing => "reviewing",
            ReviewPhase::Adjudicating => "adjudicating",
            ReviewPhase::Synthesizing => "synthesizing",
            ReviewPhase::Finalizing => "finalizing",
            ReviewPhase::Finished => "finished",
            ReviewPhase::Cancelled => "cancelled",
        }
    }

    /// The phase stored under `name`.
    pub fn parse(name: &str) -> Option<Self> {
        ReviewPhase::ALL.into_iter().find(|p| p.as_str() == name)
    }
}

impl std::fmt::Display for ReviewPhase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lane::{LaneKind, LaneSpec};
    use crate::review::GroupingPlan;
    use ReviewPhase::*;

    fn rank(p: ReviewPhase) -> usize {
        ReviewPhase::ALL
            .iter()
            .position(|&q| q == p)
            .unwrap_or(usize::MAX)
    }

    fn all_moves() -> impl Iterator<Item = (ReviewPhase, ReviewPhase)> {
        ReviewPhase::ALL
            .into_iter()
            .flat_map(|a| ReviewPhase::ALL.into_iter().map(move |b| (a, b)))
    }

    #[test]
    fn the_table_is_the_diagram() {
        let allowed: Vec<(ReviewPhase, ReviewPhase)> =
            all_moves().filter(|&(a, b)| a.allows(b)).collect();
        assert_eq!(
            allowed,
            [
                (Grouping, Reviewing),
                (Grouping, Finalizing),
                (Grouping, Cancelled),
                (Reviewing, Adjudicating),
                (Reviewing, Synthesizing),
                (Reviewing, Finalizing),
                (Reviewing, Cancelled),
                (Adjudicating, Synthesizing),
                (Adjudicating, Finalizing),
                (Adjudicating, Cancelled),
                (Synthesizing, Finalizing),
                (Synthesizing, Cancelled),
                (Finalizing, Finished),
                (Finalizing, Cancelled),
            ]
        );
    }

    #[test]
    fn every_move_goes_forward_and_none_leaves_an_end() {
        for (a, b) in all_moves().filter(|&(a, b)| a.allows(b)) {
            assert!(rank(a) < rank(b), "{a} -> {b} goes back");
            assert!(!a.is_terminal(), "{a} -> {b} leaves an end");
        }
        assert!(
            !Finished.allows(Cancelled),
            "a finished review stays finished"
        );
        assert!(
            !Cancelled.allows(Finished),
            "a cancelled review never finishes"
        );
    }

    #[test]
    fn settling_moves_only_along_allowed_edges() {
        for phase in ReviewPhase::ALL {
            for adjudication in [false, true] {
                for synthesis in [false, true] {
                    let ahead = StepsAhead {
                        adjudication,
                        synthesis,
                    };
                    if let Some(next) = phase.once_settled(ahead) {
                        assert!(phase.allows(next), "{phase} -> {next} with {ahead:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn settled_lanes_lead_to_the_next_step_still_ahead() {
        let both = StepsAhead {
            adjudication: true,
            synthesis: true,
        };
        let synthesis = StepsAhead {
            synthesis: true,
            ..StepsAhead::default()
        };
        let none = StepsAhead::default();
        assert_eq!(Grouping.once_settled(both), Some(Reviewing));
        assert_eq!(Reviewing.once_settled(both), Some(Adjudicating));
        assert_eq!(Reviewing.once_settled(synthesis), Some(Synthesizing));
        assert_eq!(Reviewing.once_settled(none), Some(Finalizing));
        // Adjudication runs once, before synthesis; synthesis once.
        assert_eq!(Adjudicating.once_settled(both), Some(Synthesizing));
        assert_eq!(Adjudicating.once_settled(none), Some(Finalizing));
        assert_eq!(Synthesizing.once_settled(both), Some(Finalizing));
        for waits in [Finalizing, Finished, Cancelled] {
            assert_eq!(waits.once_settled(both), None, "{waits}");
        }
    }

    #[test]
    fn the_public_state_is_running_until_an_end() {
        for phase in ReviewPhase::ALL {
            let state = phase.state();
            assert_eq!(state.is_terminal(), phase.is_terminal(), "{phase}");
        }
        assert_eq!(Finished.state(), ReviewState::Finished);
        assert_eq!(Cancelled.state(), ReviewState::Cancelled);
    }

    #[test]
    fn phases_are_stored_as_they_serialize() {
        for phase in ReviewPhase::ALL {
            let json = serde_json::to_value(phase).unwrap_or_default();
            assert_eq!(json, phase.as_str());
            assert_eq!(ReviewPhase::parse(phase.as_str()), Some(phase));
        }
        assert_eq!(ReviewPhase::parse("running"), None);
    }

    fn lane(id: &str, kind: LaneKind) -> LaneSpec {
        LaneSpec {
            id: id.into(),
            kind,
            engine: "rules".into(),
            files: Vec::new(),
            guidance: Vec::new(),
        }
    }

    #[test]
    fn a_legacy_record_s_phase_comes_from_its_state_and_plan() {
        let plain = ReviewPlan::default();
        assert_eq!(
            ReviewPhase::of_legacy(ReviewState::Running, &plain),
            Reviewing
        );
        assert_eq!(
            ReviewPhase::of_legacy(ReviewState::Finished, &plain),
            Finished
        );
        assert_eq!(
            ReviewPhase::of_legacy(ReviewState::Cancelled, &plain),
            Cancelled
        );
        let mut refined = ReviewPlan {
            grouping: Some(GroupingPlan {
                engine: "rules".into(),
                proposal: Vec::new(),
                applied: false,
            }),
            ..ReviewPlan::default()
        };
        assert_eq!(
            ReviewPhase::of_legacy(ReviewState::Running, &refined),
            Grouping
        );
        if let Some(g) = &mut refined.grouping {
            g.applied = true;
        }
        assert_eq!(
            ReviewPhase::of_legacy(ReviewState::Running, &refined),
            Reviewing
        );
        refined
            .lanes
            .push(lane(ADJUDICATION_LANE, LaneKind::Adjudication));
        assert_eq!(
            ReviewPhase::of_legacy(ReviewState::Running, &refined),
            Adjudicating
        );
        refined
            .lanes
            .push(lane(SYNTHESIS_LANE, LaneKind::Synthesis));
        assert_eq!(
            ReviewPhase::of_legacy(ReviewState::Running, &refined),
            Synthesizing
        );
        assert_eq!(
            ReviewPhase::of_legacy(ReviewState::Cancelled, &refined),
            Cancelled
        );
    }
}
