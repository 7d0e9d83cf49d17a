//! Stage 7, optional last step: the adjudication lane's decisions applied to
//! the verified findings.
//!
//! A decision can only keep, lower or remove a finding, and only one the
//! lane was given: decisions name candidates by index, each candidate is
//! matched to the verified finding equal to it, and every other part of the
//! lane's report is ignored. So adjudication can never add a finding, raise
//! a severity or touch a confidence. Anything unusable (an unknown index, a
//! second decision for one candidate, a change without a reason) is ignored
//! and counted as a warning. A `drop` or `downgrade` of a BLOCKER must
//! cite, in `evidence`, a `file:line` the review holds that shows why;
//! otherwise it is refused and the BLOCKER stands. A finding adjudication
//! lowered meets the confidence floor of its new severity again, and its
//! `why` says what adjudication decided.
//!
//! A BLOCKER below [`UNCONFIRMED_BELOW`] confidence never reaches the
//! verdict as a BLOCKER unless adjudication confirmed it: without an
//! adjudication that re-tried it, it stands as an IMPORTANT marked
//! unconfirmed ([`hold_back_unconfirmed`]).

use crate::render::outcome_name;
use revu_domain::adjudication::{
    ADJUDICATION_LANE, Action, AdjudicationChange, AdjudicationPlan, AdjudicationReport,
    AdjudicationStatus, Decision, is_candidate_for,
};
use revu_domain::finding::{Finding, Severity};
use revu_domain::review::{LaneEnd, LaneResult};

/// The findings after adjudication, and the report's account of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Adjudicated {
    pub findings: Vec<Finding>,
    pub report: AdjudicationReport,
}

/// The severity one level below `s`; none below SUGGESTION.
pub fn lower(s: Severity) -> Option<Severity> {
    match s {
        Severity::Blocker => Some(Severity::Important),
        Severity::Important => Some(Severity::Suggestion),
        Severity::Suggestion => None,
    }
}

/// Confidence below which a BLOCKER needs adjudication's confirmation to
/// stay one.
pub const UNCONFIRMED_BELOW: u8 = 70;

/// Whether the review holds the text of a `file:line`, for checking the
/// evidence a decision cites (see [`crate::verify::holds_line`]).
pub type Holds<'a> = &'a dyn Fn(&str, u32) -> bool;

/// Adjudicates `findings` (verification's survivors, in report order).
/// `lane` is the adjudication lane's settled result; `None` when it was
/// never dispatched (nothing to adjudicate) or has not settled.
pub fn adjudicate(
    plan: &AdjudicationPlan,
    lane: Option<&LaneResult>,
    findings: Vec<Finding>,
    holds: Holds<'_>,
) -> Adjudicated {
    let mut out = adjudicate_lane(plan, lane, findings, holds);
    if out.report.status != AdjudicationStatus::Applied {
        hold_back_unconfirmed(&mut out.findings, &[]);
    }
    out
}

/// A BLOCKER below [`UNCONFIRMED_BELOW`] confidence that adjudication did
/// not confirm (`confirmed[i]` for `findings[i]`; missing is false)
/// stands as an IMPORTANT, its `why` saying so.
pub fn hold_back_unconfirmed(findings: &mut [Finding], confirmed: &[bool]) {
    for (i, f) in findings.iter_mut().enumerate() {
        let held = f.severity == Severity::Blocker
            && f.confidence < UNCONFIRMED_BELOW
            && !confirmed.get(i).copied().unwrap_or(false);
        if !held {
            continue;
        }
        f.downgraded_from.get_or_insert(f.severity);
        f.severity = Severity::Important;
        note(
            f,
            &format!(
                "Unconfirmed: raised as a BLOCKER at confidence {}, which no adjudication \
                 confirmed; shown as IMPORTANT.",
                f.confidence
            ),
        );
    }
}

/// Appends `text` to `f.why`.
fn note(f: &mut Finding, text: &str) {
    if !f.why.trim().is_empty() {
        f.why.push(' ');
    }
    f.why.push_str(text);
}

fn adjudicate_lane(
    plan: &AdjudicationPlan,
    lane: Option<&LaneResult>,
    findings: Vec<Finding>,
    holds: Holds<'_>,
) -> Adjudicated {
    let report = |status, warnings| AdjudicationReport {
        engine: plan.engine.clone(),
        status,
        candidates: plan.candidates.len(),
        confirmed: 0,
        downgraded: 0,
        dropped: 0,
        changes: Vec::new(),
        warnings,
        challenges: Vec::new(),
    };
    let Some(lane) = lane else {
        let status = if plan.candidates.is_empty()
            && !findings.iter().any(|f| is_candidate_for(&plan.engine, f))
        {
            AdjudicationStatus::NothingToAdjudicate
        } else {
            AdjudicationStatus::NotApplied
        };
        let warnings = match status {
            AdjudicationStatus::NotApplied => vec![format!(
                "lane {ADJUDICATION_LANE} never reported; findings left as verified"
            )],
            _ => Vec::new(),
        };
        return Adjudicated {
            findings,
            report: report(status, warnings),
        };
    };
    match &lane.end {
        LaneEnd::Complete { body } => {
            // Candidates of a review stored before the pre-existing mark
            // was a field have it in their summaries.
            let candidates: Vec<Finding> = plan
                .candidates
                .iter()
                .cloned()
                .map(Finding::with_mark_as_field)
                .collect();
            let mut out = apply(&plan.engine, findings, &candidates, &body.decisions, holds);
            if !body.findings.is_empty() {
                out.report.warnings.push(format!(
                    "the lane listed {} finding(s); ignored: adjudication never adds findings",
                    body.findings.len()
                ));
            }
            out
        }
        _ => Adjudicated {
            findings,
            report: report(
                AdjudicationStatus::NotApplied,
                vec![format!(
                    "lane {ADJUDICATION_LANE} is {}; findings left as verified",
                    outcome_name(lane.outcome())
                )],
            ),
        },
    }
}

