//! `revu review`: the whole pipeline in this process.

use crate::error::CliError;
use crate::intent::{IntentArgs, process_env};
use crate::output::{FailOn, Format, emit, emit_report};
use crate::repo_files::RepoFiles;
use crate::reviewer::{ReviewOptions, Reviewer};
use crate::source::Source;
use revu_coordinator::service::APART_MIN_BYTES;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    source: Source,
    #[command(flatten)]
    options: ReviewOptions,
    /// Report format.
    #[arg(long, value_enum, default_value = "md")]
    format: Format,
    /// Exit 1 iff a finding counts at or above this severity or a lane did
    /// not complete (`never`: always 0); without it the gate decides.
    #[arg(long, value_enum)]
    fail_on: Option<FailOn>,
    #[command(flatten)]
    intent: IntentArgs,
    /// Repository root holding REVIEW.md and revu.toml [default: the current
    /// directory].
    #[arg(long)]
    repo: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    // Settings and engines first: a bad flag is refused before git and the
    // index run.
    let reviewer = Reviewer::new(&args.options)?;
    let change = args.source.read()?;
    // In a work tree, REVIEW.md and revu.toml come from its top.
    let repo = RepoFiles::read(args.repo.as_deref().or(change.work_tree.as_deref()))?;
    let intent = args.intent.gather(&change, &process_env)?;
    let prepared = args.options.prepare(change, repo, intent)?;
    prepared.say_left_out();
    let submission = prepared.submission;
    let large = submission.diff.len() >= APART_MIN_BYTES;
    let finished = reviewer.review(submission)?;
    let code = match &finished.report {
        Some(report) => emit_report(report, &finished.json, args.format, args.fail_on),
        None => emit(&finished.json, args.format, args.fail_on),
    };
    // A large review's report and the runtime's threads take milliseconds
    // to free, and the process is about to exit: that happens on a thread
    // of its own, which the exit ends.
    if large {
        let _ = std::thread::Builder::new()
            .name("revu-free".into())
            .spawn(move || drop((finished, reviewer)));
    }
    code
}
