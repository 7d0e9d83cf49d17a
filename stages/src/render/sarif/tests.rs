#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::render::fixtures::{blocked_report, clean_docs_report, finding};
use revu_domain::report::Rigor;
use serde_json::Value;

/// The snapshot without the crate version, so a release does not rewrite it.
fn golden(report: &Report) -> String {
    sarif(report).replace(
        concat!("\"", env!("CARGO_PKG_VERSION"), "\""),
        "\"[version]\"",
    )
}

fn parsed(report: &Report) -> Value {
    serde_json::from_str(&sarif(report)).unwrap()
}

#[test]
fn clean_docs_only_review() {
    insta::assert_snapshot!(golden(&clean_docs_report()));
}

#[test]
fn blocked_review_with_faulted_lane() {
    insta::assert_snapshot!(golden(&blocked_report()));
}

#[test]
fn levels_follow_the_counted_severity_and_rules_are_indexed() {
    let log = parsed(&blocked_report());
    let run = &log["runs"][0];
    let rules: Vec<&str> = run["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["RV-COR-003", "RV-SEC-001", "RV-TST-002"]);
    let results = run["results"].as_array().unwrap();
    let levels: Vec<&str> = results
        .iter()
        .map(|r| r["level"].as_str().unwrap())
        .collect();
    assert_eq!(levels, ["error", "warning", "warning"]);
    for r in results {
        let index = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index], r["ruleId"]);
    }
    // At poc rigor every IMPORTANT counts as a SUGGESTION.
    let mut poc = blocked_report();
    poc.rigor.level = Rigor::Poc;
    let log = parsed(&poc);
    assert_eq!(log["runs"][0]["results"][1]["level"], "note");
    assert_eq!(
        log["runs"][0]["results"][1]["properties"]["severity"],
        "IMPORTANT"
    );
}

#[test]
fn a_file_level_finding_has_no_region_and_ranges_keep_their_end() {
    // Reports written before every finding cited a line held line 0 for
    // the whole file; they still render.
    let mut report = blocked_report();
    report.findings[2].line = 0;
    let log = parsed(&report);
    let results = &log["runs"][0]["results"];
    let blocker = &results[0]["locations"][0]["physicalLocation"];
    assert_eq!(blocker["region"]["startLine"], 42);
    assert_eq!(blocker["region"]["endLine"], 44);
    assert_eq!(blocker["artifactLocation"]["uriBaseId"], "%SRCROOT%");
    let file_level = &results[2]["locations"][0]["physicalLocation"];
    assert!(file_level.get("region").is_none(), "{file_level}");
    assert_eq!(file_level["artifactLocation"]["uri"], "src/api/routes.rs");
}

#[test]
fn a_faulted_lane_makes_the_invocation_unsuccessful() {
    let log = parsed(&blocked_report());
    let invocation = &log["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    let notes = invocation["toolExecutionNotifications"].as_array().unwrap();
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0]["level"], "error");
    assert_eq!(
        notes[0]["message"]["text"],
        "lane domain:api faulted: attempts exhausted (3/3): worker deadline exceeded"
    );

    let mut incomplete = blocked_report();
    incomplete.lanes[1].outcome = LaneOutcome::Incomplete;
    let log = parsed(&incomplete);
    let invocation = &log["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], true);
    assert_eq!(
        invocation["toolExecutionNotifications"][0]["level"],
        "warning"
    );

    let clean = parsed(&clean_docs_report());
    let invocation = &clean["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], true);
    assert!(invocation.get("toolExecutionNotifications").is_none());
}

#[test]
fn fingerprints_ignore_lines_and_counts_but_not_rule_file_or_wording() {
    let base = Finding {
        summary: "Function takes 9 parameters".into(),
        ..finding(
            "RV-DES-002",
            Severity::Suggestion,
            "src/a.rs",
            10,
            Dimension::Design,
        )
    };
    let moved = Finding {
        line: 30,
        summary: "function  takes 11 parameters".into(),
        ..base.clone()
    };
    assert_eq!(
        fingerprints(std::slice::from_ref(&base)),
        fingerprints(std::slice::from_ref(&moved))
    );
    let other_file = Finding {
        file: "src/b.rs".into(),
        ..base.clone()
    };
    let other_rule = Finding {
        rule: "RV-DES-003".into(),
        ..base.clone()
    };
    let other_words = Finding {
        summary: "Function takes 9 arguments".into(),
        ..base.clone()
    };
    let one = fingerprints(std::slice::from_ref(&base));
    for f in [other_file, other_rule, other_words] {
        assert_ne!(fingerprints(&[f]), one);
    }
    // The same issue twice in one file stays two alerts, numbered by line.
    let twice = fingerprints(&[moved.clone(), base.clone()]);
    assert!(
        twice[0].ends_with(":2") && twice[1].ends_with(":1"),
        "{twice:?}"
    );
    assert_eq!(twice[1], one[0]);
}

#[test]
fn fingerprints_are_pinned_across_releases() {
    // Code-scanning services store these: changing the hash reopens every
    // alert, so it must be a deliberate, versioned change (`revuFinding/v2`).
    assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    assert_eq!(
        normalize("  SQL built  with 2 f-strings\n"),
        "sql built with # f-strings"
    );
}

#[test]
fn uris_are_percent_encoded_relative_references() {
    assert_eq!(uri_path("src/a b/c#1.rs"), "src/a%20b/c%231.rs");
    assert_eq!(uri_path("c:/x"), "c%3A/x");
    assert_eq!(uri_path("docs/odd|name`.png"), "docs/odd%7Cname%60.png");
    assert_eq!(uri_path("naïve.py"), "na%C3%AFve.py");
}
