//! The lane plan: one lane per domain slice, plus the specialist dimensions
//! that triage selects.
//!
//! Triage table (a dimension is dispatched if any row selects it):
//!
//! | when                                   | dimensions                          |
//! |----------------------------------------|-------------------------------------|
//! | risk tier `BROAD` or `HIGH_RISK`       | all six                             |
//! | risk tier `LOCAL` with a source change | correctness, testing                |
//! | `TRIVIAL`                              | none by tier                        |
//! | signal auth surface                    | security                            |
//! | signal destructive migration           | correctness, operability            |
//! | signal public API                      | design, correctness                 |
//! | signal CI/CD                           | operability, security               |
//! | signal dependency change               | security                            |
//!
//! Every dimension not dispatched is listed in the report with the reason.

use super::grouping::Slice;
use revu_domain::facts::{RiskTier, Signal};
use revu_domain::finding::Dimension;
use revu_domain::lane::{LaneKind, LaneSpec};
use revu_domain::review::SkippedDimension;

/// The lanes of a review and the dimensions left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LanePlan {
    pub lanes: Vec<LaneSpec>,
    pub skipped: Vec<SkippedDimension>,
}

/// Dimensions selected by the triage table, each with why.
pub fn triage(
    tier: RiskTier,
    signals: &[Signal],
    source_changed: bool,
) -> Vec<(Dimension, String)> {
    let mut picked: Vec<(Dimension, String)> = Vec::new();
    let mut add = |d: Dimension, why: &str| {
        if !picked.iter().any(|(p, _)| *p == d) {
            picked.push((d, why.to_owned()));
        }
    };
    match tier {
        RiskTier::Broad | RiskTier::HighRisk => {
            for d in Dimension::ALL {
                add(d, "broad or high-risk change");
            }
        }
        RiskTier::Local if source_changed => {
            add(Dimension::Correctness, "behaviour change");
            add(Dimension::Testing, "behaviour change");
        }
        RiskTier::Local | RiskTier::Trivial => {}
    }
    for s in signals {
        match s {
            Signal::AuthSurface => add(Dimension::Security, "auth surface"),
            Signal::DestructiveMigration => {
                add(Dimension::Correctness, "destructive migration");
                add(Dimension::Operability, "destructive migration");
            }
            Signal::PublicApi => {
                add(Dimension::Design, "public API");
                add(Dimension::Correctness, "public API");
            }
            Signal::CiCd => {
                add(Dimension::Operability, "CI/CD change");
                add(Dimension::Security, "CI/CD change");
            }
            Signal::DependencyChange => add(Dimension::Security, "dependency change"),
            Signal::GeneratedOrVendored | Signal::DocsOnly => {}
        }
    }
    picked.sort_by_key(|(d, _)| *d);
    picked
}

/// Builds the lanes: domain slices first, then specialists in dimension order.
pub fn plan(
    slices: &[Slice],
    all_files: &[String],
    tier: RiskTier,
    signals: &[Signal],
    source_changed: bool,
    engine: &str,
) -> LanePlan {
    let mut lanes = domain_lanes(slices, engine);
    let picked = triage(tier, signals, source_changed);
    let mut skipped = Vec::new();
    for d in Dimension::ALL {
        if picked.iter().any(|(p, _)| *p == d) {
            lanes.push(LaneSpec {
                id: format!("specialist:{d}"),
                kind: LaneKind::Specialist { dimension: d },
                engine: engine.to_owned(),
                files: all_files.to_vec(),
                guidance: Vec::new(),
            });
        } else {
            skipped.push(SkippedDimension {
                dimension: d,
                reason: format!(
                    "not triggered: risk tier {} and no signal that selects it",
                    tier_name(tier)
                ),
            });
        }
    }
    LanePlan { lanes, skipped }
}

/// One domain lane per slice, `domain:{name}`.
pub fn domain_lanes(slices: &[Slice], engine: &str) -> Vec<LaneSpec> {
    slices
        .iter()
        .map(|s| LaneSpec {
            id: format!("domain:{}", s.name),
            kind: LaneKind::Domain {
                domain: s.domain.clone(),
            },
            engine: engine.to_owned(),
            files: s.files.clone(),
            guidance: Vec::new(),
        })
        .collect()
}

fn tier_name(tier: RiskTier) -> &'static str {
    match tier {
        RiskTier::Trivial => "TRIVIAL",
        RiskTier::Local => "LOCAL",
        RiskTier::Broad => "BROAD",
        RiskTier::HighRisk => "HIGH_RISK",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trivial_change_dispatches_only_what_signals_ask_for() {
        assert!(triage(RiskTier::Trivial, &[], true).is_empty());
        let dims: Vec<Dimension> = triage(RiskTier::Trivial, &[Signal::AuthSurface], false)
            .into_iter()
            .map(|(d, _)| d)
            .collect();
        assert_eq!(dims, [Dimension::Security]);
    }

    #[test]
    fn broad_change_dispatches_all_six_and_skips_none() {
        let p = plan(&[], &[], RiskTier::Broad, &[], true, "rules");
        assert_eq!(p.lanes.len(), 6);
        assert!(p.skipped.is_empty());
    }

    #[test]
    fn local_behaviour_change_gets_correctness_and_testing() {
        let p = plan(&[], &[], RiskTier::Local, &[], true, "rules");
        let ids: Vec<&str> = p.lanes.iter().map(|l| l.id.as_str()).collect();
        assert_eq!(ids, ["specialist:correctness", "specialist:testing"]);
        assert_eq!(p.skipped.len(), 4);
    }
}
