//! What a model's tokens cost: a price table, read from a TOML file
//! (`--llm-prices`), in US dollars per million tokens:
//!
//! ```toml
//! [models."gpt-4.1-mini"]
//! input_per_mtok = 0.40
//! output_per_mtok = 1.60
//! ```
//!
//! A model is priced by its exact name, else by the longest entry its name
//! starts with followed by `-` (so `gpt-4.1-mini` prices
//! `gpt-4.1-mini-2025-04-14`). A model the table does not name has no cost
//! in the report: revu never guesses a price.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// US dollars per million tokens of one model.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    pub input_per_mtok: f64,
    pub output_per_mtok: f64,
}

impl Price {
    /// What `input` and `output` tokens cost, in billionths of a dollar.
    pub fn nanodollars(&self, input: u64, output: u64) -> u64 {
        // Dollars per million tokens are nanodollars per thousandth of a
        // token: tokens × price × 1000.
        let cost = (input as f64) * self.input_per_mtok * 1000.0
            + (output as f64) * self.output_per_mtok * 1000.0;
        if cost.is_finite() && cost > 0.0 {
            cost.round() as u64
        } else {
            0
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    models: BTreeMap<String, Price>,
}

/// Prices by model name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PriceTable(BTreeMap<String, Price>);

impl PriceTable {
    /// Reads the table in `path`; the error names the file and what is
    /// wrong in it.
    pub fn load(path: &Path) -> Result<PriceTable, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("--llm-prices {}: {e}", path.display()))?;
        Self::parse(&text).map_err(|e| format!("--llm-prices {}: {e}", path.display()))
    }

    pub fn parse(text: &str) -> Result<PriceTable, String> {
        let file: File = toml::from_str(text).map_err(|e| e.to_string())?;
        for (model, price) in &file.models {
            for (what, value) in [
                ("input_per_mtok", price.input_per_mtok),
                ("output_per_mtok", price.output_per_mtok),
            ] {
                if !value.is_finite() || value < 0.0 {
                    return Err(format!(
                        "models.{model:?}.{what} is {value}: a price is a number of dollars, 0 or more"
                    ));
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
        assert_eq!(
            table.get("gpt-4.1").unwrap().nanodollars(1000, 500),
            6_000_000
        );
    }

    #[test]
    fn a_bad_table_is_refused_with_what_is_wrong() {
        let unknown = PriceTable::parse("[models.x]\ninput_per_mtok = 1\noutput = 2\n");
        assert!(unknown.unwrap_err().contains("unknown field `output`"));
        let negative =
            PriceTable::parse("[models.x]\ninput_per_mtok = -1.0\noutput_per_mtok = 2.0\n");
        assert!(negative.unwrap_err().contains("0 or more"));
    }
}
