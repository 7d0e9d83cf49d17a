//! Verdict math: a pure function of verified findings, lane outcomes,
//! signals and rigor. Nothing here reads a clock, the environment or the
//! order lanes finished in, so a verdict replays from the report alone.
//!
//! # Rigor folding
//!
//! Applied to every finding before anything is counted. Severities only ever
//! fold down, and a SUGGESTION never changes.
//!
//! Columns are the raised severity, cells what it counts as. The "soft"
//! dimensions are design, performance, testing and operability; the others
//! are correctness and security.
//!
//! | rigor        | BLOCKER                             | IMPORTANT                            | SUGGESTION |
//! |--------------|-------------------------------------|--------------------------------------|------------|
//! | `production` | BLOCKER                             | IMPORTANT                            | SUGGESTION |
//! | `prototype`  | BLOCKER                             | soft: SUGGESTION; others: IMPORTANT  | SUGGESTION |
//! | `poc`        | soft: IMPORTANT; others: BLOCKER    | SUGGESTION                           | SUGGESTION |
//!
//! A merged finding raised by several dimensions folds to the most severe
//! outcome among them: if any of its dimensions keeps it a BLOCKER, it stays.
//!
//! # Verdict
//!
//! | folded findings          | verdict                  |
//! |--------------------------|--------------------------|
//! | any BLOCKER              | `REQUEST CHANGES`        |
//! | else any IMPORTANT       | `APPROVE WITH FOLLOWUPS` |
//! | else                     | `APPROVE`                |
//!
//! # Gate
//!
//! `NEEDS-HUMAN` when any row below applies, `MERGE-READY` otherwise. Each
//! row that applies adds its reasons, in this order:
//!
//! | condition                               | reason                                                               |
//! |-----------------------------------------|----------------------------------------------------------------------|
//! | a folded BLOCKER                        | `N blocker finding(s) must be fixed`                                 |
//! | a lane faulted, incomplete or cancelled | `lane <id> faulted`, `lane <id> is incomplete`, `lane <id> was cancelled` |
//! | verification dropped a citation         | `verification dropped N finding(s) citing code that does not exist`  |
//! | an always-human signal                  | `auth surface touched`, `destructive migration`                      |
//!
//! # Actions
//!
//! At most five, in this order: fix each BLOCKER, re-run each lane that did
//! not complete, get a human review of each always-human signal, check the
//! dropped citations, follow up each IMPORTANT. With nothing to do, the one
//! action is to merge when CI is green.
use revu_domain::facts::Signal;
use revu_domain::finding::{Dimension, Finding, Severity};
use revu_domain::report::{Gate, LaneOutcome, LaneSummary, Rigor, Verdict};
use std::collections::BTreeSet;

/// Everything the verdict depends on.
#[derive(Debug, Clone, Copy)]
pub struct VerdictInput<'a> {
    pub findings: &'a [Finding],
    pub lanes: &'a [LaneSummary],
    pub signals: &'a [Signal],
    pub rigor: Rigor,
    /// Citations that failed verification (unknown file or missing line).
    pub failed_citations: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub verdict: Verdict,
    pub gate: Gate,
    pub gate_reasons: Vec<String>,
    pub actions: Vec<String>,
}

const MAX_ACTIONS: usize = 5;

/// Folds one severity raised in one dimension by the rigor table above.
///
/// Always `Some` under the current table; `None` is kept for a rigor that
/// discards a finding outright, so callers already handle it.
pub fn fold(severity: Severity, dimension: Dimension, rigor: Rigor) -> Option<Severity> {
    use Severity::{Blocker, Important, Suggestion};
    let soft = !matches!(dimension, Dimension::Correctness | Dimension::Security);
    let folded = match (rigor, severity) {
        (Rigor::Production, s) | (_, s @ Suggestion) => s,
        (Rigor::Prototype, Important) if soft => Suggestion,
        (Rigor::Prototype, s) => s,
        (Rigor::Poc, Important) => Suggestion,
        (Rigor::Poc, Blocker) if soft => Important,
        (Rigor::Poc, Blocker) => Blocker,
    };
    Some(folded)
}

/// The severity a finding counts with: the most severe fold across every
/// dimension that raised it. `None` when it does not count: the rigor
/// discards it, or it is pre-existing and below BLOCKER.
pub fn folded_severity(finding: &Finding, rigor: Rigor) -> Option<Severity> {
    // A pre-existing finding is for the reader; the change did not add it.
    if finding.pre_existing && finding.severity < Severity::Blocker {
        return None;
    }
    std::iter::once(finding.dimension)
        .chain(finding.dimensions.iter().copied())
        .filter_map(|d| fold(finding.severity, d, rigor))
        .max()
}

/// Reader-facing name of a signal, as used in reasons and actions.
pub fn signal_name(signal: Signal) -> &'static str {
    match signal {
        Signal::AuthSurface => "auth surface",
        Signal::DestructiveMigration => "destructive migration",
        Signal::PublicApi => "public API",
        Signal::CiCd => "CI/CD",
        Signal::DependencyChange => "dependency",
        Signal::GeneratedOrVendored => "generated or vendored code",
        Signal::DocsOnly => "docs-only",
    }
}

