//! One root cause, one finding: the linters a domain lane runs beside the
//! built-in rules check many of the same things (ruff's flake8-bandit
//! port numbers its checks as bandit does, and several built-in rules
//! cover a bandit check's class). A linter's finding on the line where a
//! finding of the same class already stands merges into it: the kept
//! finding's `why` names the others, and the report reads one finding per
//! problem, as the review contract's verifier merges one root cause.

use revu_domain::finding::Finding;

/// The linter checks each built-in rule's class takes in (`tool:CODE`).
const COVERS: &[(&str, &[&str])] = &[
    (
        "RV-SEC-001",
        &["B105", "B106", "B107", "S105", "S106", "S107"],
    ),
    ("RV-SEC-002", &["B608", "S608"]),
    (
        "RV-SEC-003",
        &[
            "B102", "B301", "B302", "B307", "B506", "S102", "S301", "S302", "S307", "S506",
        ],
    ),
    (
        "RV-SEC-004",
        &["B602", "B604", "B605", "S602", "S604", "S605"],
    ),
    ("RV-SEC-005", &["B323", "B501", "S323", "S501"]),
    ("RV-COR-004", &["B110", "B112", "S110", "S112"]),
];

/// `bandit:B602` and `ruff:S602` name one check.
fn check_of(rule: &str) -> Option<&str> {
    let (tool, code) = rule.split_once(':')?;
    match tool {
        "bandit" => code.strip_prefix('B'),
        "ruff" => code.strip_prefix('S'),
        _ => None,
    }
}

/// Whether `linted` (a linter's finding) is the same problem as `kept`,
/// which stands on the same line.
fn same_root(kept: &Finding, linted: &Finding) -> bool {
    if let (Some(a), Some(b)) = (check_of(&kept.rule), check_of(&linted.rule)) {
        return a == b;
    }
    let Some(check) = check_of(&linted.rule) else {
        return false;
    };
    COVERS.iter().any(|(rule, codes)| {
        *rule == kept.rule
            && codes
                .iter()
                .any(|c| c.get(1..) == Some(check) && linted.rule.ends_with(c))
    })
}

/// `findings` (the built-in rules') with `linted` added, each linter
/// finding that repeats one already on its line merged into it.
pub(crate) fn merge(findings: &mut Vec<Finding>, linted: Vec<Finding>) {
    let mut also: Vec<Vec<String>> = vec![Vec::new(); findings.len()];
    for l in linted {
        let at = findings
            .iter()
            .position(|k| k.file == l.file && k.line == l.line && same_root(k, &l));
        match at {
            Some(i) => {
                if let Some(names) = also.get_mut(i) {
                    names.push(l.rule);
                }
            }
            None => {
                findings.push(l);
                also.push(Vec::new());
            }
        }
    }
    for (f, names) in findings.iter_mut().zip(also) {
        if !names.is_empty() {
            let names: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
            f.why = format!("{} Also reported as {}.", f.why, names.join(", "));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use revu_domain::finding::{BlastRadius, Dimension, Severity};

    fn at(rule: &str, line: u32) -> Finding {
        Finding {
            rule: rule.into(),
            severity: Severity::Important,
            file: "tools/gen.py".into(),
            line,
            end_line: None,
            dimension: Dimension::Security,
            dimensions: Vec::new(),
            summary: rule.into(),
            why: "w.".into(),
            fix: "f".into(),
            confidence: 85,
            blast_radius: BlastRadius::Local,
            pre_existing: false,
            pre_existing_line: false,
            downgraded_from: None,
            meta: false,
            owners: Vec::new(),
        }
    }

    #[test]
    fn a_linter_repeating_a_rule_or_its_twin_on_the_line_merges() {
        let mut findings = vec![at("RV-SEC-004", 22)];
        merge(
            &mut findings,
            vec![
                at("bandit:B602", 22),
                at("ruff:S602", 22),
                at("ruff:S602", 53),
                at("bandit:B602", 53),
                at("ruff:S108", 22),
            ],
        );
        let got: Vec<(&str, u32)> = findings.iter().map(|f| (f.rule.as_str(), f.line)).collect();
        assert_eq!(
            got,
            vec![("RV-SEC-004", 22), ("ruff:S602", 53), ("ruff:S108", 22)]
        );
        assert_eq!(
            findings[0].why,
            "w. Also reported as `bandit:B602`, `ruff:S602`."
        );
        assert_eq!(findings[1].why, "w. Also reported as `bandit:B602`.");
    }
}
