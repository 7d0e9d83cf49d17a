//! The prompts an `llm` engine can send, built in or replaced by the
//! operator's files (`--llm-prompts DIR`).
//!
//! Every prompt has a stem (`review`, `security`, `domain`, …) and a
//! version. A built-in prompt's version is its file's name
//! (`security-v1`); a replaced one's is `<stem>@<hash>`, the first 12 hex
//! digits of the SHA-256 of its text, so that a lane's `checks` and the
//! lane result cache name exactly the text that ran. The set is read once
//! when the engine is set up and shared by its lanes.

use revu_domain::finding::Dimension;
use revu_domain::lane::LaneKind;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// One prompt of the engine, by what it is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptName {
    /// The system message of every review lane.
    Review,
    /// A specialist lane's task.
    Lane(Dimension),
    /// A domain slice lane's task.
    Domain,
    Adjudicate,
    /// A challenge lane's system message: disprove one BLOCKER.
    Challenge,
    Group,
    Synthesize,
}

impl PromptName {
    /// Every prompt, in a fixed order (the order of [`PromptSet::identity`]).
    pub const ALL: [PromptName; 12] = [
        PromptName::Review,
        PromptName::Lane(Dimension::Correctness),
        PromptName::Lane(Dimension::Security),
        PromptName::Lane(Dimension::Performance),
        PromptName::Lane(Dimension::Design),
        PromptName::Lane(Dimension::Testing),
        PromptName::Lane(Dimension::Operability),
        PromptName::Domain,
        PromptName::Adjudicate,
        PromptName::Challenge,
        PromptName::Group,
        PromptName::Synthesize,
    ];

    /// The name without a version: `<stem>.md` in an override directory.
    pub fn stem(self) -> &'static str {
        match self {
            PromptName::Review => "review",
            PromptName::Lane(dimension) => dimension.as_str(),
            PromptName::Domain => "domain",
            PromptName::Adjudicate => "adjudicate",
            PromptName::Challenge => "challenge",
            PromptName::Group => "group",
            PromptName::Synthesize => "synthesize",
        }
    }

    /// The built-in prompt: its version and its text.
    fn builtin(self) -> (&'static str, &'static str) {
        macro_rules! file {
            ($version:literal) => {
                (
                    $version,
                    include_str!(concat!("../../../prompts/", $version, ".md")),
                )
            };
            (lane $version:literal) => {
                (
                    $version,
                    include_str!(concat!("../../../prompts/lanes/", $version, ".md")),
                )
            };
        }
        match self {
            PromptName::Review => file!("review-v3"),
            PromptName::Lane(Dimension::Correctness) => file!(lane "correctness-v1"),
            PromptName::Lane(Dimension::Security) => file!(lane "security-v1"),
            PromptName::Lane(Dimension::Performance) => file!(lane "performance-v1"),
            PromptName::Lane(Dimension::Design) => file!(lane "design-v1"),
            PromptName::Lane(Dimension::Testing) => file!(lane "testing-v1"),
            PromptName::Lane(Dimension::Operability) => file!(lane "operability-v1"),
            PromptName::Domain => file!(lane "domain-v1"),
            PromptName::Adjudicate => file!("adjudicate-v2"),
            PromptName::Challenge => file!("challenge-v1"),
            PromptName::Group => file!("group-v1"),
            PromptName::Synthesize => file!("synthesize-v1"),
        }
    }

    fn index(self) -> usize {
        Self::ALL.iter().position(|n| *n == self).unwrap_or(0)
    }

    /// The file names an override directory may hold.
    pub fn accepted() -> String {
        Self::ALL
            .iter()
            .map(|n| format!("{}.md", n.stem()))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// One prompt's text and the version that names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptText {
    pub version: String,
    pub text: String,
}

/// The text of every prompt an engine can send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptSet {
    prompts: Vec<PromptText>,
}

impl Default for PromptSet {
    /// The built-in prompts.
    fn default() -> Self {
        PromptSet {
            prompts: PromptName::ALL
                .iter()
                .map(|name| {
                    let (version, text) = name.builtin();
                    PromptText {
                        version: version.to_owned(),
                        text: text.to_owned(),
                    }
                })
                .collect(),
        }
    }
}