/// The verdict, gate, gate reasons and actions, by the tables above.
pub fn decide(input: &VerdictInput<'_>) -> Decision {
    let tally = Tally::of(input);
    let verdict = if !tally.blockers.is_empty() {
        Verdict::RequestChanges
    } else if !tally.importants.is_empty() {
        Verdict::ApproveWithFollowups
    } else {
        Verdict::Approve
    };
    let gate_reasons = tally.gate_reasons();
    let gate = if gate_reasons.is_empty() {
        Gate::MergeReady
    } else {
        Gate::NeedsHuman
    };
    Decision {
        verdict,
        gate,
        gate_reasons,
        actions: tally.actions(),
    }
}

/// What the verdict counts, each part in a fixed order so that the order
/// findings and lanes arrive in never shows in the decision.
struct Tally<'a> {
    blockers: Vec<&'a Finding>,
    importants: Vec<&'a Finding>,
    unsettled: Vec<&'a LaneSummary>,
    human: BTreeSet<Signal>,
    failed_citations: usize,
}

impl<'a> Tally<'a> {
    fn of(input: &VerdictInput<'a>) -> Tally<'a> {
        let mut counted: Vec<(Severity, &Finding)> = input
            .findings
            .iter()
            .filter_map(|f| Some((folded_severity(f, input.rigor)?, f)))
            .collect();
        counted.sort_by(|(sa, a), (sb, b)| {
            (sb, &a.file, a.line, a.end_line, &a.rule, a.shown_summary()).cmp(&(
                sa,
                &b.file,
                b.line,
                b.end_line,
                &b.rule,
                b.shown_summary(),
            ))
        });
        let of = |sev: Severity| {
            counted
                .iter()
                .filter(|(s, _)| *s == sev)
                .map(|(_, f)| *f)
                .collect()
        };
        let mut unsettled: Vec<&LaneSummary> = input
            .lanes
            .iter()
            .filter(|l| l.counts_for_gate() && l.outcome != LaneOutcome::Complete)
            .collect();
        unsettled.sort_by(|a, b| a.id.cmp(&b.id));
        Tally {
            blockers: of(Severity::Blocker),
            importants: of(Severity::Important),
            unsettled,
            human: input
                .signals
                .iter()
                .copied()
                .filter(|s| s.always_human())
                .collect(),
            failed_citations: input.failed_citations,
        }
    }

    fn gate_reasons(&self) -> Vec<String> {
        let blockers = (!self.blockers.is_empty()).then(|| {
            format!(
                "{} must be fixed",
                plural(self.blockers.len(), "blocker finding")
            )
        });
        let lanes = self
            .unsettled
            .iter()
            .map(|l| format!("lane {} {}", l.id, lane_state(l.outcome)));
        let citations = (self.failed_citations > 0).then(|| {
            format!(
                "verification dropped {} citing code that does not exist",
                plural(self.failed_citations, "finding")
            )
        });
        let signals = self.human.iter().map(|&s| signal_reason(s).to_owned());
        blockers
            .into_iter()
            .chain(lanes)
            .chain(citations)
            .chain(signals)
            .collect()
    }

    fn actions(&self) -> Vec<String> {
        let blockers = self
            .blockers
            .iter()
            .map(|f| format!("fix: {} ({})", f.shown_summary(), f.citation()));
        let lanes = self.unsettled.iter().map(|l| {
            let why = l.banner.as_deref().unwrap_or(match l.outcome {
                LaneOutcome::Incomplete => "report incomplete",
                LaneOutcome::Cancelled => "cancelled before it reported",
                LaneOutcome::PipelineFault | LaneOutcome::Complete => "no usable report",
            });
            format!("re-run lane {}: {why}", l.id)
        });
        let signals = self
            .human
            .iter()
            .map(|&s| format!("get a human review of the {} change", signal_name(s)));
        // Without this, a NEEDS-HUMAN gate could come with "merge" as its only step.
        let citations = (self.failed_citations > 0).then(|| {
            format!(
                "check why {} cited code that does not exist",
                plural(self.failed_citations, "finding")
            )
        });
        let importants = self
            .importants
            .iter()
            .map(|f| format!("follow up: {} ({})", f.shown_summary(), f.citation()));
        let actions: Vec<String> = blockers
            .chain(lanes)
            .chain(signals)
            .chain(citations)
            .chain(importants)
            .take(MAX_ACTIONS)
            .collect();
        if actions.is_empty() {
            return vec!["merge when CI is green".to_owned()];
        }
        actions
    }
}

fn lane_state(outcome: LaneOutcome) -> &'static str {
    match outcome {
        LaneOutcome::Complete => "completed",
        LaneOutcome::Incomplete => "is incomplete",
        LaneOutcome::PipelineFault => "faulted",
        LaneOutcome::Cancelled => "was cancelled",
    }
}

fn signal_reason(signal: Signal) -> &'static str {
    match signal {
        Signal::DestructiveMigration => "destructive migration",
        Signal::AuthSurface => "auth surface touched",
        Signal::PublicApi => "public API touched",
        Signal::CiCd => "CI/CD touched",
        Signal::DependencyChange => "dependencies changed",
        Signal::GeneratedOrVendored => "generated or vendored code touched",
        Signal::DocsOnly => "docs-only change",
    }
}

fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests;
