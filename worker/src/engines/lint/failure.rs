//! Why a linter gave no problems to report, for the lane's checks line.

use crate::engines::exec::ReportError;
use std::path::PathBuf;
use std::time::Duration;

/// Why one tool's problems are not known.
#[derive(Debug, thiserror::Error)]
pub(super) enum ToolFailure {
    #[error("could not start: {0}")]
    Start(#[source] std::io::Error),
    #[error("failed: {0}")]
    Wait(#[source] std::io::Error),
    #[error("timed out after {} s and was killed", .0.as_secs())]
    Timeout(Duration),
    /// An exit the tool does not use for "problems found"; the last line
    /// of its stderr, when it wrote one.
    #[error("{}", exit(*.code, .tail))]
    Exit { code: Option<i32>, tail: String },
    #[error(transparent)]
    Report(#[from] ReportError),
    #[error("unreadable output ({0})")]
    Output(#[from] NotJson),
}

/// A tool's output that should be JSON and is not.
#[derive(Debug, thiserror::Error)]
#[error("output is not JSON: {0}")]
pub(crate) struct NotJson(#[source] pub serde_json::Error);

/// The lane's files could not be written out for the linters.
#[derive(Debug, thiserror::Error)]
pub(super) enum ScratchError {
    #[error("creating {path}: {source}")]
    Create {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("writing {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// How a tool ended, as the checks line says it.
fn exit(code: Option<i32>, tail: &str) -> String {
    let how = match code {
        Some(c) => format!("failed (exit {c})"),
        None => "was killed by a signal".to_owned(),
    };
    if tail.is_empty() {
        how
    } else {
        format!("{how}: {tail}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exit_says_how_and_the_last_words_when_there_are_some() {
        let exit = |code, tail: &str| {
            ToolFailure::Exit {
                code,
                tail: tail.into(),
            }
            .to_string()
        };
        assert_eq!(exit(Some(2), ""), "failed (exit 2)");
        assert_eq!(exit(Some(2), "bad config"), "failed (exit 2): bad config");
        assert_eq!(exit(None, ""), "was killed by a signal");
    }
}
