#![allow(clippy::unwrap_used)]

use super::*;
use crate::test_reports;
use serde_json::json;

fn finding(file: &str, line: u32, rule: &str, severity: &str, summary: &str) -> Finding {
    let mut f = test_reports::finding(rule, severity, "security", file, line);
    f["summary"] = json!(summary);
    f["why"] = json!("built from request input");
    serde_json::from_value(f).unwrap()
}

fn expect(file: &str, first: u32, last: u32) -> Expectation {
    Expectation {
        file: file.into(),
        lines: Lines { first, last },
        severity: None,
        rule: None,
        class: None,
        id: None,
    }
}

#[test]
fn a_finding_matches_on_file_line_range_and_every_condition() {
    let f = finding(
        "app/db.py",
        12,
        "RV-SEC-003",
        "IMPORTANT",
        "SQL built by string formatting",
    );
    assert!(expect("app/db.py", 10, 14).matches(&f));
    assert!(!expect("app/db.py", 13, 14).matches(&f));
    assert!(!expect("app/other.py", 10, 14).matches(&f));
    let mut e = expect("app/db.py", 12, 12);
    e.severity = Some(Severity::Blocker);
    assert!(!e.matches(&f), "IMPORTANT is below the least severity");
    e.severity = Some(Severity::Important);
    assert!(e.matches(&f));
    e.rule = Some("RV-SEC-003".into());
    assert!(e.matches(&f));
    e.rule = Some("RV-SEC:".into());
    assert!(!e.matches(&f), "a tool prefix ends in `:`");
    let ruff = finding(
        "app/db.py",
        12,
        "ruff:S608",
        "IMPORTANT",
        "possible SQL injection",
    );
    e.rule = Some("ruff:".into());
    assert!(e.matches(&ruff));
    e.rule = None;
    e.class = Some("SQL Request".into());
    assert!(
        e.matches(&f),
        "words from the summary and the why, any case"
    );
    e.class = Some("sql deserialization".into());
    assert!(!e.matches(&f));
}

#[test]
fn recall_precision_traps_and_citations_off() {
    let mut s = Scored::new("corpus".into());
    let mut rule = expect("app/db.py", 10, 10);
    rule.rule = Some("RV-SEC-003".into());
    let expected = Expected {
        expectations: vec![expect("app/db.py", 3, 3), rule, expect("deploy.sh", 2, 2)],
        traps: vec![
            Trap {
                file: "app/db.py".into(),
                lines: Lines {
                    first: 20,
                    last: 20,
                },
                rule: None,
                id: None,
            },
            Trap {
                file: "deploy.sh".into(),
                lines: Lines { first: 5, last: 5 },
                rule: Some("SC2086".into()),
                id: None,
            },
        ],
    };
    let findings = [
        finding("app/db.py", 3, "RV-SEC-001", "BLOCKER", "key"),
        // The rule's problem, cited two lines off.
        finding("app/db.py", 12, "RV-SEC-003", "IMPORTANT", "sql"),
        finding("app/db.py", 20, "RV-COR-001", "IMPORTANT", "unwrap"),
        finding("deploy.sh", 5, "shellcheck:SC2046", "IMPORTANT", "quote"),
    ];
    s.add("case.toml", None, expected, &findings);
    s.finish();
    let o = &s.overall;
    assert_eq!((o.expectations, o.matched, o.recall), (3, 1, Some(0.3333)));
    assert_eq!(
        (o.findings, o.findings_matching, o.precision),
        (4, 1, Some(0.25))
    );
    assert_eq!(
        (o.traps, o.traps_hit),
        (2, 1),
        "the shell trap only counts SC2086"
    );
    // The rule's problem two lines off. The missed shell defect names no
    // rule and no class: the other finding in its file is not its citation.
    assert_eq!(o.citations_off, 1);
    assert_eq!(s.citations_off[0].item.finding.citation, "app/db.py:12");
    assert_eq!(s.citations_off[0].item.expected, ["app/db.py:10"]);
    let py = &s.by_language["python"];
    assert_eq!(
        (py.expectations, py.matched, py.findings, py.traps_hit),
        (2, 1, 3, 1)
    );
    let sh = &s.by_language["shell"];
    assert_eq!(
        (sh.expectations, sh.matched, sh.recall, sh.precision),
        (1, 0, Some(0.0), Some(0.0))
    );
    assert_eq!(s.cases[0].tally, *o);
}

#[test]
fn nothing_to_divide_by_is_no_share() {
    let mut s = Scored::new("corpus".into());
    s.add("quiet", None, Expected::default(), &[]);
    s.finish();
    assert_eq!((s.overall.recall, s.overall.precision), (None, None));
}

#[test]
fn languages_by_file_name() {
    for (path, lang) in [
        ("a/b.py", "python"),
        ("x.TS", "javascript"),
        ("docker/Dockerfile.holdout", "dockerfile"),
        ("k8s/deploy.yml", "yaml"),
        ("infra/main.tf", "terraform"),
        ("run.sh", "shell"),
        ("README", "other"),
    ] {
        assert_eq!(language(path), lang, "{path}");
    }
}
