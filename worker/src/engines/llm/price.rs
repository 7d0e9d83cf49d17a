//! What a model's tokens cost: a price table, read from a TOML file
//! (`--llm-prices`), in US dollars per million tokens:
//!
//! ```toml
//! [models."gpt-4.1-mini"]
//! input_per_mtok = 0.40
//! cached_input_per_mtok = 0.10
//! output_per_mtok = 1.60
//!
//! [models."claude-sonnet-4-5"]
//! input_per_mtok = 3.00
//! cached_input_per_mtok = 0.30
//! cache_write_per_mtok = 3.75
//! output_per_mtok = 15.00
//! ```
//!
//! Tokens are priced by kind, as the providers bill them: input read from
//! the prompt cache at `cached_input_per_mtok`, input written to it at
//! `cache_write_per_mtok`, the rest of the input at `input_per_mtok`, and
//! every output token, reasoning and thinking included, at
//! `output_per_mtok`. A kind the entry gives no price for is priced as
//! plain input, what it would cost without the cache.
//!
//! A model is priced by its exact name, else by the longest entry its name
//! starts with followed by `-` (so `gpt-4.1-mini` prices
//! `gpt-4.1-mini-2025-04-14`). A model the table does not name has no cost
//! in the report: revu never guesses a price.

use revu_domain::lane::Usd;
use revu_domain::usage::Tokens;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// US dollars per million tokens of one model.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    pub input_per_mtok: f64,
    /// Input read from the provider's prompt cache; plain input when absent.
    #[serde(default)]
    pub cached_input_per_mtok: Option<f64>,
    /// Input written to the provider's prompt cache; plain input when absent.
    #[serde(default)]
    pub cache_write_per_mtok: Option<f64>,
    pub output_per_mtok: f64,
}

impl Price {
    /// Plain input and output prices, nothing priced apart.
    pub fn new(input_per_mtok: f64, output_per_mtok: f64) -> Price {
        Price {
            input_per_mtok,
            cached_input_per_mtok: None,
            cache_write_per_mtok: None,
            output_per_mtok,
        }
    }

    /// What `tokens` cost.
    pub fn cost(&self, usage: &Tokens) -> Usd {
        let cached = usage.cached_input_tokens;
        let written = usage.cache_write_tokens;
        let plain = usage
            .input_tokens
            .saturating_sub(cached)
            .saturating_sub(written);
        let input = self.input_per_mtok;
        // Dollars per million tokens are nanodollars per thousandth of a
        // token: tokens × price × 1000.
        let cost = [
            (plain, input),
            (cached, self.cached_input_per_mtok.unwrap_or(input)),
            (written, self.cache_write_per_mtok.unwrap_or(input)),
            (usage.output_tokens, self.output_per_mtok),
        ]
        .iter()
        .map(|(tokens, per_mtok)| (*tokens as f64) * per_mtok * 1000.0)
        .sum::<f64>();
        if cost.is_finite() && cost > 0.0 {
            Usd(cost.round() as u64)
        } else {
            Usd(0)
        }
    }

