//! What a repository says about its own review: `REVIEW.md` (path guidance,
//! severity overrides, allowed nits) and `revu.toml` (rigor, grouping, the
//! review-miss ledger). Both travel with the submission and are stored in
//! the review bundle, so the report is a pure function of stored state.
//!
//! Where each part acts:
//!
//! | part               | stage                                   |
//! |--------------------|-----------------------------------------|
//! | rigor              | plan (`prepare`), request first         |
//! | grouping           | grouping (`prepare`)                    |
//! | path guidance      | plan: `LaneSpec::guidance`              |
//! | review-miss ledger | verification input (`assemble`)        |
//! | overrides, nits    | verification, after citation checks     |

pub mod apply;
mod bullet;
pub mod codeowners;
pub mod ledger;
mod ownership;
pub mod repo_config;
pub mod review_md;

pub use bullet::is_rule_id;
pub use codeowners::CodeOwners;
pub use repo_config::{DomainName, PathsError, Problem, RepoConfig, RepoConfigError};
pub use review_md::ReviewMd;

use revu_domain::bundle::OwnersFile;
use revu_domain::report::{ConventionsReport, SourceFile};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

/// The conventions file, at the repository root.
pub const REVIEW_MD: &str = "REVIEW.md";
/// The review config file, at the repository root.
pub const REPO_CONFIG: &str = "revu.toml";

/// A repository's `REVIEW.md` and `revu.toml`, parsed and compiled.
#[derive(Debug, Clone, Default)]
pub struct RepoContext {
    pub conventions: ReviewMd,
    pub config: RepoConfig,
    pub codeowners: Option<CodeOwners>,
    review_md: Option<SourceFile>,
    nested_review_md: Vec<SourceFile>,
    repo_config: Option<SourceFile>,
    codeowners_file: Option<SourceFile>,
}

impl RepoContext {
    /// Parses both files. A bad `revu.toml` is an error (a typo must not
    /// switch a setting off); a bad `REVIEW.md` bullet is a warning.
    pub fn load(
        review_md: Option<&str>,
        repo_config: Option<&str>,
    ) -> Result<RepoContext, RepoConfigError> {
        let config = repo_config
            .map(RepoConfig::parse)
            .transpose()?
            .unwrap_or_default();
        Ok(RepoContext {
            conventions: review_md.map(ReviewMd::parse).unwrap_or_default(),
            config,
            review_md: review_md.map(|t| source_file(REVIEW_MD, t)),
            repo_config: repo_config.map(|t| source_file(REPO_CONFIG, t)),
            ..RepoContext::default()
        })
    }

    /// Lays the `REVIEW.md` files of subdirectories (text by directory,
    /// `pkg/api`) on top of the root's: each applies to the files below
    /// its directory, the nearer winning where they conflict.
    pub fn with_nested(mut self, nested: &BTreeMap<String, String>) -> RepoContext {
        for (dir, text) in nested {
            let md = ReviewMd::parse_in(text, dir);
            self.nested_review_md.push(source_file(
                &format!("{}/{REVIEW_MD}", dir.trim_matches('/')),
                text,
            ));
            self.conventions.absorb(md);
        }
        self
    }

    /// Reads the repository's `CODEOWNERS`, when it sent one.
    pub fn with_codeowners(mut self, file: Option<&OwnersFile>) -> RepoContext {
        if let Some(file) = file {
            let owners = CodeOwners::parse(&file.text);
            self.conventions
                .warnings
                .extend(owners.warnings.iter().map(|w| {
                    w.strip_prefix("CODEOWNERS")
                        .map_or_else(|| w.clone(), |rest| format!("{}{rest}", file.path))
                }));
            self.codeowners = Some(owners);
            self.codeowners_file = Some(source_file(&file.path, &file.text));
        }
        self
    }

    /// Path guidance for a lane reviewing `files`, in `REVIEW.md` order.
    pub fn guidance_for(&self, files: &[String]) -> Vec<String> {
        self.conventions
            .guidance
            .iter()
            .filter(|g| files.iter().any(|f| g.applies_to(f)))
            .map(|g| g.render())
            .collect()
    }

    /// The report's conventions section, before verification adds what the
    /// conventions did.
    pub fn report(&self) -> ConventionsReport {
        ConventionsReport {
            review_md: self.review_md.clone(),
            repo_config: self.repo_config.clone(),
            nested_review_md: self.nested_review_md.clone(),
            codeowners: self.codeowners_file.clone(),
            ledger_checks: self.config.ledger.ids(),
            warnings: self.conventions.warnings.clone(),
            ..ConventionsReport::default()
        }
    }
}

/// Names a file by its exact content.
pub fn source_file(name: &str, text: &str) -> SourceFile {
    let digest = Sha256::digest(text.as_bytes());
    SourceFile {
        name: name.to_owned(),
        bytes: text.len(),
        sha256: digest.iter().map(|b| format!("{b:02x}")).collect(),
    }
}

#[cfg(test)]
pub(crate) mod strategies;
#[cfg(test)]
mod tests;
