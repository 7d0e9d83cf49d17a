//! `revu rules`: the catalogue of the built-in rules. One line per rule,
//! or one rule in full; as text, JSON, or the Markdown of
//! `docs/rules.md`, which is this command's output and nothing else.

mod render;

use crate::error::CliError;
use crate::output::print;
use revu_worker::engines::rules::{Rule, all_rules};
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// A rule's code or name (`RV-SEC-001`, `hardcoded-credential`): print
    /// that rule in full, with an example and how to silence it.
    code: Option<String>,
    /// Output format (`md` writes docs/rules.md).
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

/// Catalogue output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// For a terminal: a line per rule, or the rule in full.
    Text,
    /// The catalogue entries as JSON: an array, or the rule's object.
    Json,
    /// Markdown: the page docs/rules.md, or the rule's section of it.
    Md,
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let rules = all_rules();
    let text = match &args.code {
        None => match args.format {
            Format::Text => render::list(&rules),
            Format::Json => render::json(&render::entries(&rules))?,
            Format::Md => render::page(&rules),
        },
        Some(code) => {
            let rule = find(&rules, code)?;
            match args.format {
                Format::Text | Format::Md => render::section(rule),
                Format::Json => render::json(&render::entry(rule))?,
            }
        }
    };
    print(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// The rule whose code or name is `wanted` (in any case); an input error
/// naming the nearest codes when there is none.
fn find<'r>(rules: &'r [Box<dyn Rule>], wanted: &str) -> Result<&'r dyn Rule, CliError> {
    let wanted = wanted.trim();
    if let Some(rule) = rules
        .iter()
        .find(|r| r.code().eq_ignore_ascii_case(wanted) || r.name().eq_ignore_ascii_case(wanted))
    {
        return Ok(rule.as_ref());
    }
    let nearest: Vec<String> = nearest(rules, wanted)
        .iter()
        .map(|r| format!("{} ({})", r.code(), r.name()))
        .collect();
    Err(CliError::Input(format!(
        "no built-in rule `{wanted}`; the nearest: {} (`revu rules` lists them all)",
        nearest.join(", ")
    )))
}

/// How many codes an unknown one is answered with.
const SUGGESTED: usize = 3;

/// The rules whose code or name is nearest `wanted` (fewest edits, in any
/// case), nearest first, catalogue order among equals.
fn nearest<'r>(rules: &'r [Box<dyn Rule>], wanted: &str) -> Vec<&'r dyn Rule> {
    let wanted = wanted.to_ascii_uppercase();
    let mut scored: Vec<(usize, usize, &dyn Rule)> = rules
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let by_code = edits(&wanted, r.code());
            let by_name = edits(&wanted, &r.name().to_ascii_uppercase());
            (by_code.min(by_name), i, r.as_ref())
        })
        .collect();
    scored.sort_by_key(|&(distance, i, _)| (distance, i));
    scored
        .into_iter()
        .take(SUGGESTED)
        .map(|(_, _, r)| r)
        .collect()
}

/// The Levenshtein distance between `a` and `b`, by characters.
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substituted = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substituted.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_count_insertions_deletions_and_substitutions() {
        assert_eq!(edits("RV-SEC-001", "RV-SEC-001"), 0);
        assert_eq!(edits("RV-SEC-01", "RV-SEC-001"), 1);
        assert_eq!(edits("RV-SEC-0011", "RV-SEC-001"), 1);
        assert_eq!(edits("RV-SEX-001", "RV-SEC-001"), 1);
        assert_eq!(edits("", "abc"), 3);
    }

    #[test]
    fn a_rule_is_found_by_code_or_name_in_any_case() {
        let rules = all_rules();
        for wanted in [
            "RV-SEC-001",
            "rv-sec-001",
            "hardcoded-credential",
            " RV-SEC-001 ",
        ] {
            let rule = find(&rules, wanted).map(|r| r.code());
            assert_eq!(rule.ok(), Some("RV-SEC-001"), "{wanted}");
        }
    }

    #[test]
    fn an_unknown_code_is_answered_with_the_nearest() {
        let rules = all_rules();
        let Err(e) = find(&rules, "RV-SEC-01") else {
            panic!("RV-SEC-01 is no rule");
        };
        assert_eq!(e.exit_code(), 2);
        let said = e.to_string();
        assert!(said.starts_with("no built-in rule `RV-SEC-01`"), "{said}");
        assert!(said.contains("RV-SEC-001 (hardcoded-credential)"), "{said}");
        let codes: Vec<&str> = nearest(&rules, "unwrap").iter().map(|r| r.code()).collect();
        assert_eq!(codes.len(), SUGGESTED);
        let codes: Vec<&str> = nearest(&rules, "unwrap-in-prod")
            .iter()
            .map(|r| r.code())
            .collect();
        assert_eq!(codes.first(), Some(&"RV-COR-001"));
    }
}
