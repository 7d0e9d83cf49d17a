//! `revu rules` as a user runs it, `docs/rules.md` as the command writes
//! it, and the silencing each rule's entry advises, held to what the
//! conventions stage does with it.

use revu_domain::finding::{Finding, Severity};
use revu_stages::conventions::ReviewMd;
use revu_stages::conventions::apply::Outcome;
use revu_worker::engines::rules::{Rule, all_rules};
use std::path::PathBuf;
use std::process::{Command, Output};

fn revu(args: &[&str]) -> Output {
    crate::scratch::outside_ci(&mut Command::new(env!("CARGO_BIN_EXE_revu")))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{e}"))
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_rules_page_is_what_revu_rules_writes() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/rules.md");
    let page = std::fs::read_to_string(&path).unwrap_or_default();
    let out = revu(&["rules", "--format", "md"]);
    assert_eq!(out.status.code(), Some(0));
    let written = stdout(&out);
    if page != written {
        let diff = similar::TextDiff::from_lines(&page, &written)
            .unified_diff()
            .context_radius(1)
            .header("docs/rules.md", "revu rules --format md")
            .to_string();
        let shown: String = diff.lines().take(40).collect::<Vec<_>>().join("\n");
        panic!(
            "docs/rules.md is not what the rules' catalogue says; write it again with\n\n    \
             cargo run -p revu-cli -- rules --format md > docs/rules.md\n\n{shown}"
        );
    }
}

#[test]
fn the_list_has_a_line_per_rule_in_code_order() {
    let out = revu(&["rules"]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    let mut lines = text.lines();
    let head: Vec<&str> = lines
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    assert_eq!(head, ["CODE", "SEVERITY", "DIMENSION", "LANGUAGES", "NAME"]);
    let rules = all_rules();
    let listed: Vec<(&str, &str)> = lines
        .map(|l| {
            let cells: Vec<&str> = l.split_whitespace().collect();
            (
                cells.first().copied().unwrap_or_default(),
                cells.last().copied().unwrap_or_default(),
            )
        })
        .collect();
    let expected: Vec<(&str, &str)> = rules.iter().map(|r| (r.code(), r.name())).collect();
    assert_eq!(listed, expected);
    let unwrap = text.lines().find(|l| l.starts_with("RV-COR-001"));
    let cells: Vec<&str> = unwrap.unwrap_or_default().split_whitespace().collect();
    assert_eq!(
        cells,
        [
            "RV-COR-001",
            "IMPORTANT",
            "correctness",
            "Rust",
            "unwrap-in-production"
        ]
    );
}

#[test]
fn one_rule_is_printed_in_full_by_code_or_name() {
    for wanted in ["RV-SEC-001", "hardcoded-credential"] {
        let out = revu(&["rules", wanted]);
        assert_eq!(out.status.code(), Some(0), "{wanted}");
        let text = stdout(&out);
        assert!(
            text.starts_with("## RV-SEC-001 hardcoded-credential\n"),
            "{text}"
        );
        for part in [
            "**What it catches.**",
            "**Why it matters.**",
            "**Example.**",
        ] {
            assert!(text.contains(part), "{part}: {text}");
        }
        assert!(
            text.contains("never lowers or suppresses a BLOCKER"),
            "{text}"
        );
    }
}

#[test]
fn an_unknown_code_exits_2_naming_the_nearest() {
    let out = revu(&["rules", "RV-SEC-01"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.starts_with("revu: no built-in rule `RV-SEC-01`"),
        "{said}"
    );
    assert!(said.contains("RV-SEC-001 (hardcoded-credential)"), "{said}");
}

#[test]
fn json_holds_every_entry_and_one_rule_alone() {
    let out = revu(&["rules", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let all: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON: {e}"));
    let entries = all.as_array().cloned().unwrap_or_default();
    assert_eq!(entries.len(), all_rules().len());
    for e in &entries {
        let blocker = e["severity"] == "BLOCKER";
        assert_eq!(e["review_md"].is_null(), blocker, "{}", e["code"]);
        for key in [
            "name",
            "dimension",
            "reads",
            "catches",
            "why",
            "instead",
            "silencing",
        ] {
            assert!(e[key].is_string(), "{}: {key}", e["code"]);
        }
        assert!(e["example"]["path"].is_string(), "{}", e["code"]);
    }
    let one = revu(&["rules", "RV-OPS-005", "--format", "json"]);
    let one: serde_json::Value =
        serde_json::from_slice(&one.stdout).unwrap_or_else(|e| panic!("not JSON: {e}"));
    assert_eq!(one["code"], "RV-OPS-005");
    assert_eq!(one["languages"], serde_json::json!(["Python", "Go"]));
}

/// A finding of `rule` on its example's file.
fn finding_of(rule: &dyn Rule) -> Finding {
    let m = rule.meta();
    serde_json::from_value(serde_json::json!({
        "rule": m.code, "severity": m.severity, "file": m.example.path, "line": 1,
        "dimension": m.dimension, "summary": "s", "why": "w", "fix": "f",
        "confidence": m.confidence, "blast_radius": "local"
    }))
    .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_silencing_each_rule_advises_is_what_review_md_does() {
    for rule in all_rules() {
        let m = rule.meta();
        let f = finding_of(rule.as_ref());
        let Some(sections) = m.review_md() else {
            // A BLOCKER: the cap that would silence anything else is refused.
            assert_eq!(m.severity, Severity::Blocker);
            let cap = format!(
                "## Severity Overrides\n\n- `{}`: at most SUGGESTION\n",
                m.code
            );
            let outcome = ReviewMd::parse(&cap).apply(f);
            assert!(
                matches!(outcome, Outcome::Protected(..)),
                "{}: {outcome:?}",
                m.code
            );
            continue;
        };
        assert!(m.silencing().contains(&sections), "{}", m.code);
        // As written, and kept to the example's path as the advice says.
        let scoped = sections.replace(
            &format!("`{}`:", m.code),
            &format!("`{}` in `{}`:", m.code, m.example.path),
        );
        for text in [&sections, &scoped] {
            let review = ReviewMd::parse(text);
            assert!(
                review.warnings.is_empty(),
                "{}: {:?}",
                m.code,
                review.warnings
            );
            let outcome = review.apply(f.clone());
            assert!(
                matches!(outcome, Outcome::Suppressed(_)),
                "{}: {outcome:?}",
                m.code
            );
        }
    }
}
