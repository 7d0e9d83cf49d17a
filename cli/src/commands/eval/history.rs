//! `revu eval history`: each merged commit of a repository reviewed as CI
//! would review it (`revu review --commit SHA` in a checkout of it), and
//! what gating on revu would have done to them.
//!
//! A commit is reviewed against its first parent, with the head contents
//! and the code index of the repository at that commit and the
//! `REVIEW.md` and `revu.toml` it holds (read with git, not from the work
//! tree). One that cannot be reviewed is skipped with its reason; a
//! review that fails is listed with its error; the run goes on either
//! way.

use super::Format;
use super::backtest::{Asked, History, Outcome};
use super::bar::Bar;
use super::commits::{self, Commit, Selection};
use super::render_history;
use crate::error::CliError;
use crate::intent::AutoIntent;
use crate::repo_files::RepoFiles;
use crate::reviewer::{ReviewOptions, Reviewer};
use crate::source::Source;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Commits reviewed when no selection is given.
const DEFAULT_LAST: usize = 50;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The git work tree whose history is reviewed.
    #[arg(value_name = "REPO", default_value = ".")]
    repo: PathBuf,
    /// Review the last N commits of HEAD [default: 50].
    #[arg(long, value_name = "N", conflicts_with_all = ["commits", "range"])]
    last: Option<usize>,
    /// Review the commits FILE lists, one revision a line (blank lines and
    /// `#` comments ignored; `-` for standard input), in its order.
    #[arg(long, value_name = "FILE", conflicts_with = "range")]
    commits: Option<PathBuf>,
    /// Review the commits of a range, as `git rev-list A..B` lists them.
    #[arg(long, value_name = "A..B")]
    range: Option<String>,
    /// Walk every commit, not only the first parent of each merge (a merge
    /// is still reviewed against its first parent).
    #[arg(long)]
    no_first_parent: bool,
    /// Output format: Markdown for people, JSON for scripts.
    #[arg(long, value_enum, default_value = "md")]
    format: Format,
    /// Also write each reviewed commit's canonical report JSON as
    /// `DIR/<commit id>.json`.
    #[arg(long, value_name = "DIR")]
    keep_reports: Option<PathBuf>,
    #[command(flatten)]
    auto_intent: AutoIntent,
    #[command(flatten)]
    review: ReviewOptions,
}

impl Args {
    fn selection(&self) -> Selection {
        match (&self.commits, &self.range) {
            (Some(file), _) => Selection::Commits(file.clone()),
            (None, Some(range)) => Selection::Range(range.clone()),
            (None, None) => Selection::Last(self.last.unwrap_or(DEFAULT_LAST)),
        }
    }
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let top = commits::repository(&args.repo)?;
    let selection = args.selection();
    let first_parent = !args.no_first_parent;
    let commits = commits::select(&top, &selection, first_parent)?;
    if let Some(dir) = &args.keep_reports {
        std::fs::create_dir_all(dir)
            .map_err(|e| CliError::Input(format!("--keep-reports {}: {e}", dir.display())))?;
    }
    let reviewer = Reviewer::new(&args.review)?;
    let asked = Asked {
        selection,
        first_parent,
        commits: commits.len(),
    };
    let mut history = History::new(top.display().to_string(), asked);
    let mut bar = Bar::stderr("commits", commits.len());
    for commit in &commits {
        bar.start(&format!("{} {}", commit.short, commit.subject));
        let started = Instant::now();
        let outcome = review_commit(&reviewer, &args, &top, commit)?;
        match &outcome {
            Outcome::Skipped(why) => bar.note(&format!(
                "skipped {} ({}): {why}",
                commit.short, commit.subject
            )),
            Outcome::Failed(why) => bar.note(&format!(
                "review of {} ({}) failed: {why}",
                commit.short, commit.subject
            )),
            Outcome::Reviewed(_) => {}
        }
        history.add(commit, outcome, started.elapsed());
        bar.advance();
    }
    bar.finish();
    history.finish();
    super::emit(args.format, &history, render_history::markdown)?;
    Ok(ExitCode::SUCCESS)
}

/// Reviews one commit the way `revu review --commit SHA` does. Only a
/// report that cannot be kept (`--keep-reports`) fails the run.
fn review_commit(
    reviewer: &Reviewer,
    args: &Args,
    top: &Path,
    commit: &Commit,
) -> Result<Outcome, CliError> {
    let source = Source {
        commit: Some(commit.sha.clone()),
        ..Source::default()
    };
    let prepared = source
        .read_in(top)
        .and_then(|change| {
            let repo = RepoFiles::at_commit(top, &commit.sha)?;
            let intent = args.auto_intent.for_eval("", &change);
            args.review.prepare(change, repo, intent)
        })
        .map_err(|e| match e {
            CliError::Empty(_) => "an empty change against its first parent".to_owned(),
            other => other.to_string(),
        });
    let prepared = match prepared {
        Ok(p) => p,
        Err(why) => return Ok(Outcome::Skipped(why)),
    };
    let finished = match reviewer.review(prepared.submission) {
        Ok(f) => f,
        // Refused as it stands (over a limit, not a diff revu reads).
        Err(CliError::Input(why)) => return Ok(Outcome::Skipped(why)),
        Err(e) => return Ok(Outcome::Failed(e.to_string())),
    };
    if let Some(dir) = &args.keep_reports {
        let path = dir.join(format!("{}.json", commit.sha));
        std::fs::write(&path, finished.json.as_bytes())
            .map_err(|e| CliError::Internal(format!("writing {}: {e}", path.display())))?;
    }
    let report = match finished.report {
        Some(report) => report,
        None => match serde_json::from_str(&finished.json) {
            Ok(report) => std::sync::Arc::new(report),
            Err(e) => return Ok(Outcome::Failed(format!("its report does not read: {e}"))),
        },
    };
    Ok(Outcome::Reviewed(report))
}
