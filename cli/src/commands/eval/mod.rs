//! `revu eval`: measure the reviewer before gating on it. `history`
//! reviews a repository's merged commits as CI would and reports what the
//! gate would have done; `corpus` scores it on labelled cases. Both take
//! every flag of a review in this process, so any configuration can be
//! judged before it is turned on. `docs/eval.md` has the formats.

mod backtest;
mod bar;
mod cases;
mod commits;
mod corpus;
mod history;
mod marked;
mod render_corpus;
mod render_history;
mod scoring;

use crate::error::CliError;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    mode: Mode,
}

#[derive(Debug, clap::Subcommand)]
enum Mode {
    /// Review each merged commit of a git repository as CI would, and
    /// report what gating on revu would have done.
    History(Box<history::Args>),
    /// Score the reviewer on a labelled corpus: recall, precision, traps
    /// hit, citations off.
    Corpus(Box<corpus::Args>),
}

/// Output formats of `revu eval`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Markdown, for people.
    Md,
    /// JSON, for scripts (`docs/eval.md` has its shape).
    Json,
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    match args.mode {
        Mode::History(args) => history::run(*args),
        Mode::Corpus(args) => corpus::run(*args),
    }
}

/// `value` as indented JSON, with a final newline.
fn json<T: serde::Serialize>(value: &T) -> Result<String, CliError> {
    serde_json::to_string_pretty(value)
        .map(|mut text| {
            text.push('\n');
            text
        })
        .map_err(|e| CliError::Internal(format!("writing the JSON: {e}")))
}

/// `n noun`, or `n nouns`.
fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
