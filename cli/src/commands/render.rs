//! `revu render`: a canonical report in another format, from the JSON
//! artifact alone.

use super::schema::load_report;
use crate::error::CliError;
use crate::output::{Format, print, render};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The canonical report JSON (`-` for standard input).
    report: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value = "md")]
    format: Format,
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let report = load_report(&args.report)?;
    print(&render(&report, args.format))?;
    Ok(ExitCode::SUCCESS)
}
