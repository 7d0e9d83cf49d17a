//! Where the change to review comes from: a diff file (`--diff`), or the
//! git work tree revu runs in.
//!
//! In a work tree, without flags: the staged change, else the unstaged
//! one, else the last commit. `--staged`, `--worktree`, `--commit REV` and
//! `--base REV` (the branch against its merge base with REV, what a pull
//! request shows) choose; paths after `--` narrow it. revu runs git itself
//! with every setting that shapes a diff given on the command line (no
//! colour, no external diff or textconv, renames found, full index, `a/`
//! and `b/` prefixes, three lines of context), so a user's git config
//! cannot change what it reads.

use crate::error::CliError;
use crate::head::HeadOf;
use crate::input::read_diff;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The hash of git's empty tree: the "parent" of a root commit.
const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

#[derive(Debug, Clone, Default, clap::Args)]
pub struct Source {
    /// The diff to review (`-` for standard input) [default: the change in
    /// the git work tree here: staged, else unstaged, else the last commit].
    #[arg(long, conflicts_with_all = ["base", "commit", "staged", "worktree", "paths"])]
    pub diff: Option<PathBuf>,
    /// Review the branch against its merge base with REV (what a pull
    /// request shows).
    #[arg(long, value_name = "REV", conflicts_with_all = ["commit", "staged", "worktree"])]
    pub base: Option<String>,
    /// Review one commit (against its first parent).
    #[arg(long, value_name = "REV", conflicts_with_all = ["staged", "worktree"])]
    pub commit: Option<String>,
    /// Review the staged change.
    #[arg(long, conflicts_with = "worktree")]
    pub staged: bool,
    /// Review the unstaged change in the work tree.
    #[arg(long)]
    pub worktree: bool,
    /// Paths that narrow the change (after `--`).
    #[arg(last = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
}

/// The flags that say what change to review and what travels with it.
#[derive(Debug, Clone, clap::Args)]
pub struct ChangeArgs {
    #[command(flatten)]
    pub source: Source,
    #[command(flatten)]
    pub head_limits: crate::head::HeadLimits,
    #[command(flatten)]
    pub index: crate::code_index::IndexArgs,
}

/// The change to review, and the work tree it came from (when it did).
#[derive(Debug)]
pub struct Change {
    pub diff: Vec<u8>,
    pub work_tree: Option<PathBuf>,
    /// Where the head side of a git change lives.
    pub head_of: Option<HeadOf>,
    /// Where its base side lives, as a `git cat-file` prefix: a commit, or
    /// empty for the index (none for a root commit or a first commit).
    pub base_rev: Option<String>,
    /// The diff is all that differs between its two sides: no paths
    /// narrowed it.
    pub whole: bool,
}

/// What git is asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Range {
    Staged,
    Worktree,
    Commits { from: String, to: String },
}

impl Change {
    /// A change given as a diff alone: no work tree, no head contents.
    pub fn of_diff(diff: Vec<u8>) -> Change {
        Change {
            diff,
            work_tree: None,
            head_of: None,
            base_rev: None,
            whole: false,
        }
    }
}

impl Source {
    /// Reads the change: the diff file, or what git shows of the work tree
    /// in the current directory.
    pub fn read(&self) -> Result<Change, CliError> {
        self.read_in(Path::new("."))
    }

    /// [`Source::read`] in the work tree holding `dir`.
    pub fn read_in(&self, dir: &Path) -> Result<Change, CliError> {
        if let Some(path) = &self.diff {
            return Ok(Change::of_diff(read_diff(path)?));
        }
        let top = work_tree(dir)?;
        let (diff, range, what) = self.git_change(&top)?;
        if diff.is_empty() {
            return Err(CliError::Empty(format!(
                "nothing to review: {what} is empty"
            )));
        }
        let (head_of, base_rev) = match range {
            Range::Staged => (HeadOf::Index, revision(&top, "HEAD").ok()),
            Range::Worktree => (HeadOf::WorkTree, Some(String::new())),
            Range::Commits { from, to } => {
                (HeadOf::Commit(to), Some(from).filter(|f| f != EMPTY_TREE))
            }
        };
        Ok(Change {
            diff,
            work_tree: Some(top),
            head_of: Some(head_of),
            base_rev,
            whole: self.paths.is_empty(),
        })
    }

