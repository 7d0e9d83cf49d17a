//! Applying severity overrides and allowed nits to one finding.
//!
//! For one finding, in this order:
//!
//! 1. **caps**: of the matching `at most` overrides, the lowest lowers it;
//! 2. **floors**: of the matching floors, the highest raises it (a named
//!    invariant is more specific than a path, so a floor beats a cap);
//!
//! Where a nested `REVIEW.md` and one above it both have a matching cap
//! (or floor), the nearer file's decide: only the caps of the deepest file
//! with a matching cap are weighed, and so for floors.
//! 3. **allowed nits**: if it is now a SUGGESTION and a nit matches, it is
//!    not a finding.
//!
//! [`decide`] is the one place that guards the contract's invariant: a
//! finding raised as a BLOCKER leaves with the same severity, whatever the
//! conventions say. A convention that would lower or silence it is refused
//! and reported.

use super::bullet::depth;
use super::review_md::{Bound, ReviewMd, SeverityOverride};
use revu_domain::finding::{Finding, Severity};
use revu_domain::report::ConventionEffect;

/// A convention's place: `REVIEW.md:7`, `pkg/REVIEW.md:3`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source(pub String);

impl Source {
    fn of(origin: &str, line: usize) -> Source {
        Source(format!("{origin}:{line}"))
    }
}

/// What the conventions do with one finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Unchanged.
    Keep,
    /// Severity set by the convention written `at`.
    Set { severity: Severity, at: Source },
    /// Not a finding: an allowed nit written `at`.
    Suppress { at: Source },
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
        let matching: Vec<&SeverityOverride> = self
            .overrides
            .iter()
            .filter(|o| o.scope.matches(f))
            .collect();
        let nearest = |is_cap: bool| {
            matching
                .iter()
                .filter(|o| matches!(o.bound, Bound::Cap(_)) == is_cap)
                .map(|o| depth(o.scope.within.as_deref()))
                .max()
        };
        let (cap_depth, floor_depth) = (nearest(true), nearest(false));
        let mut cap: Option<(Severity, &SeverityOverride)> = None;
        let mut floor: Option<(Severity, &SeverityOverride)> = None;
        for o in matching.iter().copied() {
            let at = Some(depth(o.scope.within.as_deref()));
            match o.bound {
                Bound::Cap(s) if at == cap_depth && cap.is_none_or(|(c, _)| s < c) => {
                    cap = Some((s, o));
                }
                Bound::Floor(s) if at == floor_depth && floor.is_none_or(|(c, _)| s > c) => {
                    floor = Some((s, o));
                }
                Bound::Cap(_) | Bound::Floor(_) => {}
            }
        }
        let (mut severity, mut by) = (f.severity, None);
        if let Some((s, o)) = cap.filter(|(s, _)| *s < severity) {
            (severity, by) = (s, Some(o));
        }
        if let Some((s, o)) = floor.filter(|(s, _)| *s > severity) {
            (severity, by) = (s, Some(o));
        }
        if severity == Severity::Suggestion
            && let Some(nit) = self.nits.iter().find(|n| n.scope.matches(f))
        {
            return Decision::Suppress {
                at: Source::of(&nit.origin, nit.line),
            };
        }
        match by {
            Some(o) if severity != f.severity => Decision::Set {
                severity,
                at: Source::of(&o.origin, o.line),
            },
            _ => Decision::Keep,
        }
    }

    /// Applies the conventions to one finding. The BLOCKER guard lives here.
    pub fn apply(&self, mut f: Finding) -> Outcome {
        let decision = decide(f.severity, self.propose(&f));
        let effect = |at: Source, f: &Finding, to: Option<Severity>| ConventionEffect {
            convention: at.0,
            rule: f.rule.clone(),
            citation: f.citation(),
            from: f.severity,
            to,
        };
        match decision {
            Guarded::Allowed(Decision::Keep) => Outcome::Kept(f),
            Guarded::Allowed(Decision::Set { severity, at }) => {
                let e = effect(at, &f, Some(severity));
                f.severity = severity;
                Outcome::Overridden(f, e)
            }
            Guarded::Allowed(Decision::Suppress { at }) => {
                Outcome::Suppressed(effect(at, &f, None))
            }
            Guarded::Refused(at) => {
                let e = effect(at, &f, Some(Severity::Blocker));
                Outcome::Protected(f, e)
            }
        }
    }
}

/// A decision after the BLOCKER guard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Guarded {
    Allowed(Decision),
    /// Refused: it would have lowered or silenced a BLOCKER (where it is).
    Refused(Source),
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
        Decision::Set { at, .. } | Decision::Suppress { at } => Guarded::Refused(at),
    }
}
