//! What lanes spend on model services: tokens by kind, as the providers
//! count and bill them, and what they cost.

use crate::report::LaneSummary;
use serde::{Deserialize, Serialize};

/// Tokens spent on a model service, by kind.
///
/// `input_tokens` counts every input token, those read from or written to
/// the provider's prompt cache included; `output_tokens` every output
/// token, reasoning included. The kinds within them are counted apart, as
/// the providers bill them apart.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    pub input_tokens: u64,
    /// Of the input, tokens read from the provider's prompt cache.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cached_input_tokens: u64,
    /// Of the input, tokens written to the provider's prompt cache (a
    /// provider that bills writes apart reports them).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_write_tokens: u64,
    pub output_tokens: u64,
    /// Of the output, tokens the model spent reasoning (or thinking)
    /// before it answered, where the provider reports them apart.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reasoning_tokens: u64,
}

impl Tokens {
    /// These tokens with `more` added, kind by kind.
    pub fn plus(self, more: &Tokens) -> Tokens {
        Tokens {
            input_tokens: self.input_tokens.saturating_add(more.input_tokens),
            cached_input_tokens: self
                .cached_input_tokens
                .saturating_add(more.cached_input_tokens),
            cache_write_tokens: self
                .cache_write_tokens
                .saturating_add(more.cache_write_tokens),
            output_tokens: self.output_tokens.saturating_add(more.output_tokens),
            reasoning_tokens: self.reasoning_tokens.saturating_add(more.reasoning_tokens),
        }
    }
}

/// What a lane spent on a model service, over all its attempts so far.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// The model that answered (the last one, if several did).
    pub model: String,
    pub requests: u32,
    #[serde(flatten)]
    pub tokens: Tokens,
    /// Time spent waiting for answers, in milliseconds.
    pub latency_ms: u64,
    /// What the tokens cost, where the worker has a price for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<Usd>,
}

/// An amount of US dollars, kept in billionths so that sums are exact;
/// written as a number of dollars.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Usd(pub u64);

impl Usd {
    pub fn dollars(self) -> f64 {
        self.0 as f64 / 1e9
    }
}

impl Serialize for Usd {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.dollars())
    }
}

impl<'de> Deserialize<'de> for Usd {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let dollars = f64::deserialize(d)?;
        if !dollars.is_finite() || dollars < 0.0 {
            return Err(serde::de::Error::custom(format!(
                "cost_usd is {dollars}: a cost is a number of dollars, 0 or more"
            )));
        }
        Ok(Usd((dollars * 1e9).round() as u64))
    }
}

/// The sum of two costs, either of which may be unknown.
fn add_cost(a: Option<Usd>, b: Option<Usd>) -> Option<Usd> {
    match (a, b) {
        (Some(a), Some(b)) => Some(Usd(a.0.saturating_add(b.0))),
        (a, b) => a.or(b),
    }
}

impl Usage {
    /// This usage with `more` added.
    pub fn plus(mut self, more: &Usage) -> Usage {
        if !more.model.is_empty() {
            self.model.clone_from(&more.model);
        }
        self.requests = self.requests.saturating_add(more.requests);
        self.tokens = self.tokens.plus(&more.tokens);
        self.latency_ms = self.latency_ms.saturating_add(more.latency_ms);
        self.cost_usd = add_cost(self.cost_usd, more.cost_usd);
        self
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// What the lanes of a review spent on model services together, tokens
/// by kind (each kind within its total, as in a lane's usage) and cost.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewUsage {
    pub requests: u32,
    #[serde(flatten)]
    pub tokens: Tokens,
    /// What the priced lanes cost together; absent when no lane was priced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<Usd>,
    /// Lanes whose model the price table does not price: their tokens
    /// are counted above, their cost is not.
    #[serde(default, skip_serializing_if = "no_lanes")]
    pub unpriced_lanes: usize,
}

impl ReviewUsage {
    /// The sum of `lanes`' usage; `None` when no lane used a model.
    pub fn of(lanes: &[LaneSummary]) -> Option<ReviewUsage> {
        let used: Vec<&Usage> = lanes.iter().filter_map(|l| l.usage.as_ref()).collect();
        if used.is_empty() {
            return None;
        }
        Some(
            used.iter()
                .fold(ReviewUsage::default(), |sum, u| ReviewUsage {
                    requests: sum.requests.saturating_add(u.requests),
                    tokens: sum.tokens.plus(&u.tokens),
                    cost_usd: add_cost(sum.cost_usd, u.cost_usd),
                    unpriced_lanes: sum.unpriced_lanes + usize::from(u.cost_usd.is_none()),
                }),
        )
    }
}

fn no_lanes(n: &usize) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_reads_and_writes_its_token_kinds_flat_and_sums_them() {
        let written = r#"{"model":"m","requests":1,"input_tokens":10,"cached_input_tokens":4,"output_tokens":5,"latency_ms":7}"#;
        let usage: Usage = serde_json::from_str(written).unwrap_or_default();
        assert_eq!(
            (usage.tokens.input_tokens, usage.tokens.cached_input_tokens),
            (10, 4)
        );
        assert_eq!(serde_json::to_string(&usage).ok().as_deref(), Some(written));
        let twice = usage.clone().plus(&usage);
        assert_eq!((twice.requests, twice.tokens.cached_input_tokens), (2, 8));
    }
}
