//! Where the intent of a change came from: the author's words on the
//! command line or in a file, the pull or merge request a CI job runs for,
//! the messages of the reviewed commits. The client gathers them; the
//! report names the sources, so that a reader knows what the lanes were
//! told the change is for.

use serde::{Deserialize, Serialize};

/// One source of a review's intent, in the order the client joins them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IntentSource {
    /// `--intent TEXT`, or the `intent` of a `revu eval corpus` case.
    Flag,
    /// `--intent-file FILE`.
    File,
    /// The pull request of a GitHub Actions run: its title and body.
    Github,
    /// The merge request of a GitLab CI pipeline: its title and description.
    Gitlab,
    /// The messages of the commits under review.
    Commits,
}

impl IntentSource {
    pub const ALL: [IntentSource; 5] = [
        IntentSource::Flag,
        IntentSource::File,
        IntentSource::Github,
        IntentSource::Gitlab,
        IntentSource::Commits,
    ];

    /// The name the report and the wire give it.
    pub fn as_str(self) -> &'static str {
        match self {
            IntentSource::Flag => "flag",
            IntentSource::File => "file",
            IntentSource::Github => "github",
            IntentSource::Gitlab => "gitlab",
            IntentSource::Commits => "commits",
        }
    }

    pub fn parse(s: &str) -> Option<IntentSource> {
        IntentSource::ALL.into_iter().find(|x| x.as_str() == s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_serde_names_and_parse_back() {
        for source in IntentSource::ALL {
            let json = serde_json::to_string(&source).unwrap_or_default();
            assert_eq!(json, format!("\"{}\"", source.as_str()));
            assert_eq!(IntentSource::parse(source.as_str()), Some(source));
        }
        assert_eq!(IntentSource::parse("ci"), None);
    }
}