    /// Each price by its name in the table.
    fn named(&self) -> [(&'static str, Option<f64>); 4] {
        [
            ("input_per_mtok", Some(self.input_per_mtok)),
            ("cached_input_per_mtok", self.cached_input_per_mtok),
            ("cache_write_per_mtok", self.cache_write_per_mtok),
            ("output_per_mtok", Some(self.output_per_mtok)),
        ]
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    models: BTreeMap<String, Price>,
}

/// A price table that does not load.
#[derive(Debug, thiserror::Error)]
pub enum PriceError {
    #[error("--llm-prices {path}: {source}")]
    Read {
        path: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("--llm-prices {path}: {source}")]
    Table {
        path: std::path::PathBuf,
        #[source]
        source: TableError,
    },
}

/// What is wrong in a price table.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    #[error(transparent)]
    Toml(#[from] toml::de::Error),
    /// A price (`what`, of `model`) that is negative or not a number.
    #[error("models.{model:?}.{what} is {value}: a price is a number of dollars, 0 or more")]
    Price {
        model: String,
        what: &'static str,
        value: f64,
    },
}

/// Prices by model name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PriceTable(BTreeMap<String, Price>);

impl PriceTable {
    /// Reads the table in `path`; the error names the file and what is
    /// wrong in it.
    pub fn load(path: &Path) -> Result<PriceTable, PriceError> {
        let text = std::fs::read_to_string(path).map_err(|source| PriceError::Read {
            path: path.to_owned(),
            source,
        })?;
        Self::parse(&text).map_err(|source| PriceError::Table {
            path: path.to_owned(),
            source,
        })
    }

    pub fn parse(text: &str) -> Result<PriceTable, TableError> {
        let file: File = toml::from_str(text)?;
        for (model, price) in &file.models {
            for (what, value) in price.named() {
                let Some(value) = value else { continue };
                if !value.is_finite() || value < 0.0 {
                    return Err(TableError::Price {
                        model: model.clone(),
                        what,
                        value,
                    });
                }
            }
        }
        Ok(PriceTable(file.models))
    }

    /// The price of `model`, if the table has it.
    pub fn get(&self, model: &str) -> Option<Price> {
        if let Some(price) = self.0.get(model) {
            return Some(*price);
        }
        self.0
            .iter()
            .filter(|(name, _)| {
                model
                    .strip_prefix(name.as_str())
                    .is_some_and(|rest| rest.starts_with('-'))
            })
            .max_by_key(|(name, _)| name.len())
            .map(|(_, price)| *price)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const TABLE: &str = r#"
[models."gpt-4.1"]
input_per_mtok = 2.0
output_per_mtok = 8.0

[models."gpt-4.1-mini"]
input_per_mtok = 0.40
output_per_mtok = 1.60
"#;

    #[test]
    fn models_are_priced_by_name_or_longest_dated_prefix() {
        let table = PriceTable::parse(TABLE).unwrap();
        let mini = table.get("gpt-4.1-mini-2025-04-14").unwrap();
        assert_eq!(mini.input_per_mtok, 0.40);
        assert_eq!(table.get("gpt-4.1").unwrap().output_per_mtok, 8.0);
        assert_eq!(table.get("gpt-4.1o"), None);
        assert_eq!(table.get("claude-sonnet-4-5"), None);
        // 1,000 input and 500 output tokens of gpt-4.1: $0.002 + $0.004.
        let usage = Tokens {
            input_tokens: 1000,
            output_tokens: 500,
            ..Tokens::default()
        };
        assert_eq!(table.get("gpt-4.1").unwrap().cost(&usage), Usd(6_000_000));
    }

    #[test]
    fn cached_and_written_input_are_priced_apart_and_reasoning_as_output() {
        let table = PriceTable::parse(
            "[models.m]\ninput_per_mtok = 1.0\ncached_input_per_mtok = 0.1\n\
             cache_write_per_mtok = 1.25\noutput_per_mtok = 4.0\n",
        )
        .unwrap();
        let price = table.get("m").unwrap();
        // 1,000 input tokens of which 600 read from the cache and 200
        // written to it; 500 output of which 300 reasoning.
        let usage = Tokens {
            input_tokens: 1000,
            cached_input_tokens: 600,
            cache_write_tokens: 200,
            output_tokens: 500,
            reasoning_tokens: 300,
        };
        // 200 × $1 + 600 × $0.10 + 200 × $1.25 + 500 × $4, per million.
        assert_eq!(
            price.cost(&usage),
            Usd(200_000 + 60_000 + 250_000 + 2_000_000)
        );
        // Without the cache prices, every input token is plain input.
        let plain = Price::new(1.0, 4.0);
        assert_eq!(plain.cost(&usage), Usd(1_000_000 + 2_000_000));
    }

    #[test]
    fn a_bad_table_is_refused_with_what_is_wrong() {
        let said = |r: Result<PriceTable, TableError>| r.err().map(|e| e.to_string());
        let unknown = PriceTable::parse("[models.x]\ninput_per_mtok = 1\noutput = 2\n");
        assert!(said(unknown).is_some_and(|e| e.contains("unknown field `output`")));
        let negative =
            PriceTable::parse("[models.x]\ninput_per_mtok = -1.0\noutput_per_mtok = 2.0\n");
        assert!(matches!(
            negative,
            Err(TableError::Price { ref model, what: "input_per_mtok", value }) if model == "x" && value == -1.0
        ));
        assert!(said(negative).is_some_and(|e| e.contains("0 or more")));
        let cached = PriceTable::parse(
            "[models.x]\ninput_per_mtok = 1.0\ncached_input_per_mtok = -0.1\noutput_per_mtok = 2.0\n",
        );
        assert!(said(cached).is_some_and(|e| e.contains("cached_input_per_mtok")));
    }
}
