//! Which findings are one root cause.
//!
//! A rule-based finding is one claim per rule and line: two copies of one
//! rule on one line (from two lanes) are one root cause. A model's finding
//! carries its lane in its rule (`llm:security`), so that rule says nothing
//! about the claim: two different bugs a model reports on one line stay
//! two findings, and the same bug reported by two lanes on neighbouring
//! lines is one. Model findings are one claim when they cite the same
//! file, their line ranges overlap, and their summaries say the same thing
//! in most of the same words.

use revu_domain::finding::{Finding, is_model_rule};
use std::collections::{BTreeMap, BTreeSet};

/// Share of the smaller summary's words the other must hold for two model
/// findings to be one claim.
const SAME_WORDS: f64 = 0.6;

/// Words shorter than this carry no claim ("a", "of", "is").
const MIN_WORD: usize = 3;

/// Words that say nothing about which problem a summary names.
const FILLER: [&str; 16] = [
    "the", "and", "for", "with", "this", "that", "not", "are", "was", "can", "may", "its", "when",
    "from", "into", "which",
];

/// `findings` in groups of one root cause each; the order of groups is by
/// file, line and rule, as the report lists them.
pub(super) fn group(findings: Vec<Finding>) -> Vec<Vec<Finding>> {
    let (model, rules): (Vec<Finding>, Vec<Finding>) =
        findings.into_iter().partition(|f| is_model_rule(&f.rule));
    let mut by_rule: BTreeMap<(String, u32, String), Vec<Finding>> = BTreeMap::new();
    for f in rules {
        by_rule
            .entry((f.file.clone(), f.line, f.rule.clone()))
            .or_default()
            .push(f);
    }
    let mut groups: Vec<Vec<Finding>> = by_rule.into_values().collect();
    groups.extend(claims(model));
    groups.sort_by(|a, b| key(a).cmp(&key(b)));
    groups
}

fn key(group: &[Finding]) -> (&str, u32, &str) {
    group
        .first()
        .map_or(("", 0, ""), |f| (f.file.as_str(), f.line, f.rule.as_str()))
}

/// Model findings clustered by claim. Each finding joins the first
/// cluster holding a finding of the same claim; input order is by lane,
/// so the clusters are sorted after.
fn claims(mut model: Vec<Finding>) -> Vec<Vec<Finding>> {
    // A fixed order, so that which findings cluster does not depend on the
    // order lanes settled in.
    model.sort_by(|a, b| {
        (&a.file, a.line, &a.rule, &a.summary).cmp(&(&b.file, b.line, &b.rule, &b.summary))
    });
    let mut clusters: Vec<(Vec<BTreeSet<String>>, Vec<Finding>)> = Vec::new();
    for f in model {
        let words = words(&f.summary);
        let joined = clusters.iter_mut().find(|(said, members)| {
            members
                .iter()
                .zip(said.iter())
                .any(|(g, w)| same_place(g, &f) && same_words(w, &words))
        });
        match joined {
            Some((said, members)) => {
                said.push(words);
                members.push(f);
            }
            None => clusters.push((vec![words], vec![f])),
        }
    }
    clusters.into_iter().map(|(_, members)| members).collect()
}

/// Same file, overlapping lines.
fn same_place(a: &Finding, b: &Finding) -> bool {
    let end = |f: &Finding| f.end_line.unwrap_or(f.line).max(f.line);
    a.file == b.file && a.line <= end(b) && b.line <= end(a)
}

/// The summary's words that can name a problem, lowercased.
fn words(summary: &str) -> BTreeSet<String> {
    summary
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .map(str::to_lowercase)
        .filter(|w| w.chars().count() >= MIN_WORD && !FILLER.contains(&w.as_str()))
        .collect()
}

/// Whether two summaries share most of the smaller one's words.
fn same_words(a: &BTreeSet<String>, b: &BTreeSet<String>) -> bool {
    let smaller = a.len().min(b.len());
    if smaller == 0 {
        return a.is_empty() && b.is_empty();
    }
    let shared = a.intersection(b).count();
    shared as f64 / smaller as f64 >= SAME_WORDS
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use revu_domain::finding::{Dimension, Severity};

    fn finding(rule: &str, line: u32, end: Option<u32>, summary: &str) -> Finding {
        Finding {
            end_line: end,
            summary: summary.into(),
            ..Finding::at(
                rule,
                Severity::Important,
                "app.py",
                line,
                Dimension::Correctness,
            )
        }
    }

    fn sizes(groups: &[Vec<Finding>]) -> Vec<usize> {
        groups.iter().map(Vec::len).collect()
    }

    #[test]
    fn two_different_claims_of_one_lane_on_one_line_stay_apart() {
        let groups = group(vec![
            finding("llm:security", 4, None, "SQL built from the user's name"),
            finding("llm:security", 4, None, "password logged in clear text"),
        ]);
        assert_eq!(sizes(&groups), [1, 1]);
    }

    #[test]
    fn one_claim_of_two_lanes_on_overlapping_lines_is_one() {
        let groups = group(vec![
            finding(
                "llm:security",
                4,
                Some(6),
                "SQL query built from the user name",
            ),
            finding(
                "llm:domain:api",
                5,
                None,
                "The SQL query is built from user name input",
            ),
            finding("llm:correctness", 9, None, "SQL query built from user name"),
        ]);
        // Line 9 is outside the first two findings' lines.
        assert_eq!(sizes(&groups), [2, 1]);
    }

    #[test]
    fn rules_still_merge_by_rule_and_line() {
        let groups = group(vec![
            finding("RV-SEC-003", 4, None, "a"),
            finding("RV-SEC-003", 4, None, "b"),
            finding("RV-COR-001", 4, None, "a"),
        ]);
        assert_eq!(sizes(&groups), [1, 2]);
    }

    #[test]
    fn clustering_does_not_depend_on_input_order() {
        let a = finding(
            "llm:security",
            4,
            None,
            "token compared with == leaks timing",
        );
        let b = finding(
            "llm:domain:auth",
            4,
            None,
            "token compared with == leaks timing",
        );
        let c = finding("llm:security", 4, None, "missing rate limit on login");
        let one = group(vec![a.clone(), b.clone(), c.clone()]);
        let two = group(vec![c, b, a]);
        assert_eq!(one, two);
    }
}
