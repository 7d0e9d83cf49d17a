//! Applying severity overrides and allowed nits to one finding.
//!
//! For one finding, in this order:
//!
//! 1. **caps**: of the matching `at most` overrides, the lowest lowers it;
//! 2. **floors**: of the matching floors, the highest raises it (a named
//!    invariant is more specific than a path, so a floor beats a cap);
//! 3. **allowed nits**: if it is now a SUGGESTION and a nit matches, it is
//!    not a finding.
//!
//! [`decide`] is the one place that guards the contract's invariant: a
//! finding raised as a BLOCKER leaves with the same severity, whatever the
//! conventions say. A convention that would lower or silence it is refused
//! and reported.

use super::review_md::{Bound, ReviewMd};
use revu_common::finding::{Finding, Severity};
use revu_common::report::ConventionEffect;

/// What the conventions do with one finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Unchanged.
    Keep,
    /// Severity set by the convention on this `REVIEW.md` line.
    Set { severity: Severity, line: usize },
    /// Not a finding: an allowed nit on this line.
    Suppress { line: usize },
}

/// The effect of a decision, for the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Kept(Finding),
    Overridden(Finding, ConventionEffect),
    Suppressed(ConventionEffect),
    /// A BLOCKER a convention tried to lower or silence, kept as it was.
    Protected(Finding, ConventionEffect),
}

impl ReviewMd {
    /// What the conventions would do, before the BLOCKER guard.
    fn propose(&self, f: &Finding) -> Decision {
        let matching = self.overrides.iter().filter(|o| o.scope.matches(f));
        let mut cap: Option<(Severity, usize)> = None;
        let mut floor: Option<(Severity, usize)> = None;
        for o in matching {
            match o.bound {
                Bound::Cap(s) if cap.is_none_or(|(c, _)| s < c) => cap = Some((s, o.line)),
                Bound::Floor(s) if floor.is_none_or(|(c, _)| s > c) => floor = Some((s, o.line)),
                Bound::Cap(_) | Bound::Floor(_) => {}
            }
        }
        let (mut severity, mut by) = (f.severity, None);
        if let Some((s, line)) = cap.filter(|(s, _)| *s < severity) {
            (severity, by) = (s, Some(line));
        }
        if let Some((s, line)) = floor.filter(|(s, _)| *s > severity) {
            (severity, by) = (s, Some(line));
        }
        if severity == Severity::Suggestion
            && let Some(nit) = self.nits.iter().find(|n| n.scope.matches(f))
        {
            return Decision::Suppress { line: nit.line };
        }
        match by {
            Some(line) if severity != f.severity => Decision::Set { severity, line },
            _ => Decision::Keep,
        }
    }

    /// Applies the conventions to one finding. The BLOCKER guard lives here.
    pub fn apply(&self, mut f: Finding) -> Outcome {
        let decision = decide(f.severity, self.propose(&f));
        let effect = |line: usize, f: &Finding, to: Option<Severity>| ConventionEffect {
            convention: format!("REVIEW.md:{line}"),
            rule: f.rule.clone(),
            citation: f.citation(),
            from: f.severity,
            to,
        };
        match decision {
            Guarded::Allowed(Decision::Keep) => Outcome::Kept(f),
            Guarded::Allowed(Decision::Set { severity, line }) => {
                let e = effect(line, &f, Some(severity));
                f.severity = severity;
                Outcome::Overridden(f, e)
            }
            Guarded::Allowed(Decision::Suppress { line }) => {
                Outcome::Suppressed(effect(line, &f, None))
            }
            Guarded::Refused(line) => {
                let e = effect(line, &f, Some(Severity::Blocker));
                Outcome::Protected(f, e)
            }
        }
    }
}

/// A decision after the BLOCKER guard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Guarded {
    Allowed(Decision),
    /// Refused: it would have lowered or silenced a BLOCKER (its line).
    Refused(usize),
}

/// The contract's invariant, enforced once: conventions may move SUGGESTION
/// and IMPORTANT either way, but never lower or silence a BLOCKER.
pub fn decide(raised: Severity, proposed: Decision) -> Guarded {
    if raised != Severity::Blocker {
        return Guarded::Allowed(proposed);
    }
    match proposed {
        Decision::Keep => Guarded::Allowed(Decision::Keep),
        Decision::Set {
            severity: Severity::Blocker,
            ..
        } => Guarded::Allowed(Decision::Keep),
        Decision::Set { line, .. } | Decision::Suppress { line } => Guarded::Refused(line),
    }
}