impl PromptSet {
    /// The built-in prompts, each replaced by `<stem>.md` in `dir` when
    /// the directory has it. Blocking: run it off the async runtime.
    pub fn load(dir: &Path) -> Result<PromptSet, PromptsError> {
        let fail = |path: &Path, problem| PromptsError {
            path: path.to_owned(),
            problem,
        };
        let entries = std::fs::read_dir(dir).map_err(|e| fail(dir, PromptProblem::Read(e)))?;
        let mut set = PromptSet::default();
        let mut paths = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| fail(dir, PromptProblem::Read(e)))?;
            let file_name = entry.file_name();
            // Hidden entries are not prompts: a mounted ConfigMap keeps
            // its `..data` links beside the files.
            if file_name.as_encoded_bytes().starts_with(b".") {
                continue;
            }
            paths.push(entry.path());
        }
        // The same directory fails on the same file every time.
        paths.sort();
        for path in paths {
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(".md"))
                .and_then(|stem| PromptName::ALL.into_iter().find(|p| p.stem() == stem))
                .ok_or_else(|| fail(&path, PromptProblem::Unknown))?;
            let bytes = std::fs::read(&path).map_err(|e| fail(&path, PromptProblem::Read(e)))?;
            let text = String::from_utf8(bytes).map_err(|_| fail(&path, PromptProblem::NotUtf8))?;
            if text.trim().is_empty() {
                return Err(fail(&path, PromptProblem::Empty));
            }
            let version = format!("{}@{}", name.stem(), short_hash(&text));
            set.replace(name, PromptText { version, text });
        }
        Ok(set)
    }

    /// `name` says `text` from now on.
    pub(crate) fn replace(&mut self, name: PromptName, text: PromptText) {
        self.prompts[name.index()] = text;
    }

    pub fn get(&self, name: PromptName) -> &PromptText {
        &self.prompts[name.index()]
    }

    pub fn text(&self, name: PromptName) -> &str {
        &self.get(name).text
    }

    /// The prompt that follows the data in a lane of `kind`, if any.
    pub fn lane_prompt(kind: &LaneKind) -> Option<PromptName> {
        match kind {
            LaneKind::Specialist { dimension } => Some(PromptName::Lane(*dimension)),
            LaneKind::Domain { .. } => Some(PromptName::Domain),
            _ => None,
        }
    }

    /// The system message of a lane of `kind`.
    pub fn system(kind: &LaneKind) -> PromptName {
        match kind {
            LaneKind::Adjudication => PromptName::Adjudicate,
            LaneKind::Challenge => PromptName::Challenge,
            LaneKind::Grouping => PromptName::Group,
            LaneKind::Synthesis => PromptName::Synthesize,
            LaneKind::Domain { .. } | LaneKind::Specialist { .. } => PromptName::Review,
        }
    }

    /// The identity of the prompts a lane of `kind` gets, recorded in its
    /// `checks`: `review-v3+security-v1` for a specialist lane.
    pub fn version(&self, kind: &LaneKind) -> String {
        let system = &self.get(Self::system(kind)).version;
        match Self::lane_prompt(kind) {
            Some(lane) => format!("{system}+{}", self.get(lane).version),
            None => system.clone(),
        }
    }

    /// A digest of every prompt's version and text: any change to a text
    /// the engine can send changes it.
    pub fn identity(&self) -> String {
        let mut h = Sha256::new();
        for p in &self.prompts {
            for part in [p.version.as_bytes(), p.text.as_bytes()] {
                h.update(u64::try_from(part.len()).unwrap_or(u64::MAX).to_le_bytes());
                h.update(part);
            }
        }
        hex(&h.finalize()[..8])
    }
}

/// The first 12 hex digits of the SHA-256 of `text`.
fn short_hash(text: &str) -> String {
    hex(&Sha256::digest(text.as_bytes())[..6])
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A file of the override directory that cannot replace a prompt.
#[derive(Debug, thiserror::Error)]
#[error(
    "--llm-prompts {}: {problem} (a prompt file is one of: {})",
    path.display(),
    PromptName::accepted()
)]
pub struct PromptsError {
    pub path: PathBuf,
    pub problem: PromptProblem,
}

#[derive(Debug, thiserror::Error)]
pub enum PromptProblem {
    #[error("names no prompt")]
    Unknown,
    #[error("cannot be read: {0}")]
    Read(#[source] std::io::Error),
    #[error("is not UTF-8 text")]
    NotUtf8,
    #[error("is empty")]
    Empty,
}

#[cfg(test)]
mod tests;