/// Applies `decisions` about `candidates` to `findings`; a BLOCKER below
/// [`UNCONFIRMED_BELOW`] they do not confirm is held back
/// ([`hold_back_unconfirmed`]).
pub fn apply(
    engine: &str,
    mut findings: Vec<Finding>,
    candidates: &[Finding],
    decisions: &[Decision],
    holds: Holds<'_>,
) -> Adjudicated {
    let mut warnings = Vec::new();
    // Candidate i is the first verified finding equal to it not yet taken.
    let mut taken = vec![false; findings.len()];
    let mut position = Vec::with_capacity(candidates.len());
    for (i, c) in candidates.iter().enumerate() {
        let at = (0..findings.len()).find(|&j| !taken[j] && findings[j] == *c);
        match at {
            Some(j) => taken[j] = true,
            None => warnings.push(format!(
                "candidate {i} ({}) is not among the verified findings; its decision is ignored",
                c.citation()
            )),
        }
        position.push(at);
    }
    let mut chosen: Vec<Option<&Decision>> = vec![None; candidates.len()];
    for d in decisions {
        match chosen.get_mut(d.index) {
            None => warnings.push(format!(
                "decision for candidate {} ignored: there are {} candidate(s)",
                d.index,
                candidates.len()
            )),
            Some(Some(_)) => {
                warnings.push(format!("second decision for candidate {} ignored", d.index))
            }
            Some(_) if d.action.needs_reason() && d.reason.trim().is_empty() => {
                warnings.push(format!(
                    "{} of candidate {} ignored: no reason",
                    d.action.as_str(),
                    d.index
                ))
            }
            Some(slot) => *slot = Some(d),
        }
    }
    let mut report = AdjudicationReport {
        engine: engine.to_owned(),
        status: AdjudicationStatus::Applied,
        candidates: candidates.len(),
        confirmed: 0,
        downgraded: 0,
        dropped: 0,
        changes: Vec::new(),
        warnings: Vec::new(),
        challenges: Vec::new(),
    };
    let mut dropped = vec![false; findings.len()];
    let mut confirmed = vec![false; findings.len()];
    for (i, (decision, at)) in chosen.iter().zip(&position).enumerate() {
        let (Some(d), Some(j)) = (decision, at) else {
            if decision.is_none() && at.is_some() {
                warnings.push(format!("candidate {i} has no decision; kept as verified"));
            }
            continue;
        };
        let f = &mut findings[*j];
        let reason = d.reason.trim();
        if f.severity == Severity::Blocker && d.action != Action::Confirm {
            let held = d
                .evidence_at()
                .is_some_and(|(file, line)| holds(file, line));
            if !held {
                let cited = match d.evidence.trim() {
                    "" => "no evidence".to_owned(),
                    e => format!("evidence {e:?}, not a line the review holds"),
                };
                warnings.push(format!(
                    "{} of BLOCKER candidate {i} ({}) refused: it cites {cited}; the finding \
                     stands",
                    d.action.as_str(),
                    f.citation()
                ));
                continue;
            }
        }
        let because = |what: &str| match reason {
            "" => format!("Adjudicated: {what}."),
            r => format!("Adjudicated: {what} — {r}"),
        };
        let change = |f: &Finding, action, to, reason: String| AdjudicationChange {
            action,
            rule: f.rule.clone(),
            citation: f.citation(),
            summary: f.shown_summary().into_owned(),
            from: f.severity,
            to,
            reason,
        };
        match d.action {
            Action::Confirm => {
                report.confirmed += 1;
                confirmed[*j] = true;
                note(f, &because("confirmed"));
            }
            Action::Downgrade => match lower(f.severity) {
                // Lowered, it meets its new severity's floor again.
                Some(to) if f.confidence < to.confidence_floor() => {
                    let why = format!(
                        "downgraded to {to}, below that severity's confidence floor ({} < {}): {reason}",
                        f.confidence,
                        to.confidence_floor()
                    );
                    report.changes.push(change(f, Action::Drop, None, why));
                    dropped[*j] = true;
                    report.dropped += 1;
                }
                Some(to) => {
                    report
                        .changes
                        .push(change(f, Action::Downgrade, Some(to), reason.to_owned()));
                    f.downgraded_from.get_or_insert(f.severity);
                    f.severity = to;
                    note(f, &because("downgraded"));
                    report.downgraded += 1;
                }
                None => warnings.push(format!(
                    "downgrade of candidate {i} ignored: a {} has no lower severity",
                    f.severity
                )),
            },
            Action::Drop => {
                report
                    .changes
                    .push(change(f, Action::Drop, None, reason.to_owned()));
                dropped[*j] = true;
                report.dropped += 1;
            }
        }
    }
    hold_back_unconfirmed(&mut findings, &confirmed);
    let mut keep = dropped.iter().map(|d| !d);
    findings.retain(|_| keep.next().unwrap_or(true));
    report.warnings = warnings;
    Adjudicated { findings, report }
}

pub mod challenge;

#[cfg(test)]
mod tests;
