//! Second opinions: on a BROAD or HIGH_RISK change adjudicated by a model,
//! each BLOCKER candidate also went to a challenge lane of its own, a
//! fresh request told to disprove it. A challenger that disproves it
//! (`drop` or `downgrade`) with evidence the review holds lowers it one
//! level, never removes it; the report shows both the adjudicator's and
//! the challenger's outcome.

use super::Holds;
use revu_domain::adjudication::{
    ADJUDICATION_LANE, Action, AdjudicationPlan, ChallengeOutcome, ChallengeVerdict, Decision,
    challenge_lane,
};
use revu_domain::finding::{Finding, Severity};
use revu_domain::review::{LaneEnd, LaneResults};

/// Applies the challenge lanes' decisions to `findings` (after
/// adjudication) and returns what each challenge came to.
pub fn challenge(
    plan: &AdjudicationPlan,
    results: &LaneResults,
    findings: &mut [Finding],
    holds: Holds<'_>,
) -> Vec<ChallengeOutcome> {
    let adjudicated = decisions(results, ADJUDICATION_LANE);
    plan.challenged
        .iter()
        .filter_map(|&i| {
            let candidate = plan.candidates.get(i)?.clone().with_mark_as_field();
            let adjudication = adjudicated.iter().find(|d| d.index == i).map(|d| d.action);
            let mut outcome = ChallengeOutcome {
                rule: candidate.rule.clone(),
                citation: candidate.citation(),
                summary: candidate.shown_summary().into_owned(),
                adjudication,
                verdict: ChallengeVerdict::Unsettled,
                reason: String::new(),
                evidence: String::new(),
            };
            let lane = challenge_lane(i);
            let Some(decision) = settled_decision(results, &lane) else {
                outcome.reason = format!("lane {lane} did not complete");
                return Some(outcome);
            };
            outcome.reason = decision.reason.trim().to_owned();
            outcome.evidence = decision.evidence.trim().to_owned();
            if decision.action == Action::Confirm {
                outcome.verdict = ChallengeVerdict::Stands;
                return Some(outcome);
            }
            outcome.verdict = ChallengeVerdict::NotApplied;
            let held = decision
                .evidence_at()
                .is_some_and(|(file, line)| holds(file, line));
            if !held {
                outcome.reason = format!(
                    "disproved without evidence the review holds ({}): {}",
                    match outcome.evidence.as_str() {
                        "" => "none cited",
                        e => e,
                    },
                    outcome.reason
                );
                return Some(outcome);
            }
            let same = |f: &Finding| {
                (&f.rule, &f.file, f.line, &f.summary)
                    == (
                        &candidate.rule,
                        &candidate.file,
                        candidate.line,
                        &candidate.summary,
                    )
            };
            match findings
                .iter_mut()
                .find(|f| same(f) && f.severity == Severity::Blocker)
            {
                Some(f) => {
                    f.downgraded_from.get_or_insert(f.severity);
                    f.severity = Severity::Important;
                    if !f.why.trim().is_empty() {
                        f.why.push(' ');
                    }
                    f.why.push_str(&format!(
                        "Challenged: disproved — {} ({})",
                        outcome.reason, outcome.evidence
                    ));
                    outcome.verdict = ChallengeVerdict::Disproved;
                }
                None => {
                    outcome.reason =
                        format!("no longer a BLOCKER after adjudication: {}", outcome.reason);
                }
            }
            Some(outcome)
        })
        .collect()
}

/// The decisions of lane `id`, when it completed.
fn decisions<'a>(results: &'a LaneResults, id: &str) -> &'a [Decision] {
    match results.get(id).map(|r| &r.end) {
        Some(LaneEnd::Complete { body }) => &body.decisions,
        _ => &[],
    }
}

/// The one decision of a completed challenge lane.
fn settled_decision<'a>(results: &'a LaneResults, id: &str) -> Option<&'a Decision> {
    decisions(results, id).iter().find(|d| d.index == 0)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use revu_domain::finding::Dimension;
    use revu_domain::lane::LaneReportBody;
    use revu_domain::review::LaneResult;
    use std::sync::Arc;

    fn blocker(line: u32) -> Finding {
        Finding {
            summary: format!("problem {line}"),
            ..Finding::at(
                "llm:security",
                Severity::Blocker,
                "src/a.rs",
                line,
                Dimension::Security,
            )
        }
    }

    fn decided(id: &str, decisions: Vec<Decision>) -> (String, Arc<LaneResult>) {
        let body = LaneReportBody {
            decisions,
            ..LaneReportBody::default()
        };
        (
            id.to_owned(),
            Arc::new(LaneResult::new(id, LaneEnd::Complete { body }, 1)),
        )
    }

    fn decision(index: usize, action: Action, evidence: &str) -> Decision {
        Decision {
            index,
            action,
            reason: "guarded at the caller".into(),
            evidence: evidence.into(),
        }
    }

    #[test]
    fn a_disproved_blocker_is_lowered_and_both_outcomes_are_shown() {
        let candidates = vec![blocker(1), blocker(2), blocker(3)];
        let plan = AdjudicationPlan {
            engine: "llm".into(),
            candidates: candidates.clone(),
            challenge: true,
            challenged: vec![0, 1, 2],
        };
        let results: LaneResults = [
            decided(
                ADJUDICATION_LANE,
                vec![
                    decision(0, Action::Confirm, ""),
                    decision(1, Action::Confirm, ""),
                    decision(2, Action::Confirm, ""),
                ],
            ),
            decided("challenge:0", vec![decision(0, Action::Drop, "src/a.rs:7")]),
            decided("challenge:1", vec![decision(0, Action::Confirm, "")]),
            decided("challenge:2", vec![decision(0, Action::Drop, "")]),
        ]
        .into_iter()
        .collect();
        let mut findings = candidates;
        let holds = |file: &str, line: u32| file == "src/a.rs" && line == 7;
        let outcomes = challenge(&plan, &results, &mut findings, &holds);
        let verdicts: Vec<ChallengeVerdict> = outcomes.iter().map(|o| o.verdict).collect();
        assert_eq!(
            verdicts,
            [
                ChallengeVerdict::Disproved,
                ChallengeVerdict::Stands,
                ChallengeVerdict::NotApplied
            ]
        );
        assert!(
            outcomes
                .iter()
                .all(|o| o.adjudication == Some(Action::Confirm))
        );
        // Lowered, not removed; the others stand.
        let severities: Vec<Severity> = findings.iter().map(|f| f.severity).collect();
        assert_eq!(
            severities,
            [Severity::Important, Severity::Blocker, Severity::Blocker]
        );
        assert_eq!(findings[0].downgraded_from, Some(Severity::Blocker));
        assert_eq!(
            findings[0].why,
            "Challenged: disproved — guarded at the caller (src/a.rs:7)"
        );
        assert!(outcomes[2].reason.starts_with("disproved without evidence"));
    }

    #[test]
    fn a_challenge_lane_that_did_not_complete_changes_nothing() {
        let plan = AdjudicationPlan {
            engine: "llm".into(),
            candidates: vec![blocker(1)],
            challenge: true,
            challenged: vec![0],
        };
        let mut findings = vec![blocker(1)];
        let outcomes = challenge(&plan, &LaneResults::new(), &mut findings, &|_, _| true);
        assert_eq!(outcomes[0].verdict, ChallengeVerdict::Unsettled);
        assert_eq!(outcomes[0].adjudication, None);
        assert_eq!(findings[0].severity, Severity::Blocker);
    }
}
