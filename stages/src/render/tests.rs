//! What every renderer owes: valid output against the published schemas and
//! the same bytes for the same report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::fixtures::{adjudicated_report, blocked_report, clean_docs_report, synthesized_report};
use super::*;
use revu_domain::finding::Dimension;
use revu_domain::report_schema::REPORT_SCHEMA;
use revu_domain::usage::Tokens;
use serde_json::Value;
use std::path::PathBuf;

/// The official SARIF 2.1.0 schema, vendored with its origin noted in the
/// README beside it.
fn sarif_validator() -> jsonschema::Validator {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sarif-schema-2.1.0.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let schema: Value = serde_json::from_str(&text).unwrap();
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap()
}

fn report_validator() -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(REPORT_SCHEMA).unwrap();
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap()
}

fn errors(validator: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

/// A way to break a valid report document.
type Breakage = fn(&mut Value);
/// A renderer, by name.
type Renderer = fn(&Report) -> String;

/// Both fixtures, plus one with every optional field of the report set.
fn reports() -> Vec<Report> {
    let mut full = blocked_report();
    full.lanes[0].domain = Some("auth".into());
    full.lanes[2].dimension = Some(Dimension::Correctness);
    full.lanes[2].banner = Some("kept after a second failure".into());
    full.lanes[2].outcome = LaneOutcome::Incomplete;
    full.lanes[0].usage = Some(revu_domain::lane::Usage {
        model: "gpt-5-mini".into(),
        requests: 2,
        tokens: Tokens {
            input_tokens: 4000,
            cached_input_tokens: 1536,
            cache_write_tokens: 0,
            output_tokens: 1800,
            reasoning_tokens: 1200,
        },
        latency_ms: 5000,
        cost_usd: Some(revu_domain::lane::Usd(3_000_000)),
    });
    full.lanes[1].usage = Some(revu_domain::lane::Usage {
        model: "claude-sonnet-4-5".into(),
        requests: 1,
        tokens: Tokens {
            input_tokens: 2000,
            cache_write_tokens: 1800,
            output_tokens: 500,
            ..Tokens::default()
        },
        latency_ms: 2000,
        ..revu_domain::lane::Usage::default()
    });
    full.usage = revu_domain::report::ReviewUsage::of(&full.lanes);
    vec![
        clean_docs_report(),
        blocked_report(),
        full,
        adjudicated_report(),
        synthesized_report(),
    ]
}

#[test]
fn sarif_is_valid_against_the_official_schema() {
    let validator = sarif_validator();
    for report in reports() {
        let log: Value = serde_json::from_str(&sarif(&report)).unwrap();
        let errs = errors(&validator, &log);
        assert!(errs.is_empty(), "{}: {errs:#?}", report.review_id);
    }
}

#[test]
fn the_sarif_schema_check_has_teeth() {
    let validator = sarif_validator();
    let mut log: Value = serde_json::from_str(&sarif(&blocked_report())).unwrap();
    log["runs"][0]["results"][0]["level"] = "fatal".into();
    log["runs"][0]["results"][1]["locations"][0]["physicalLocation"]["region"]["startLine"] =
        0.into();
    let errs = errors(&validator, &log);
    assert_eq!(errs.len(), 2, "{errs:#?}");
}

#[test]
fn canonical_json_is_valid_against_the_published_report_schema() {
    let validator = report_validator();
    for report in reports() {
        let doc: Value = serde_json::from_str(&json(&report)).unwrap();
        let errs = errors(&validator, &doc);
        assert!(errs.is_empty(), "{}: {errs:#?}", report.review_id);
    }
}

#[test]
fn the_report_schema_rejects_unknown_fields_and_bad_enums() {
    let validator = report_validator();
    let good: Value = serde_json::from_str(&json(&blocked_report())).unwrap();
    let cases: [(&str, Breakage); 6] = [
        ("unknown top-level field", |r| {
            r["graded_by"] = "model".into()
        }),
        ("unknown finding field", |r| {
            r["findings"][0]["score"] = 3.into()
        }),
        ("bad severity", |r| {
            r["findings"][0]["severity"] = "HUGE".into()
        }),
        ("bad gate", |r| r["gate"] = "MERGE".into()),
        ("unknown usage field", |r| {
            r["lanes"][0]["usage"] = serde_json::json!({"model": "m", "requests": 1,
                "input_tokens": 1, "output_tokens": 1, "latency_ms": 1, "thoughts": 3})
        }),
        ("unknown review usage field", |r| {
            r["usage"] = serde_json::json!({"requests": 1, "input_tokens": 1,
                "output_tokens": 1, "dollars": 3})
        }),
    ];
    for (name, break_it) in cases {
        let mut bad = good.clone();
        break_it(&mut bad);
        assert!(!validator.is_valid(&bad), "{name} was accepted");
    }
}

#[test]
fn every_renderer_is_byte_identical_for_identical_input() {
    let renderers: [(&str, Renderer); 4] = [
        ("json", json),
        ("md", markdown),
        ("sarif", sarif),
        ("rdjson", rdjson),
    ];
    for report in reports() {
        let replayed: Report = serde_json::from_str(&json(&report)).unwrap();
        for (name, render) in renderers {
            let first = render(&report);
            assert_eq!(first, render(&report.clone()), "{name}");
            assert_eq!(first, render(&replayed), "{name} after a JSON round trip");
            assert!(first.ends_with('\n'), "{name}");
        }
    }
}

#[test]
fn unconfirmed_stale_uses_and_meta_findings_validate_and_render() {
    use revu_domain::report::{IndexReport, UnconfirmedUse};
    let mut r = blocked_report();
    r.code_index = Some(IndexReport {
        files: 3,
        stale_uses: 0,
        unconfirmed: vec![UnconfirmedUse {
            file: "tests/test_config.py".into(),
            line: 13,
            symbol: "verify_mode".into(),
            change: "removed".into(),
            doubt: "the receiver's type is not known here".into(),
        }],
        ..IndexReport::default()
    });
    if let Some(f) = r.findings.first_mut() {
        f.meta = true;
    }
    let canonical: Value = serde_json::from_str(&json(&r)).unwrap();
    assert_eq!(
        errors(&report_validator(), &canonical),
        Vec::<String>::new()
    );
    let md = markdown(&r);
    assert!(
        md.contains("Possible stale uses the index could not confirm (1), no finding:")
            && md.contains("`verify_mode` (removed): the receiver's type is not known here"),
        "{md}"
    );
}

#[test]
fn a_report_written_before_tokens_had_kinds_still_reads_and_validates() {
    let mut old: Value = serde_json::from_str(&json(&blocked_report())).unwrap();
    old["lanes"][0]["usage"] = serde_json::json!({"model": "gpt-4.1", "requests": 1,
        "input_tokens": 1200, "output_tokens": 300, "latency_ms": 900, "cost_usd": 0.0012});
    assert_eq!(errors(&report_validator(), &old), Vec::<String>::new());
    let report: Report = serde_json::from_value(old).unwrap();
    let usage = report.lanes[0].usage.clone().unwrap();
    assert_eq!(
        (
            usage.tokens.cached_input_tokens,
            usage.tokens.reasoning_tokens
        ),
        (0, 0)
    );
    assert_eq!(report.usage, None);
    // Its Markdown still gives the review's cost, from the lanes.
    assert!(markdown(&report).contains("Priced lanes cost $0.0012 in all."));
}

#[test]
fn the_review_usage_is_the_sum_of_the_lanes_with_unpriced_lanes_counted() {
    let full = &reports()[2];
    let usage = full.usage.clone().unwrap();
    assert_eq!(
        (
            usage.requests,
            usage.tokens.input_tokens,
            usage.tokens.cached_input_tokens,
            usage.tokens.cache_write_tokens,
            usage.tokens.output_tokens,
            usage.tokens.reasoning_tokens
        ),
        (3, 6000, 1536, 1800, 2300, 1200)
    );
    assert_eq!(usage.cost_usd, Some(revu_domain::lane::Usd(3_000_000)));
    assert_eq!(usage.unpriced_lanes, 1);
}

/// A finding marked pre-existing by its field renders as the same finding
/// did when the mark was written into its summary (reports written before
/// the field): Markdown, SARIF (fingerprints included) and rdjson come out
/// byte for byte the same, and both reports validate.
#[test]
fn the_pre_existing_mark_renders_from_the_field_as_it_did_from_the_summary() {
    let mut marked = blocked_report();
    let mut before = marked.clone();
    // The counted BLOCKER and an uncounted IMPORTANT, both on lines the
    // change did not add.
    for i in [0, 2] {
        marked.findings[i].pre_existing_line = true;
        before.findings[i].summary = format!("[pre-existing] {}", before.findings[i].summary);
    }
    marked.findings[2].pre_existing = true;
    before.findings[2].pre_existing = true;
    let renderers: [(&str, Renderer); 3] = [("md", markdown), ("sarif", sarif), ("rdjson", rdjson)];
    for (name, render) in renderers {
        let shown = render(&marked);
        assert!(
            shown.contains("[pre-existing] session token"),
            "{name}: {shown}"
        );
        assert_eq!(shown, render(&before), "{name}");
    }
    let doc: Value = serde_json::from_str(&json(&marked)).unwrap();
    let finding = &doc["findings"][0];
    assert_eq!(finding["pre_existing_line"], true, "{finding}");
    assert!(
        finding["summary"]
            .as_str()
            .is_some_and(|s| !s.contains("[pre-existing]")),
        "the mark is a field, not prose: {finding}"
    );
    // A finding adjudication lowered says from what.
    marked.findings[1].downgraded_from = Some(Severity::Blocker);
    let validator = report_validator();
    for report in [&marked, &before] {
        let doc: Value = serde_json::from_str(&json(report)).unwrap();
        let errs = errors(&validator, &doc);
        assert!(errs.is_empty(), "{errs:#?}");
    }
    let doc: Value = serde_json::from_str(&json(&marked)).unwrap();
    assert_eq!(doc["findings"][1]["downgraded_from"], "BLOCKER");
}
