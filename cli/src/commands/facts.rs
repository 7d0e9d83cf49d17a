//! `revu facts`: the facts document of a diff, as JSON.

use crate::error::CliError;
use revu_domain::diff::ReadError;
use revu_domain::facts::Facts;
use std::io::{BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The diff to read (`-` for standard input).
    #[arg(long)]
    diff: PathBuf,
    /// Indent the JSON. The default indents only on a terminal: a pipe gets
    /// one compact line, a third of the size on large changes.
    #[arg(long)]
    pretty: bool,
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    // The diff is streamed, never held whole: memory grows with the facts
    // (files, hunks, added-line numbers), not with the patch text.
    let facts = if args.diff.as_os_str() == "-" {
        Facts::read(std::io::stdin())
    } else {
        let file = std::fs::File::open(&args.diff)
            .map_err(|e| CliError::Input(format!("reading {}: {e}", args.diff.display())))?;
        Facts::read(file)
    };
    let facts = facts.map_err(|e| match e {
        ReadError::Io(e) => CliError::Input(format!("reading {}: {e}", args.diff.display())),
        ReadError::Diff(e) => CliError::Input(format!("invalid diff: {e}")),
    })?;
    let failed = |e: std::io::Error| CliError::Internal(format!("writing facts: {e}"));
    let stdout = std::io::stdout();
    let pretty = args.pretty || stdout.is_terminal();
    // Standard output flushes at every newline; buffer instead.
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let written = if pretty {
        serde_json::to_writer_pretty(&mut out, &facts)
    } else {
        serde_json::to_writer(&mut out, &facts)
    };
    written.map_err(|e| CliError::Internal(format!("writing facts: {e}")))?;
    writeln!(out).map_err(failed)?;
    out.flush().map_err(failed)?;
    Ok(ExitCode::SUCCESS)
}
