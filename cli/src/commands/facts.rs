//! `revu facts`: the facts document of a diff, as JSON.

use crate::error::CliError;
use crate::input::read_diff;
use revu_common::facts::Facts;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The diff to read (`-` for standard input).
    #[arg(long)]
    diff: PathBuf,
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    // One buffer for the whole input; the scan keeps no line text, so
    // memory stays close to the size of the diff however large it is.
    let bytes = read_diff(&args.diff)?;
    let facts = Facts::scan(&bytes).map_err(|e| CliError::Input(format!("invalid diff: {e}")))?;
    drop(bytes);
    let failed = |e: std::io::Error| CliError::Internal(format!("writing facts: {e}"));
    // Standard output flushes at every newline; pretty JSON of a large
    // change has millions of them.
    let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    serde_json::to_writer_pretty(&mut out, &facts)
        .map_err(|e| CliError::Internal(format!("writing facts: {e}")))?;
    writeln!(out).map_err(failed)?;
    out.flush().map_err(failed)?;
    Ok(ExitCode::SUCCESS)
}
