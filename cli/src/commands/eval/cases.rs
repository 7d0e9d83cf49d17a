//! Case files of a corpus: `case.toml` or `*.case.toml`, each one change
//! (a diff, or a commit of a repository) and what its review should and
//! should not report. `docs/eval.md` has the format.

use super::scoring::{Expectation, Expected, Lines, Trap};
use crate::error::CliError;
use revu_domain::finding::Severity;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// Whether a file of this name is a case file.
pub fn is_case_file(name: &str) -> bool {
    name == "case.toml" || name.ends_with(".case.toml")
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseFile {
    description: Option<String>,
    diff: Option<PathBuf>,
    repo: Option<PathBuf>,
    commit: Option<String>,
    intent: Option<String>,
    window: Option<u32>,
    #[serde(default)]
    expect: Vec<ExpectEntry>,
    #[serde(default)]
    trap: Vec<TrapEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpectEntry {
    file: Option<String>,
    line: Option<u32>,
    lines: Option<[u32; 2]>,
    severity: Option<Severity>,
    rule: Option<String>,
    class: Option<String>,
    description: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TrapEntry {
    file: String,
    line: Option<u32>,
    lines: Option<[u32; 2]>,
    rule: Option<String>,
}

/// Where a case's change comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CaseChange {
    /// A diff file, reviewed as `revu review --diff` reviews it.
    Diff(PathBuf),
    /// A commit of a repository, reviewed as `revu review --commit` in it.
    Commit { repo: PathBuf, commit: String },
}

/// One case, read and checked.
#[derive(Debug, Clone)]
pub struct Case {
    /// The case file's path relative to the corpus.
    pub name: String,
    pub description: Option<String>,
    pub change: CaseChange,
    pub intent: String,
    /// The case's own line window, when it sets one.
    pub window: Option<u32>,
    pub expected: Expected,
}

impl Case {
    /// Reads the case file at `path`, named `name` in the corpus.
    pub fn read(path: &Path, name: String) -> Result<Case, CliError> {
        let bad = |message: String| CliError::Input(format!("{}: {message}", path.display()));
        let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
        let file: CaseFile = toml::from_str(&text).map_err(|e| {
            let line = e
                .span()
                .map(|span| 1 + text[..span.start.min(text.len())].matches('\n').count());
            let message = e.message().trim().to_owned();
            match line {
                Some(line) => CliError::Input(format!("{}:{line}: {message}", path.display())),
                None => bad(message),
            }
        })?;
        let here = path.parent().unwrap_or(Path::new("."));
        let change = match (file.diff, file.repo, file.commit) {
            (Some(diff), None, None) => CaseChange::Diff(here.join(diff)),
            (None, Some(repo), Some(commit)) => CaseChange::Commit {
                repo: here.join(repo),
                commit,
            },
            (Some(_), _, _) => {
                return Err(bad("give either diff or repo and commit, not both".into()));
            }
            _ => {
                return Err(bad(
                    "give the change to review: diff = \"FILE\", or repo = \"DIR\" and commit = \"REV\""
                        .into(),
                ));
            }
        };
        let range = |what: &str, n: usize, line, lines_| {
            lines(line, lines_).map_err(|why| bad(format!("{what} #{}: {why}", n + 1)))
        };
        let mut expected = Expected::default();
        for (n, e) in file.expect.into_iter().enumerate() {
            let lines = match (e.line, e.lines) {
                (None, None) => None,
                (line, lines_) => Some(range("expect", n, line, lines_)?),
            };
            if lines.is_some() && e.file.is_none() {
                return Err(bad(format!(
                    "expect #{}: a line is in a file: give file = \"PATH\"",
                    n + 1
                )));
            }
            let expectation = Expectation {
                lines,
                file: e.file,
                severity: e.severity,
                rule: e.rule,
                class: e.class,
                id: None,
                description: e.description,
                golden_severity: None,
            };
            if expectation.needs_judge() && expectation.description.is_none() {
                return Err(bad(format!(
                    "expect #{}: give line, lines, rule, class or description",
                    n + 1
                )));
            }
            expected.expectations.push(expectation);
        }
        for (n, t) in file.trap.into_iter().enumerate() {
            expected.traps.push(Trap {
                lines: range("trap", n, t.line, t.lines)?,
                file: t.file,
                rule: t.rule,
                id: None,
            });
        }
        Ok(Case {
            name,
            description: file.description,
            change,
            intent: file.intent.unwrap_or_default(),
            window: file.window,
            expected,
        })
    }

    /// The files the case names inside the corpus, which are not marked
    /// sources: its diff, or its repository's whole tree.
    pub fn names(&self) -> &Path {
        match &self.change {
            CaseChange::Diff(path) => path,
            CaseChange::Commit { repo, .. } => repo,
        }
    }
}

/// The settings of a whole corpus: `corpus.toml` at its top, optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorpusFile {
    /// Lines either side of an expectation's range that still match,
    /// unless a case sets its own.
    pub window: Option<u32>,
}

/// The name of the corpus's settings file.
pub const CORPUS_FILE: &str = "corpus.toml";

impl CorpusFile {
    /// `corpus.toml` in `dir`, or the defaults when there is none.
    pub fn read(dir: &Path) -> Result<CorpusFile, CliError> {
        let path = dir.join(CORPUS_FILE);
        if !path.is_file() {
            return Ok(CorpusFile::default());
        }
        let bad = |m: String| CliError::Input(format!("{}: {m}", path.display()));
        let text = std::fs::read_to_string(&path).map_err(|e| bad(e.to_string()))?;
        toml::from_str(&text).map_err(|e| bad(e.message().trim().to_owned()))
    }
}

/// An expectation's lines that are no range of lines.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum BadLines {
    /// Both `line` and `lines`, or neither.
    #[error("give line = N or lines = [FIRST, LAST]")]
    NotOne,
    #[error("lines = [{first}, {last}] is not a range of lines (from 1, first to last)")]
    NotRange { first: u32, last: u32 },
}

fn lines(line: Option<u32>, lines: Option<[u32; 2]>) -> Result<Lines, BadLines> {
    let (first, last) = match (line, lines) {
        (Some(l), None) => (l, l),
        (None, Some([first, last])) => (first, last),
        _ => return Err(BadLines::NotOne),
    };
    if first == 0 || last < first {
        return Err(BadLines::NotRange { first, last });
    }
    Ok(Lines { first, last })
}
