//! `revu verdict`: replays the verdict math on a report's own findings,
//! lanes, signals, rigor and failed citations, and checks it agrees with
//! what the report says. Exit 0 when it does, 1 (with a diff) when not.

use super::schema::load_report;
use crate::error::CliError;
use crate::output::print;
use revu_domain::report::{Gate, Report, Verdict};
use revu_stages::verdict::{self, VerdictInput};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The canonical report JSON (`-` for standard input).
    report: PathBuf,
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let report = load_report(&args.report)?;
    let carried = decision_text(
        report.verdict,
        report.gate,
        &report.gate_reasons,
        &report.actions,
    );
    let replayed = replay(&report);
    if carried == replayed {
        print(&format!(
            "{replayed}agrees with the verdict the report carries\n"
        ))?;
        return Ok(ExitCode::SUCCESS);
    }
    let diff = similar::TextDiff::from_lines(&carried, &replayed)
        .unified_diff()
        .header("report", "recomputed")
        .to_string();
    print(&format!(
        "{replayed}does not agree with the verdict the report carries:\n{diff}"
    ))?;
    Ok(ExitCode::from(1))
}

/// The decision recomputed from the report alone, as text.
fn replay(report: &Report) -> String {
    let v = &report.verification;
    let decision = verdict::decide(&VerdictInput {
        findings: &report.findings,
        lanes: &report.lanes,
        signals: &report.facts.signals,
        rigor: report.rigor.level,
        failed_citations: v.dropped_unknown_file + v.dropped_missing_line,
    });
    decision_text(
        decision.verdict,
        decision.gate,
        &decision.gate_reasons,
        &decision.actions,
    )
}

/// One line per part of the decision, so a disagreement diffs line by line.
fn decision_text(verdict: Verdict, gate: Gate, reasons: &[String], actions: &[String]) -> String {
    let mut out = format!("verdict: {verdict}\ngate: {gate}\n");
    for reason in reasons {
        out.push_str(&format!("gate reason: {reason}\n"));
    }
    for action in actions {
        out.push_str(&format!("action: {action}\n"));
    }
    out
}
