//! Rendering the report and mapping its gate to the exit code.

use crate::error::CliError;
use revu_common::report::{Gate, Report};
use revu_coordinator::stages::render;
use std::io::Write;
use std::process::ExitCode;

/// Report output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Md,
    Json,
}

/// Prints the report in `format` and returns the exit code of its gate.
pub fn emit(report_json: &str, format: Format) -> Result<ExitCode, CliError> {
    let report: Report = serde_json::from_str(report_json)
        .map_err(|e| CliError::Internal(format!("report JSON does not match the schema: {e}")))?;
    let text = match format {
        Format::Json => render::json(&report),
        Format::Md => render::markdown(&report),
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| CliError::Internal(format!("writing the report: {e}")))?;
    Ok(ExitCode::from(match report.gate {
        Gate::MergeReady => 0,
        Gate::NeedsHuman => 1,
    }))
}
