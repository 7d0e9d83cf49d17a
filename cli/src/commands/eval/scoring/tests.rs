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
        file: Some(file.into()),
        lines: Some(Lines { first, last }),
        severity: None,
        rule: None,
        class: None,
        id: None,
        description: None,
        golden_severity: None,
    }
}

fn run(findings: &[Finding]) -> CaseRun {
    CaseRun {
        findings: findings.to_vec(),
        ..CaseRun::default()
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
    assert!(expect("app/db.py", 10, 14).matches(&f, 0));
    assert!(!expect("app/db.py", 13, 14).matches(&f, 0));
    assert!(!expect("app/other.py", 10, 14).matches(&f, 0));
    let mut e = expect("app/db.py", 12, 12);
    e.severity = Some(Severity::Blocker);
    assert!(!e.matches(&f, 0), "IMPORTANT is below the least severity");
    e.severity = Some(Severity::Important);
    assert!(e.matches(&f, 0));
    e.rule = Some("RV-SEC-003".into());
    assert!(e.matches(&f, 0));
    e.rule = Some("RV-SEC:".into());
    assert!(!e.matches(&f, 0), "a tool prefix ends in `:`");
    let ruff = finding(
        "app/db.py",
        12,
        "ruff:S608",
        "IMPORTANT",
        "possible SQL injection",
    );
    e.rule = Some("ruff:".into());
    assert!(e.matches(&ruff, 0));
    e.rule = None;
    e.class = Some("SQL Request".into());
    assert!(
        e.matches(&f, 0),
        "words from the summary and the why, any case"
    );
    e.class = Some("sql deserialization".into());
    assert!(!e.matches(&f, 0));
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
    s.add("case.toml", None, expected, run(&findings));
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
    s.add("quiet", None, Expected::default(), run(&[]));
    s.finish();
    assert_eq!(
        (s.overall.recall, s.overall.precision, s.overall.f1),
        (None, None, None)
    );
}

#[test]
fn f1_is_the_harmonic_mean_and_zero_when_both_are() {
    assert_eq!(tally::f1(Some(0.5), Some(1.0)), Some(2.0 / 3.0));
    assert_eq!(tally::f1(Some(0.0), Some(0.0)), Some(0.0));
    assert_eq!(tally::f1(None, Some(1.0)), None);
}

#[test]
fn a_line_window_widens_the_range_on_both_sides() {
    let f = finding("app/db.py", 12, "RV-SEC-003", "IMPORTANT", "sql");
    let e = expect("app/db.py", 14, 15);
    assert!(!e.matches(&f, 0));
    assert!(!e.matches(&f, 1));
    assert!(e.matches(&f, 2));
    let after = finding("app/db.py", 18, "RV-SEC-003", "IMPORTANT", "sql");
    assert!(e.matches(&after, 3));
    assert!(!expect("app/db.py", 1, 1).matches(&f, 10));
    assert!(expect("app/db.py", 1, 1).matches(&finding("app/db.py", 1, "R", "IMPORTANT", "x"), 5));
}

#[test]
fn a_description_alone_needs_the_judge_and_a_judged_pair_matches_without_a_line() {
    let described = Expectation {
        file: None,
        lines: None,
        description: Some("the query is built from user input".into()),
        ..expect("app/db.py", 1, 1)
    };
    let in_other_file = Expectation {
        file: Some("app/other.py".into()),
        ..described.clone()
    };
    let expected = Expected {
        expectations: vec![described.clone(), in_other_file],
        traps: Vec::new(),
    };
    let findings = vec![finding("app/db.py", 40, "llm", "IMPORTANT", "injection")];
    let mut unjudged = Scored::new("c".into());
    unjudged.add("c", None, expected.clone(), run(&findings));
    unjudged.finish();
    let o = &unjudged.overall;
    assert_eq!((o.expectations, o.needs_judge, o.recall), (0, 2, None));
    assert!(unjudged.expectations.iter().all(|e| e.item.needs_judge));

    let mut judged = Scored::new("c".into());
    let pairs: Judged = [((0, 0), "same".to_owned()), ((1, 0), "same".to_owned())]
        .into_iter()
        .collect();
    judged.add(
        "c",
        None,
        expected,
        CaseRun {
            judged: Some(pairs),
            ..run(&findings)
        },
    );
    judged.finish();
    let o = &judged.overall;
    assert_eq!(
        (
            o.expectations,
            o.matched,
            o.needs_judge,
            o.findings_matching
        ),
        (2, 1, 0, 1),
        "the second names another file than the finding cites"
    );
    assert_eq!(
        judged.expectations[0].item.judge_reasoning.as_deref(),
        Some("same")
    );
    assert_eq!(o.f1, Some(0.6667));
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
