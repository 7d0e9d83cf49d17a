//! Risk tiers.
//!
//! | tier        | rule (first that holds)                                             |
//! |-------------|---------------------------------------------------------------------|
//! | `HIGH_RISK` | an auth-surface or destructive-migration signal                     |
//! | `BROAD`     | more than 20 files or 500 changed lines, or a public-API, CI/CD or dependency signal |
//! | `TRIVIAL`   | docs-only, or at most 5 changed lines in one file                   |
//! | `LOCAL`     | everything else                                                     |

use super::{Signal, Totals};
use serde::{Deserialize, Serialize};

#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum RiskTier {
    #[default]
    Trivial,
    Local,
    Broad,
    HighRisk,
}

/// The tier of a change, by the table in this module's documentation.
pub fn risk_tier(totals: &Totals, signals: &[Signal]) -> RiskTier {
    let has = |s: Signal| signals.contains(&s);
    if has(Signal::AuthSurface) || has(Signal::DestructiveMigration) {
        return RiskTier::HighRisk;
    }
    let lines = totals.added + totals.removed;
    if totals.files > 20
        || lines > 500
        || has(Signal::PublicApi)
        || has(Signal::CiCd)
        || has(Signal::DependencyChange)
    {
        return RiskTier::Broad;
    }
    if has(Signal::DocsOnly) || (lines <= 5 && totals.files <= 1) {
        return RiskTier::Trivial;
    }
    RiskTier::Local
}

#[cfg(test)]
mod tests {
    use super::*;

    fn totals(files: usize, added: u64) -> Totals {
        Totals {
            files,
            added,
            removed: 0,
        }
    }

    #[test]
    fn auth_surface_outranks_size() {
        assert_eq!(
            risk_tier(&totals(1, 1), &[Signal::AuthSurface]),
            RiskTier::HighRisk
        );
    }

    #[test]
    fn tiers_follow_size_when_no_signal() {
        assert_eq!(risk_tier(&totals(1, 5), &[]), RiskTier::Trivial);
        assert_eq!(risk_tier(&totals(1, 10), &[]), RiskTier::Local);
        assert_eq!(risk_tier(&totals(3, 50), &[]), RiskTier::Local);
        assert_eq!(risk_tier(&totals(30, 50), &[]), RiskTier::Broad);
        assert_eq!(
            risk_tier(&totals(5, 900), &[Signal::DocsOnly]),
            RiskTier::Broad
        );
        assert_eq!(
            risk_tier(&totals(5, 90), &[Signal::DocsOnly]),
            RiskTier::Trivial
        );
    }
}