    /// The diff the flags ask for, its range, and how to name it in an
    /// error.
    fn git_change(&self, top: &Path) -> Result<(Vec<u8>, Range, String), CliError> {
        let diff = |range: Range| Ok::<_, CliError>((git_diff(top, &range, &self.paths)?, range));
        if let Some(base) = &self.base {
            let rev = revision(top, base)?;
            let merge_base = git_text(top, &["merge-base", &rev, "HEAD"]).map_err(|e| {
                CliError::Input(format!("--base {base}: no merge base with HEAD: {e}"))
            })?;
            let range = Range::Commits {
                from: merge_base,
                to: "HEAD".to_owned(),
            };
            let (found, range) = diff(range)?;
            return Ok((
                found,
                range,
                format!("the change since the merge base with {base}"),
            ));
        }
        if let Some(commit) = &self.commit {
            let to = revision(top, commit)?;
            let range = Range::Commits {
                from: parent(top, &to),
                to,
            };
            let (found, range) = diff(range)?;
            return Ok((found, range, format!("commit {commit}")));
        }
        if self.staged {
            let (found, range) = diff(Range::Staged)?;
            return Ok((found, range, "the staged change".to_owned()));
        }
        if self.worktree {
            let (found, range) = diff(Range::Worktree)?;
            return Ok((found, range, "the unstaged change".to_owned()));
        }
        // Neither chosen: the first of these that has something.
        for (range, what) in [
            (Range::Staged, "the staged change"),
            (Range::Worktree, "the unstaged change"),
        ] {
            let (found, range) = diff(range)?;
            if !found.is_empty() {
                return Ok((found, range, what.to_owned()));
            }
        }
        let head = revision(top, "HEAD").map_err(|_| {
            CliError::Input("nothing to review: no change and no commit yet".into())
        })?;
        let range = Range::Commits {
            from: parent(top, &head),
            to: head,
        };
        let (found, range) = diff(range)?;
        Ok((found, range, "the last commit".to_owned()))
    }
}

/// The top of the work tree holding `dir`; exit 2 outside one.
pub(crate) fn work_tree(dir: &Path) -> Result<PathBuf, CliError> {
    git_text(dir, &["rev-parse", "--show-toplevel"])
        .map(PathBuf::from)
        .map_err(|e| {
            CliError::Input(format!(
                "not inside a git work tree ({e}): give --diff FILE, or run revu in a repository"
            ))
        })
}

/// `rev` as a commit id; exit 2 with git's reason when it names none.
pub(crate) fn revision(top: &Path, rev: &str) -> Result<String, CliError> {
    let bad = || CliError::Input(format!("bad revision `{rev}`: it names no commit here"));
    // Never an option to git.
    if rev.starts_with('-') {
        return Err(bad());
    }
    git_text(
        top,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ],
    )
    .map_err(|_| bad())
}

/// The first parent of `commit`, or the empty tree for a root commit.
fn parent(top: &Path, commit: &str) -> String {
    git_text(
        top,
        &["rev-parse", "--verify", "--quiet", &format!("{commit}^1")],
    )
    .unwrap_or_else(|_| EMPTY_TREE.to_owned())
}

/// git with the settings that shape its output pinned, in `dir`.
pub(crate) fn git(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir)
        .env("LC_ALL", "C")
        .env_remove("GIT_EXTERNAL_DIFF")
        .env_remove("GIT_DIFF_OPTS")
        .args(["-c", "core.quotePath=true", "-c", "color.ui=never"])
        .args(["--no-pager"]);
    cmd
}

/// The diff of `range`, narrowed to `paths`.
fn git_diff(top: &Path, range: &Range, paths: &[PathBuf]) -> Result<Vec<u8>, CliError> {
    let mut cmd = git(top);
    cmd.arg("diff").args([
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        "--find-renames",
        "--full-index",
        "--unified=3",
        "--diff-algorithm=myers",
        "--no-relative",
        "--ignore-submodules=none",
        "--src-prefix=a/",
        "--dst-prefix=b/",
    ]);
    match range {
        Range::Staged => {
            cmd.arg("--cached");
        }
        Range::Worktree => {}
        Range::Commits { from, to } => {
            cmd.args([from, to]);
        }
    }
    cmd.arg("--").args(paths);
    let out = cmd.output().map_err(not_found)?;
    if !out.status.success() {
        return Err(CliError::Input(format!(
            "git diff: {}",
            first_line(&out.stderr)
        )));
    }
    Ok(out.stdout)
}

/// git could not answer.
#[derive(Debug, thiserror::Error)]
pub(crate) enum GitError {
    /// git did not run (not installed, say).
    #[error("running git: {0}")]
    Run(#[source] std::io::Error),
    /// git refused: the first line of what it said, or the command when
    /// it said nothing.
    #[error("{}", if .said.is_empty() { format!("git {} failed", .command) } else { .said.clone() })]
    Failed { command: String, said: String },
}

/// git's output, trimmed; `Err` with the first line of git's reason.
pub(crate) fn git_text(dir: &Path, args: &[&str]) -> Result<String, GitError> {
    let out = git(dir).args(args).output().map_err(GitError::Run)?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
    } else {
        Err(GitError::Failed {
            command: args.join(" "),
            said: first_line(&out.stderr),
        })
    }
}

fn not_found(e: std::io::Error) -> CliError {
    CliError::Input(format!(
        "running git: {e} (install git, or give --diff FILE)"
    ))
}

fn first_line(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .lines()
        .next()
        .unwrap_or("")
        .trim()
        .to_owned()
}
