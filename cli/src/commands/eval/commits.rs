//! Which commits `revu eval history` reviews: the last N of HEAD, a list
//! of revisions, or a range, oldest first, each resolved to a commit id
//! with its short id and subject.

use crate::error::CliError;
use crate::input::read_input;
use crate::source::{GitError, git_text, revision, work_tree};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// What the run was asked to review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Selection {
    /// The last N commits of HEAD.
    Last(usize),
    /// The revisions listed in a file (`-`: standard input).
    Commits(PathBuf),
    /// The commits of `A..B`.
    Range(String),
}

/// One commit to review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Commit {
    pub sha: String,
    pub short: String,
    pub subject: String,
}

/// The top of the work tree at `repo`; exit 2 when it is none.
pub fn repository(repo: &Path) -> Result<PathBuf, CliError> {
    if !repo.is_dir() {
        return Err(CliError::Input(format!(
            "{}: not a directory (give the path of a git work tree)",
            repo.display()
        )));
    }
    work_tree(repo).map_err(|_| {
        CliError::Input(format!(
            "{}: not a git work tree (give the path of a clone of the repository to evaluate)",
            repo.display()
        ))
    })
}

/// The commits `selection` names in the work tree at `top`, oldest first
/// (a list keeps its own order, each commit once); `first_parent` walks
/// only the first parent of each merge.
pub fn select(
    top: &Path,
    selection: &Selection,
    first_parent: bool,
) -> Result<Vec<Commit>, CliError> {
    let walk = |limit: Option<usize>, what: &str| -> Vec<String> {
        let mut args = vec!["--reverse".to_owned()];
        if first_parent {
            args.push("--first-parent".to_owned());
        }
        if let Some(n) = limit {
            args.push(format!("--max-count={n}"));
        }
        args.push(what.to_owned());
        args
    };
    let args = match selection {
        Selection::Last(0) => return Err(CliError::Input("--last: give 1 or more".into())),
        Selection::Last(n) => {
            revision(top, "HEAD").map_err(|_| {
                CliError::Input(format!("{}: no commit yet to review", top.display()))
            })?;
            walk(Some(*n), "HEAD")
        }
        Selection::Range(range) => {
            if range.starts_with('-') || !range.contains("..") {
                return Err(CliError::Input(format!(
                    "--range {range}: give two revisions as A..B"
                )));
            }
            walk(None, range)
        }
        Selection::Commits(file) => {
            let shas = listed(top, file)?;
            if shas.is_empty() {
                return Ok(Vec::new());
            }
            let mut args = vec!["--no-walk=unsorted".to_owned()];
            args.extend(shas);
            args
        }
    };
    log(top, &args).map_err(|why| match (selection, &why) {
        // git refused the range the user wrote.
        (Selection::Range(range), GitError::Failed { .. }) => {
            CliError::Input(format!("--range {range}: {why}"))
        }
        _ => CliError::Internal(format!("listing the commits: {why}")),
    })
}

/// The commit ids of the revisions `file` lists, in its order, each once.
fn listed(top: &Path, file: &Path) -> Result<Vec<String>, CliError> {
    let bytes =
        read_input(file, "the commits").map_err(|e| CliError::Input(format!("--commits: {e}")))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| CliError::Input(format!("--commits {}: not UTF-8 text", file.display())))?;
    let mut shas: Vec<String> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let rev = line.trim();
        if rev.is_empty() || rev.starts_with('#') {
            continue;
        }
        let sha = revision(top, rev)
            .map_err(|e| CliError::Input(format!("--commits {}:{}: {e}", file.display(), n + 1)))?;
        if !shas.contains(&sha) {
            shas.push(sha);
        }
    }
    Ok(shas)
}

/// `git log ARGS`, one commit a line: its id, short id and subject.
fn log(top: &Path, args: &[String]) -> Result<Vec<Commit>, GitError> {
    let mut all = vec![
        "-c",
        "log.showSignature=false",
        "log",
        "--no-color",
        "--format=%H%x00%h%x00%s",
    ];
    all.extend(args.iter().map(String::as_str));
    all.push("--");
    let text = git_text(top, &all)?;
    Ok(text
        .lines()
        .filter_map(|line| {
            let mut parts = line.splitn(3, '\0');
            let sha = parts.next()?.trim();
            (!sha.is_empty()).then(|| Commit {
                sha: sha.to_owned(),
                short: parts.next().unwrap_or(sha).to_owned(),
                subject: parts.next().unwrap_or_default().to_owned(),
            })
        })
        .collect())
}
