//! Reports for the unit tests, built from JSON so that fields added to the
//! report later with defaults need not be listed.

use revu_domain::report::Report;
use serde_json::{Value, json};

/// A finding of `rule` on `file:line`.
pub fn finding(rule: &str, severity: &str, dimension: &str, file: &str, line: u32) -> Value {
    json!({
        "rule": rule, "severity": severity, "file": file, "line": line,
        "dimension": dimension, "summary": "x", "why": "w", "fix": "",
        "confidence": 90, "blast_radius": "local"
    })
}

/// A lane of `kind` that ended `outcome`.
pub fn lane(kind: &str, outcome: &str) -> Value {
    json!({"id": format!("{kind}:core"), "kind": kind, "engine": "rules",
           "outcome": outcome, "attempts": 1, "files": 1, "checks": [],
           "findings_raised": 0, "summary": ""})
}

/// A MERGE-READY report of a one-line change, with no lane and no
/// finding: tests set what they need.
pub fn blank() -> Value {
    json!({
        "schema_version": "1", "review_id": "rv", "verdict": "APPROVE",
        "gate": "MERGE-READY", "gate_reasons": [],
        "rigor": {"level": "production", "source": "request"}, "summary": "",
        "facts": {"files_changed": 1, "lines_added": 1, "lines_removed": 0,
                  "risk_tier": "LOCAL", "signals": [], "files": []},
        "lanes": [], "dimensions_not_dispatched": [], "findings": [], "cross_cutting": [],
        "verification": {"raised": 0, "dropped_unknown_file": 0, "dropped_missing_line": 0,
                         "dropped_low_confidence": 0, "dropped_untouched_line": 0,
                         "merged_duplicates": 0, "kept": 0},
        "actions": []
    })
}

/// `value` read as a report.
pub fn read(value: Value) -> Report {
    serde_json::from_value(value).unwrap_or_else(|e| panic!("not a report: {e}"))
}
