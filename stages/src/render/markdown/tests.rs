#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::render::fixtures::{blocked_report, clean_docs_report, finding, synthesized_report};
use revu_domain::finding::Dimension;

#[test]
fn clean_docs_only_review() {
    insta::assert_snapshot!(markdown(&clean_docs_report()));
}

#[test]
fn blocked_review_with_faulted_lane() {
    insta::assert_snapshot!(markdown(&blocked_report()));
}

#[test]
fn review_with_a_walkthrough() {
    insta::assert_snapshot!(markdown(&synthesized_report()));
}

#[test]
fn renders_the_same_bytes_after_a_json_round_trip() {
    let report = blocked_report();
    let replayed: Report = serde_json::from_str(&crate::render::json(&report)).unwrap();
    assert_eq!(markdown(&replayed), markdown(&report));
}

#[test]
fn findings_sit_under_the_severity_they_count_with() {
    let mut report = clean_docs_report();
    report.rigor.level = Rigor::Poc;
    report.findings = vec![Finding {
        summary: "no index on the lookup".into(),
        ..finding(
            "RV-PRF-001",
            Severity::Blocker,
            "src/db.rs",
            3,
            Dimension::Performance,
        )
    }];
    let md = markdown(&report);
    assert!(md.contains("### IMPORTANT (1)\n"), "{md}");
    assert!(
        md.contains("· raised as BLOCKER (poc rigor) — no index on the lookup\n"),
        "{md}"
    );
    assert!(!md.contains("### BLOCKER"), "{md}");
}

#[test]
fn code_spans_survive_backticks_and_cells_survive_pipes() {
    assert_eq!(code("src/a.rs"), "`src/a.rs`");
    assert_eq!(code("a`b"), "``a`b``");
    assert_eq!(code("`a``"), "``` `a`` ```");
    assert_eq!(cell("a|b\nc"), "a\\|b c");
    assert_eq!(inline("  two\n lines  "), "two lines");
}

#[test]
fn what_model_lanes_spent_is_shown_when_any_did() {
    let mut report = clean_docs_report();
    assert!(!markdown(&report).contains("input tokens"));
    report.lanes[0].usage = Some(revu_domain::lane::Usage {
        model: "smollm2".into(),
        requests: 2,
        tokens: revu_domain::usage::Tokens {
            input_tokens: 1200,
            output_tokens: 300,
            ..Default::default()
        },
        latency_ms: 4250,
        ..revu_domain::lane::Usage::default()
    });
    let md = markdown(&report);
    assert!(
        md.contains(&format!(
            "| `{}` | smollm2 | 2 | 1200 | 300 | 4.2 s |\n",
            report.lanes[0].id
        )),
        "{md}"
    );
    // With a price, a cost column and the total.
    if let Some(usage) = report.lanes[0].usage.as_mut() {
        usage.cost_usd = Some(revu_domain::lane::Usd(1_250_000));
    }
    let md = markdown(&report);
    assert!(
        md.contains(&format!(
            "| `{}` | smollm2 | 2 | 1200 | 300 | 4.2 s | $0.0013 |",
            report.lanes[0].id
        )),
        "{md}"
    );
    assert!(md.contains("Priced lanes cost $0.0013 in all."), "{md}");
}

#[test]
fn cached_and_reasoning_tokens_get_columns_and_the_review_a_total_row() {
    use revu_domain::lane::{Usage, Usd};
    let mut report = blocked_report();
    let lane = |cached, reasoning, cost| Usage {
        model: "gpt-5-mini".into(),
        requests: 1,
        tokens: revu_domain::usage::Tokens {
            input_tokens: 2000,
            cached_input_tokens: cached,
            output_tokens: 900,
            reasoning_tokens: reasoning,
            ..Default::default()
        },
        latency_ms: 1000,
        cost_usd: cost,
    };
    report.lanes[0].usage = Some(lane(0, 700, Some(Usd(2_300_000))));
    report.lanes[1].usage = Some(lane(1536, 600, Some(Usd(2_000_000))));
    report.lanes[2].usage = Some(lane(0, 0, None));
    let md = markdown(&report);
    let head = "| lane | model | requests | input tokens | cached | output tokens | reasoning | latency | cost |";
    assert!(md.contains(head), "{md}");
    assert!(
        md.contains(&format!(
            "| `{}` | gpt-5-mini | 1 | 2000 | 1536 | 900 | 600 | 1.0 s | $0.0020 |",
            report.lanes[1].id
        )),
        "{md}"
    );
    assert!(
        md.contains("| **review** |  | 3 | 6000 | 1536 | 2700 | 1300 | 3.0 s | $0.0043 |"),
        "{md}"
    );
    assert!(
        md.contains("Priced lanes cost $0.0043 in all (1 lane(s) not priced"),
        "{md}"
    );
}
