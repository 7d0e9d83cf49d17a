//! The rules engine as an adjudicator: each candidate raised by a built-in
//! rule is re-tried by running that rule again on the candidate's file. It
//! is confirmed if the rule still fires at the same file and line, else
//! dropped. Candidates from anything else (review-miss ledger ids, other
//! engines) are not the rules engine's to judge and are confirmed.

use super::{Rule, RuleContext};
use revu_domain::adjudication::{Action, Decision};
use revu_domain::code_index::CodeIndex;
use revu_domain::diff::Diff;
use revu_domain::finding::Finding;
use revu_domain::lane::LaneReportBody;
use std::collections::{BTreeMap, BTreeSet};

/// Decides every candidate of an adjudication lane.
pub(crate) fn adjudicate(
    rules: &[Box<dyn Rule>],
    candidates: &[Finding],
    diff: &Diff,
    code_index: Option<&CodeIndex>,
    heads: Option<&BTreeMap<String, Vec<u8>>>,
) -> LaneReportBody {
    let mut checks = BTreeSet::new();
    let decisions: Vec<Decision> = candidates
        .iter()
        .enumerate()
        .map(|(index, c)| {
            let at = format!("{}:{}", c.file, c.line);
            let Some(rule) = rules.iter().find(|r| r.code() == c.rule) else {
                return decision(
                    index,
                    Action::Confirm,
                    "not a built-in rule; kept".into(),
                    &at,
                );
            };
            checks.insert(rule.code());
            if fires_at(rule.as_ref(), diff, code_index, heads, &c.file, c.line) {
                decision(
                    index,
                    Action::Confirm,
                    format!("rule still fires at {at}"),
                    &at,
                )
            } else {
                decision(
                    index,
                    Action::Drop,
                    format!("rule no longer fires at {at}"),
                    &at,
                )
            }
        })
        .collect();
    let count = |a: Action| decisions.iter().filter(|d| d.action == a).count();
    let reviewed: BTreeSet<&str> = candidates.iter().map(|c| c.file.as_str()).collect();
    LaneReportBody {
        reviewed: reviewed.into_iter().map(str::to_owned).collect(),
        checks: checks.into_iter().map(str::to_owned).collect(),
        findings: Vec::new(),
        summary: format!(
            "re-tried {} candidate(s): {} confirmed, {} dropped.",
            candidates.len(),
            count(Action::Confirm),
            count(Action::Drop)
        ),
        decisions,
        ..LaneReportBody::default()
    }
}

/// A decision; a drop cites the line the rule no longer fires at, which
/// the review holds.
fn decision(index: usize, action: Action, reason: String, at: &str) -> Decision {
    Decision {
        index,
        action,
        reason,
        evidence: if action == Action::Confirm {
            String::new()
        } else {
            at.to_owned()
        },
    }
}

/// Whether `rule`, run on `file` of the change, raises a finding at `line`.
/// A finding cited in a file the change did not touch (a stale use the
/// code index found) is re-tried with every file of the change.
fn fires_at(
    rule: &dyn Rule,
    diff: &Diff,
    index: Option<&CodeIndex>,
    heads: Option<&BTreeMap<String, Vec<u8>>>,
    file: &str,
    line: u32,
) -> bool {
    let mut files: Vec<_> = diff.files.iter().filter(|p| p.path() == file).collect();
    if files.is_empty() {
        if !index.is_some_and(|i| i.has_site(file, line)) {
            return false;
        }
        files = diff.files.iter().collect();
    }
    let mut found = Vec::new();
    super::run(
        rule,
        &RuleContext::new(&files, &diff.files, index).with_heads(heads),
        &mut found,
    );
    found.iter().any(|f| f.file == file && f.line == line)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::super::{all_rules, testing};
    use super::*;
    use revu_domain::finding::Severity;

    fn change() -> Diff {
        Diff {
            files: vec![testing::added_file(
                "src/app.py",
                &["import os", "result = eval(user_input)", "print(result)"],
            )],
        }
    }

    fn candidate(rule: &str, line: u32) -> Finding {
        let rules = all_rules();
        let found = rules
            .iter()
            .find(|r| r.code() == rule)
            .map(|r| testing::run(r.as_ref(), &change().files))
            .unwrap_or_default();
        let mut f = found.into_iter().next().unwrap_or_else(|| Finding {
            rule: rule.into(),
            severity: Severity::Blocker,
            file: "src/app.py".into(),
            line,
            end_line: None,
            dimension: revu_domain::finding::Dimension::Security,
            dimensions: vec![],
            summary: "ledger match".into(),
            why: String::new(),
            fix: String::new(),
            confidence: 90,
            blast_radius: revu_domain::finding::BlastRadius::Local,
            pre_existing: false,
            pre_existing_line: false,
            downgraded_from: None,
            meta: false,
            owners: Vec::new(),
        });
        f.line = line;
        f
    }

    #[test]
    fn confirms_where_the_rule_still_fires_and_drops_where_it_does_not() {
        let eval = "RV-SEC-003";
        let candidates = [
            candidate(eval, 2),
            candidate(eval, 3),
            candidate("MISS-012", 1),
        ];
        let body = adjudicate(&all_rules(), &candidates, &change(), None, None);
        let decided: Vec<(usize, Action, &str)> = body
            .decisions
            .iter()
            .map(|d| (d.index, d.action, d.reason.as_str()))
            .collect();
        assert_eq!(
            decided,
            [
                (0, Action::Confirm, "rule still fires at src/app.py:2"),
                (1, Action::Drop, "rule no longer fires at src/app.py:3"),
                (2, Action::Confirm, "not a built-in rule; kept"),
            ]
        );
        assert_eq!(body.checks, [eval]);
        assert_eq!(body.reviewed, ["src/app.py"]);
        assert!(body.findings.is_empty());
        assert_eq!(
            body.summary,
            "re-tried 3 candidate(s): 2 confirmed, 1 dropped."
        );
    }

    #[test]
    fn a_candidate_on_a_file_outside_the_change_is_dropped() {
        let mut gone = candidate("RV-SEC-003", 2);
        gone.file = "src/other.py".into();
        let body = adjudicate(&all_rules(), &[gone], &change(), None, None);
        assert_eq!(body.decisions[0].action, Action::Drop);
        assert_eq!(
            body.decisions[0].reason,
            "rule no longer fires at src/other.py:2"
        );
    }
}
