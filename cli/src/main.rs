//! `revu`: review a diff in one process, submit it to a coordinator, print
//! its facts or the built-in rules, or measure the reviewer (`revu eval`).
//!
//! Exit codes: 0 MERGE-READY, 1 NEEDS-HUMAN (or, with `--fail-on`, a
//! finding at or above the threshold or a lane that did not complete; for
//! `revu verdict`, a verdict that does not replay), 2 usage or input error,
//! 3 service unavailable or internal failure.

mod blobs;
mod code_index;
mod commands;
mod credentials;
mod embedded;
mod error;
mod follow;
mod head;
mod index_cache;
mod index_tree;
mod input;
mod intent;
mod output;
mod progress;
mod repo_files;
mod reviewer;
mod shared_index;
mod source;
#[cfg(test)]
mod test_reports;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Debug, Parser)]
#[command(
    name = "revu",
    version,
    about = "Code review that is never silently incomplete"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Review a diff in this process: no servers, no Redis.
    Review(Box<commands::review::Args>),
    /// Submit a diff to a coordinator and print its report.
    Submit(Box<commands::submit::Args>),
    /// Print the facts of a diff as JSON.
    Facts(commands::facts::Args),
    /// Print the code index of a git change as JSON (`--stats`: its cost).
    Index(Box<commands::index::Args>),
    /// Render a canonical report JSON as md, sarif, rdjson or json.
    Render(commands::render::Args),
    /// Recompute a report's verdict from the report alone and check it agrees.
    Verdict(commands::verdict::Args),
    /// Print the JSON Schema of the canonical report.
    Schema(commands::schema::Args),
    /// Print the built-in rules: one line each, or one rule in full.
    Rules(commands::rules::Args),
    /// Load a running fleet with synthetic reviews and measure it.
    Bench(Box<commands::bench::Args>),
    /// Measure the reviewer before gating on it: on a repository's history,
    /// or on a labelled corpus.
    Eval(commands::eval::Args),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let result = match cli.command {
        Command::Review(args) => commands::review::run(*args),
        Command::Submit(args) => commands::submit::run(*args),
        Command::Facts(args) => commands::facts::run(args),
        Command::Index(args) => commands::index::run(*args),
        Command::Render(args) => commands::render::run(args),
        Command::Bench(args) => commands::bench::run(*args),
        Command::Verdict(args) => commands::verdict::run(args),
        Command::Schema(args) => commands::schema::run(args),
        Command::Rules(args) => commands::rules::run(args),
        Command::Eval(args) => commands::eval::run(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("revu: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
