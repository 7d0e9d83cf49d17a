//! A published benchmark's golden comments read as they are: a JSON list
//! of pull requests (`url`, `pr_title`, `comments` of `comment` text and a
//! `severity` of Critical, High, Medium or Low), each pull request one case
//! whose expectations are its comments, in free text and without lines:
//! only `--judge` can match them.
//!
//! A pull request `https://github.com/OWNER/REPO/pull/N` is found in the
//! checkouts directory as `REPO-N.patch` (its diff, reviewed as `--diff`
//! reviews it) or as `REPO-N/`, a git work tree whose `HEAD` is the pull
//! request's head, reviewed against its merge base with the branch
//! `revu-base`. A pull request with neither is skipped, by name.
//!
//! Severities map to revu's as `Critical` → BLOCKER, `High` and `Medium`
//! → IMPORTANT, `Low` → SUGGESTION. The mapping is shown beside each
//! comment; like the benchmark's own judge, a match does not depend on it.

use super::cases::CaseChange;
use super::corpus::{Item, ItemChange, Loaded};
use super::scoring::{Expectation, Expected};
use crate::error::CliError;
use revu_domain::finding::Severity;
use serde::Deserialize;
use std::path::Path;

/// The branch of a checkout that marks the pull request's base.
pub const BASE_BRANCH: &str = "revu-base";

#[derive(Debug, Deserialize)]
struct PullRequest {
    url: String,
    #[serde(default)]
    pr_title: Option<String>,
    #[serde(default)]
    comments: Vec<Comment>,
}

#[derive(Debug, Deserialize)]
struct Comment {
    comment: String,
    #[serde(default)]
    severity: Option<String>,
}

/// revu's severity for a golden comment's.
pub fn severity(label: &str) -> Option<Severity> {
    match label.trim().to_ascii_lowercase().as_str() {
        "critical" => Some(Severity::Blocker),
        "high" | "medium" => Some(Severity::Important),
        "low" => Some(Severity::Suggestion),
        _ => None,
    }
}

/// `REPO-N` of a pull request's URL (`…/OWNER/REPO/pull/N`).
fn key(url: &str) -> Option<String> {
    let parts: Vec<&str> = url.trim_end_matches('/').rsplit('/').take(3).collect();
    match parts.as_slice() {
        [number, "pull", repo] if !repo.is_empty() && number.parse::<u64>().is_ok() => {
            Some(format!("{repo}-{number}"))
        }
        _ => None,
    }
}

/// The pull requests of `golden` with a checkout under `checkouts`, and
/// those without one.
pub fn load(golden: &Path, checkouts: &Path) -> Result<Loaded, CliError> {
    let bad = |m: String| CliError::Input(format!("{}: {m}", golden.display()));
    let text = std::fs::read_to_string(golden).map_err(|e| bad(e.to_string()))?;
    let prs: Vec<PullRequest> = serde_json::from_str(&text).map_err(|e| {
        bad(format!(
            "not a list of pull requests with golden comments: {e}"
        ))
    })?;
    if !checkouts.is_dir() {
        return Err(CliError::Input(format!(
            "--checkouts {}: not a directory",
            checkouts.display()
        )));
    }
    let mut items = Vec::new();
    let mut skipped = Vec::new();
    for (n, pr) in prs.into_iter().enumerate() {
        let name = key(&pr.url).ok_or_else(|| {
            bad(format!(
                "pull request #{}: {:?} is not a pull request's URL (…/OWNER/REPO/pull/N)",
                n + 1,
                pr.url
            ))
        })?;
        let mut expected = Expected::default();
        for (k, c) in pr.comments.iter().enumerate() {
            let golden_severity = match &c.severity {
                None => None,
                Some(label) => Some(severity(label).ok_or_else(|| {
                    bad(format!(
                        "{name}, comment #{}: severity {label:?} is not Critical, High, Medium or Low",
                        k + 1
                    ))
                })?),
            };
            expected.expectations.push(Expectation {
                file: None,
                lines: None,
                severity: None,
                rule: None,
                class: None,
                id: None,
                description: Some(c.comment.clone()),
                golden_severity,
            });
        }
        let patch = checkouts.join(format!("{name}.patch"));
        let tree = checkouts.join(&name);
        let change = if patch.is_file() {
            ItemChange::Case(CaseChange::Diff(patch))
        } else if tree.is_dir() {
            ItemChange::Branch {
                repo: tree,
                base: BASE_BRANCH.to_owned(),
            }
        } else {
            skipped.push((
                name.clone(),
                format!(
                    "no checkout ({name}.patch or {name}/ under {})",
                    checkouts.display()
                ),
            ));
            continue;
        };
        items.push(Item {
            name,
            description: pr.pr_title.clone(),
            change,
            intent: pr.pr_title.unwrap_or_default(),
            window: None,
            expected,
        });
    }
    Ok(Loaded {
        items,
        skipped,
        name: golden.display().to_string(),
        window: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pull_request_url_names_its_checkout() {
        assert_eq!(
            key("https://github.com/acme/shop/pull/42").as_deref(),
            Some("shop-42")
        );
        assert_eq!(
            key("https://github.com/acme/shop/pull/42/").as_deref(),
            Some("shop-42")
        );
        assert_eq!(key("https://github.com/acme/shop/issues/42"), None);
        assert_eq!(key("shop"), None);
    }

    #[test]
    fn severities_map_to_revus() {
        assert_eq!(severity("Critical"), Some(Severity::Blocker));
        assert_eq!(severity("high"), Some(Severity::Important));
        assert_eq!(severity("Medium"), Some(Severity::Important));
        assert_eq!(severity("Low"), Some(Severity::Suggestion));
        assert_eq!(severity("urgent"), None);
    }
}
