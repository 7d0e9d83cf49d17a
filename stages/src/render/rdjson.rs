//! reviewdog's Diagnostic Format (`rdjson`), for `reviewdog -f=rdjson`,
//! which posts each diagnostic as a PR review comment on its lines.
//!
//! One diagnostic per finding, in report order, with the severity the
//! finding counts with at the report's rigor (BLOCKER → ERROR, IMPORTANT →
//! WARNING, SUGGESTION → INFO). A file-level finding (line 0) carries a path
//! and no range. The top-level `severity` (reviewdog's default for
//! diagnostics without one) is the highest among them, INFO when there are
//! none.
use super::{counted_severity, message};
use revu_domain::finding::{Finding, Severity};
use revu_domain::report::Report;
use serde::Serialize;

#[derive(Debug, Serialize)]
struct DiagnosticResult {
    source: Source,
    severity: RdSeverity,
    diagnostics: Vec<Diagnostic>,
}

#[derive(Debug, Serialize)]
struct Source {
    name: &'static str,
    #[serde(skip_serializing_if = "str::is_empty")]
    url: &'static str,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "UPPERCASE")]
enum RdSeverity {
    Info,
    Warning,
    Error,
}

#[derive(Debug, Serialize)]
struct Diagnostic {
    message: String,
    location: Location,
    severity: RdSeverity,
    code: Code,
}

#[derive(Debug, Serialize)]
struct Location {
    path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    range: Option<Range>,
}

#[derive(Debug, Serialize)]
struct Range {
    start: Position,
    end: Position,
}

#[derive(Debug, Serialize)]
struct Position {
    line: u32,
}

#[derive(Debug, Serialize)]
struct Code {
    value: String,
}

/// Renders the report as one rdjson `DiagnosticResult`, pretty-printed,
/// with a trailing newline.
pub fn rdjson(report: &Report) -> String {
    let diagnostics: Vec<Diagnostic> = report
        .findings
        .iter()
        .map(|f| diagnostic(f, severity(counted_severity(f, report.rigor.level))))
        .collect();
    let result = DiagnosticResult {
        source: Source {
            name: "revu",
            url: env!("CARGO_PKG_REPOSITORY"),
        },
        severity: diagnostics
            .iter()
            .map(|d| d.severity)
            .max()
            .unwrap_or(RdSeverity::Info),
        diagnostics,
    };
    super::to_pretty_json(&result)
}

fn diagnostic(f: &Finding, severity: RdSeverity) -> Diagnostic {
    let range = (f.line > 0).then(|| Range {
        start: Position { line: f.line },
        end: Position {
            line: f.end_line.unwrap_or(f.line).max(f.line),
        },
    });
    Diagnostic {
        message: message(f),
        location: Location {
            path: f.file.clone(),
            range,
        },
        severity,
        code: Code {
            value: f.rule.clone(),
        },
    }
}

fn severity(severity: Severity) -> RdSeverity {
    match severity {
        Severity::Blocker => RdSeverity::Error,
        Severity::Important => RdSeverity::Warning,
        Severity::Suggestion => RdSeverity::Info,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::render::fixtures::{blocked_report, clean_docs_report};
    use revu_domain::report::Rigor;

    #[test]
    fn clean_docs_only_review() {
        insta::assert_snapshot!(rdjson(&clean_docs_report()));
    }

    #[test]
    fn blocked_review_with_faulted_lane() {
        insta::assert_snapshot!(rdjson(&blocked_report()));
    }

    #[test]
    fn severity_follows_rigor_and_file_level_findings_have_no_range() {
        let mut report = blocked_report();
        report.rigor.level = Rigor::Poc;
        // A report written before every finding cited a line (line 0).
        report.findings[2].line = 0;
        let out: serde_json::Value = serde_json::from_str(&rdjson(&report)).unwrap();
        let diags = out["diagnostics"].as_array().unwrap();
        // A security BLOCKER stays an ERROR at poc rigor; IMPORTANTs fold to
        // SUGGESTION, so INFO.
        assert_eq!(diags[0]["severity"], "ERROR");
        assert_eq!(diags[1]["severity"], "INFO");
        assert_eq!(diags[0]["location"]["range"]["end"]["line"], 44);
        assert!(diags[2]["location"].get("range").is_none());
        assert_eq!(out["severity"], "ERROR");
        let clean: serde_json::Value = serde_json::from_str(&rdjson(&clean_docs_report())).unwrap();
        assert_eq!(clean["severity"], "INFO");
        assert_eq!(clean["diagnostics"], serde_json::json!([]));
    }
}
