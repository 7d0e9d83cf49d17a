//! The counts of a slice of the corpus and the shares made of them, and
//! what the reviews and the judge spent.

use super::super::backtest::round;
use revu_domain::lane::Usage;
use revu_domain::usage::{ReviewUsage, Usd};
use serde::Serialize;

/// The counts of one slice of the corpus.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Tally {
    /// Expectations scored: those that need a judge none was asked for
    /// are counted in `needs_judge` instead.
    pub expectations: usize,
    pub matched: usize,
    pub recall: Option<f64>,
    pub findings: usize,
    pub findings_matching: usize,
    pub precision: Option<f64>,
    /// The harmonic mean of precision and recall; `None` while either is.
    pub f1: Option<f64>,
    /// Expectations with a description alone (no line, rule or class):
    /// only `--judge` can match them, and without one they are not scored.
    pub needs_judge: usize,
    pub traps: usize,
    pub traps_hit: usize,
    pub citations_off: usize,
}

impl Tally {
    pub(super) fn shares(&mut self) {
        let share = |n: usize, of: usize| (of > 0).then(|| n as f64 / of as f64);
        let recall = share(self.matched, self.expectations);
        let precision = share(self.findings_matching, self.findings);
        self.f1 = f1(precision, recall).map(round);
        self.recall = recall.map(round);
        self.precision = precision.map(round);
    }
}

/// F1 of `precision` and `recall`: 0 when both are 0.
pub fn f1(precision: Option<f64>, recall: Option<f64>) -> Option<f64> {
    let (p, r) = (precision?, recall?);
    Some(if p + r > 0.0 {
        2.0 * p * r / (p + r)
    } else {
        0.0
    })
}

/// What scoring one case cost: its review's wall time and model usage,
/// and what the judge spent on it, counted apart.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Spent {
    /// Wall time of the review, in milliseconds.
    pub wall_ms: u64,
    /// What the review's lanes spent on model services, as its report's
    /// `usage` says; absent when no lane used a model.
    pub usage: Option<ReviewUsage>,
    /// What the judge's requests spent; absent when none was sent.
    pub judge: Option<Usage>,
}

impl Spent {
    /// Adds `more` to these totals.
    pub fn add(&mut self, more: &Spent) {
        self.wall_ms = self.wall_ms.saturating_add(more.wall_ms);
        self.usage = match (self.usage.take(), &more.usage) {
            (Some(a), Some(b)) => Some(ReviewUsage {
                requests: a.requests.saturating_add(b.requests),
                tokens: a.tokens.plus(&b.tokens),
                cost_usd: add_cost(a.cost_usd, b.cost_usd),
                unpriced_lanes: a.unpriced_lanes + b.unpriced_lanes,
            }),
            (a, b) => a.or_else(|| b.clone()),
        };
        self.judge = match (self.judge.take(), &more.judge) {
            (Some(a), Some(b)) => Some(a.plus(b)),
            (a, b) => a.or_else(|| b.clone()),
        };
    }
}

fn add_cost(a: Option<Usd>, b: Option<Usd>) -> Option<Usd> {
    match (a, b) {
        (Some(a), Some(b)) => Some(Usd(a.0.saturating_add(b.0))),
        (a, b) => a.or(b),
    }
}
