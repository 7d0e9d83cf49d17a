//! `revu review`: the whole pipeline in this process.

use crate::embedded;
use crate::error::CliError;
use crate::input::read_diff;
use crate::output::{Format, emit};
use revu_common::report::Rigor;
use revu_coordinator::config::ReviewSettings;
use revu_coordinator::service::Submission;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The diff to review (`-` for standard input).
    #[arg(long)]
    diff: PathBuf,
    /// Report format.
    #[arg(long, value_enum, default_value = "md")]
    format: Format,
    /// Review rigor: poc, prototype or production.
    #[arg(long, value_parser = parse_rigor)]
    rigor: Option<Rigor>,
    /// What the change is meant to do.
    #[arg(long, default_value = "")]
    intent: String,
    /// Lanes run at once.
    #[arg(long, default_value_t = 4)]
    workers: usize,
}

pub(crate) fn parse_rigor(s: &str) -> Result<Rigor, String> {
    Rigor::parse(s)
        .ok_or_else(|| format!("unknown rigor {s:?}; expected poc, prototype or production"))
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let diff = read_diff(&args.diff)?;
    let submission = Submission {
        diff,
        intent: args.intent,
        rigor: args.rigor,
        ..Submission::default()
    };
    let runtime = tokio::runtime::Runtime::new()
        .map_err(|e| CliError::Internal(format!("starting the runtime: {e}")))?;
    let report = runtime.block_on(embedded::review(
        submission,
        ReviewSettings::default(),
        args.workers.max(1),
    ))?;
    emit(&report, args.format)
}
