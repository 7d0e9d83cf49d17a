//! `revu facts`: the facts document of a diff, as JSON.

use crate::error::CliError;
use crate::input::read_diff;
use revu_common::diff;
use revu_common::facts::Facts;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The diff to read (`-` for standard input).
    #[arg(long)]
    diff: PathBuf,
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let bytes = read_diff(&args.diff)?;
    let parsed = diff::parse(&bytes).map_err(|e| CliError::Input(format!("invalid diff: {e}")))?;
    let facts = Facts::from_diff(&parsed);
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, &facts)
        .map_err(|e| CliError::Internal(format!("writing facts: {e}")))?;
    writeln!(out).map_err(|e| CliError::Internal(format!("writing facts: {e}")))?;
    Ok(ExitCode::SUCCESS)
}
