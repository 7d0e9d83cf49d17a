//! Why a `revu.toml` was rejected: the line, and what is wrong there.

use std::fmt;

/// Why a `revu.toml` was rejected. Every message names the line.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("revu.toml line {line}: {problem}")]
pub struct RepoConfigError {
    pub line: usize,
    pub problem: Problem,
}

/// What is wrong at the line.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Problem {
    /// TOML that does not parse, or does not have the file's shape (an
    /// unknown key, a value of the wrong type), in the parser's words.
    #[error("{}", Toml::said(error, seen))]
    Toml {
        error: toml::de::Error,
        /// What the parser stopped at, when its words do not quote it.
        seen: Option<String>,
    },
    #[error("grouping.max_slice_files must be at least 1")]
    NoSliceFiles,
    #[error("grouping.domain {name:?}: {why}")]
    DomainName { name: String, why: DomainName },
    #[error("grouping.domain {name:?} appears twice")]
    DomainTwice { name: String },
    #[error("grouping.domain {name:?} has no globs")]
    NoGlobs { name: String },
    #[error("grouping.domain {name:?}: {}", .error.kind())]
    Glob { name: String, error: globset::Error },
    #[error("grouping: {0}")]
    Grouping(crate::grouping::GroupingError),
    #[error(
        "ledger id {id:?} must look like MISS-012 (upper-case parts joined by \
         `-`; `RV-` is reserved for built-in rules)"
    )]
    LedgerId { id: String },
    #[error("ledger id {id} appears twice")]
    LedgerIdTwice { id: String },
    #[error("ledger {id}: pattern: {}", Pattern(error))]
    Pattern { id: String, error: regex::Error },
    #[error("ledger {id}: paths: {error}")]
    Paths { id: String, error: PathsError },
    #[error("ledger {id}: confidence is 0-100")]
    Confidence { id: String },
    #[error("ledger {id}: summary is empty")]
    NoSummary { id: String },
}

/// Why a domain name cannot be one: it becomes a lane id (`domain:NAME`,
/// split as `NAME#2`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum DomainName {
    #[error("name is empty")]
    Empty,
    #[error(
        "{:?} is the fallback domain and cannot have globs",
        crate::grouping::FALLBACK_DOMAIN
    )]
    Fallback,
    #[error("use letters, digits, `-`, `_` and `.` only")]
    Characters,
}

/// A ledger entry's `paths` that do not compile.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathsError {
    /// One glob, said by the kind of its error (whose text repeats it).
    #[error("glob {glob:?}: {}", .error.kind())]
    Glob { glob: String, error: globset::Error },
    #[error(transparent)]
    Set(globset::Error),
}

/// The parser's words for a TOML error, on one line.
struct Toml;

impl Toml {
    fn said(error: &toml::de::Error, seen: &Option<String>) -> String {
        let message = error.message().trim_end();
        match seen {
            Some(seen) => format!("{message}: `{seen}`"),
            None => message.to_owned(),
        }
    }
}

/// A regex error on one line: a syntax error's display spans lines (the
/// pattern, a caret), and its last line says what.
struct Pattern<'a>(&'a regex::Error);

impl fmt::Display for Pattern<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            regex::Error::Syntax(text) => f.write_str(
                text.lines()
                    .last()
                    .unwrap_or_default()
                    .trim_start_matches("error: "),
            ),
            other => other.fmt(f),
        }
    }
}
