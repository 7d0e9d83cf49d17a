//! `revu eval`: measure the reviewer before gating on it. `history`
//! reviews a repository's merged commits as CI would and reports what the
//! gate would have done; `corpus` scores it on labelled cases. Both take
//! every flag of a review in this process, so any configuration can be
//! judged before it is turned on. `docs/eval.md` has the formats.

mod backtest;
mod bar;
mod benchmark;
mod cases;
mod commits;
mod corpus;
mod history;
mod judge;
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

/// Prints `value` in `format`: rendered by `markdown` for people, or as
/// it serializes (indented) for scripts.
fn emit<T: serde::Serialize>(
    format: Format,
    value: &T,
    markdown: fn(&T) -> String,
) -> Result<(), CliError> {
    let text = match format {
        Format::Md => markdown(value),
        Format::Json => serde_json::to_string_pretty(value)
            .map(|text| text + "\n")
            .map_err(|e| CliError::Internal(format!("writing the JSON: {e}")))?,
    };
    crate::output::print(&text)
}

/// `n noun`, or `n nouns`.
fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// `text` cut to at most `most` characters, an ellipsis marking the cut.
fn cut(text: &str, most: usize) -> String {
    if text.chars().count() <= most {
        return text.to_owned();
    }
    text.chars()
        .take(most.saturating_sub(1))
        .chain(['…'])
        .collect()
}
