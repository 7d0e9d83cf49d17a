//! Rendering the report and mapping it to the exit code.

use crate::error::CliError;
use revu_domain::finding::Severity;
use revu_domain::report::{Gate, LaneOutcome, Report};
use revu_stages::render;
use revu_stages::verdict::folded_severity;
use std::io::Write;
use std::process::ExitCode;

/// Report output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// GitHub-flavoured Markdown, for terminals and PR comments.
    Md,
    /// The canonical report (`revu schema` describes it).
    Json,
    /// SARIF 2.1.0, for code scanning.
    Sarif,
    /// reviewdog's diagnostic format, for `reviewdog -f=rdjson`.
    Rdjson,
}

/// The lowest severity that fails the run, for CI gating.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    Blocker,
    Important,
    Suggestion,
    /// Exit 0 whatever the review found (input and service errors still fail).
    Never,
}

/// The report rendered in `format`.
pub fn render(report: &Report, format: Format) -> String {
    match format {
        Format::Md => render::markdown(report),
        Format::Json => render::json(report),
        Format::Sarif => render::sarif(report),
        Format::Rdjson => render::rdjson(report),
    }
}

/// Writes `text` to standard output.
pub fn print(text: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| CliError::Internal(format!("writing the report: {e}")))
}

/// Prints the report in `format` and returns its exit code (see
/// [`exit_code`]).
pub fn emit(
    report_json: &str,
    format: Format,
    fail_on: Option<FailOn>,
) -> Result<ExitCode, CliError> {
    let report: Report = serde_json::from_str(report_json)
        .map_err(|e| CliError::Internal(format!("report JSON does not match the schema: {e}")))?;
    print(&render(&report, format))?;
    Ok(ExitCode::from(exit_code(&report, fail_on)))
}

/// [`emit`] of a report already at hand, with the JSON it was stored as
/// (printed as it is for `--format json`): nothing is parsed back.
pub fn emit_report(
    report: &Report,
    json: &str,
    format: Format,
    fail_on: Option<FailOn>,
) -> Result<ExitCode, CliError> {
    match format {
        Format::Json => print(json)?,
        _ => print(&render(report, format))?,
    }
    Ok(ExitCode::from(exit_code(report, fail_on)))
}

/// 0 or 1. Without a threshold the gate decides (1 for NEEDS-HUMAN). With
/// one, 1 iff a finding counts (after rigor folding) at or above it, or a
/// lane did not complete: a partial review must not pass a CI gate that only
/// asked about blockers. `never` always gives 0.
pub fn exit_code(report: &Report, fail_on: Option<FailOn>) -> u8 {
    let threshold = match fail_on {
        None => return u8::from(report.gate == Gate::NeedsHuman),
        Some(FailOn::Never) => return 0,
        Some(FailOn::Blocker) => Severity::Blocker,
        Some(FailOn::Important) => Severity::Important,
        Some(FailOn::Suggestion) => Severity::Suggestion,
    };
    let unsettled = report
        .lanes
        .iter()
        .any(|l| l.outcome != LaneOutcome::Complete);
    let reached = report
        .findings
        .iter()
        .filter_map(|f| folded_severity(f, report.rigor.level))
        .any(|s| s >= threshold);
    u8::from(unsettled || reached)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::test_reports;
    use serde_json::json;

    fn report(findings: &[(&str, &str)], lane: &str, rigor: &str) -> Report {
        let mut r = test_reports::blank();
        r["findings"] = findings
            .iter()
            .map(|(severity, dimension)| {
                test_reports::finding("RV-TEST", severity, dimension, "src/a.rs", 1)
            })
            .collect();
        r["lanes"] = json!([test_reports::lane("domain", lane)]);
        r["rigor"]["level"] = json!(rigor);
        test_reports::read(r)
    }

    #[test]
    fn without_a_threshold_the_gate_decides() {
        let mut r = report(&[("BLOCKER", "security")], "COMPLETE", "production");
        assert_eq!(exit_code(&r, None), 0, "the carried gate, not the findings");
        r.gate = Gate::NeedsHuman;
        assert_eq!(exit_code(&r, None), 1);
    }

    #[test]
    fn a_threshold_fails_at_or_above_it() {
        let important = report(&[("IMPORTANT", "correctness")], "COMPLETE", "production");
        assert_eq!(exit_code(&important, Some(FailOn::Blocker)), 0);
        assert_eq!(exit_code(&important, Some(FailOn::Important)), 1);
        assert_eq!(exit_code(&important, Some(FailOn::Suggestion)), 1);
        assert_eq!(exit_code(&important, Some(FailOn::Never)), 0);
        let clean = report(&[], "COMPLETE", "production");
        assert_eq!(exit_code(&clean, Some(FailOn::Suggestion)), 0);
    }

    #[test]
    fn thresholds_count_folded_severities() {
        // At poc rigor a design BLOCKER counts as IMPORTANT.
        let r = report(&[("BLOCKER", "design")], "COMPLETE", "poc");
        assert_eq!(exit_code(&r, Some(FailOn::Blocker)), 0);
        assert_eq!(exit_code(&r, Some(FailOn::Important)), 1);
    }

    #[test]
    fn an_unsettled_lane_fails_every_threshold_but_never() {
        for lane in ["PIPELINE-FAULT", "INCOMPLETE", "CANCELLED"] {
            let r = report(&[], lane, "production");
            assert_eq!(exit_code(&r, Some(FailOn::Blocker)), 1, "{lane}");
            assert_eq!(exit_code(&r, Some(FailOn::Never)), 0, "{lane}");
        }
    }
}
