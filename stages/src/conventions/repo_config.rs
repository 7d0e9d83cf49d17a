//! `revu.toml`: the repository's review configuration.
//!
//! ```toml
//! rigor = "prototype"              # poc | prototype | production
//!
//! [grouping]
//! max_slice_files = 20             # files per slice before it splits
//! replace_defaults = false         # true: only the domains below (and `core`)
//! packages = true                  # false: no slices by package
//!
//! [[grouping.domain]]              # matched in order, before the defaults
//! name = "payments"
//! globs = ["services/payments/**"]
//!
//! [[ledger]]                       # the review-miss ledger
//! id = "MISS-012"
//! pattern = '\.unwrap_or\(0\)'     # regex over each added line
//! paths = ["services/payments/**"] # optional
//! severity = "IMPORTANT"
//! dimension = "correctness"
//! summary = "balance read defaults to zero"
//! why = "…"                        # optional
//! fix = "…"                        # optional
//! confidence = 90                  # optional, 0-100
//! ```
//!
//! Unknown keys are errors naming the key and its line: a typo must not
//! silently turn a setting off.

use super::bullet::is_rule_id;
use super::ledger::{Ledger, LedgerEntry, compile_paths, compile_pattern};
use crate::grouping::{DomainRule, FALLBACK_DOMAIN, Grouper, default_domains};
use revu_domain::finding::{BlastRadius, Dimension, Severity};
use revu_domain::report::Rigor;
use serde::Deserialize;
use std::borrow::Cow;
use std::collections::BTreeSet;
use toml::Spanned;

/// Why a `revu.toml` was rejected. Every message names the line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("revu.toml line {line}: {message}")]
pub struct RepoConfigError {
    pub line: usize,
    pub message: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    rigor: Option<Rigor>,
    #[serde(default)]
    grouping: GroupingFile,
    #[serde(default)]
    ledger: Vec<LedgerFile>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct GroupingFile {
    max_slice_files: Option<Spanned<usize>>,
    #[serde(default)]
    replace_defaults: bool,
    /// Whether the repository's packages get slices of their own.
    packages: Option<bool>,
    #[serde(default)]
    domain: Vec<DomainFile>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DomainFile {
    name: Spanned<String>,
    globs: Spanned<Vec<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LedgerFile {
    id: Spanned<String>,
    pattern: Spanned<String>,
    paths: Option<Spanned<Vec<String>>>,
    severity: Severity,
    dimension: Dimension,
    summary: String,
    #[serde(default)]
    why: String,
    #[serde(default)]
    fix: String,
    confidence: Option<Spanned<u8>>,
    #[serde(default = "default_blast_radius")]
    blast_radius: BlastRadius,
}

fn default_blast_radius() -> BlastRadius {
    BlastRadius::Local
}

/// Confidence of a ledger finding that does not state one: the entry
/// records a miss a person confirmed.
const LEDGER_CONFIDENCE: u8 = 90;

/// A validated `revu.toml`.
#[derive(Debug, Clone)]
pub struct RepoConfig {
    pub rigor: Option<Rigor>,
    /// Domains in matching order, when the file changes them.
    grouping: Option<Grouper>,
    max_slice_files: Option<usize>,
    /// Whether each package gets slices of its own (`[grouping]
    /// packages`, on unless set to false).
    pub slice_by_package: bool,
    pub ledger: Ledger,
}

impl Default for RepoConfig {
    /// A repository without a `revu.toml`: the service's grouping, slices
    /// by package, no ledger.
    fn default() -> Self {
        RepoConfig {
            rigor: None,
            grouping: None,
            max_slice_files: None,
            slice_by_package: true,
            ledger: Ledger::default(),
        }
    }
}

impl RepoConfig {
    pub fn parse(text: &str) -> Result<RepoConfig, RepoConfigError> {
        let at = |span: std::ops::Range<usize>, message: String| RepoConfigError {
            line: line_of(text, span.start),
            message,
        };
        let file: File = toml::from_str(text).map_err(|e| {
            let span = e.span().unwrap_or(0..0);
            let mut message = e.message().trim_end().to_owned();
            // Some parse errors ("duplicate key") do not say what they saw.
            if let Some(seen) = text.get(span.clone()).map(str::trim)
                && !message.contains('`')
                && !seen.is_empty()
                && !seen.contains('\n')
            {
                message.push_str(&format!(": `{seen}`"));
            }
            at(span, message)
        })?;
        let g = file.grouping;
        if let Some(max) = &g.max_slice_files
            && *max.get_ref() == 0
        {
            return Err(at(
                max.span(),
                "grouping.max_slice_files must be at least 1".into(),
            ));
        }
        let mut names = BTreeSet::new();
        let mut custom = Vec::with_capacity(g.domain.len());
        for d in g.domain {
            let name = d.name.get_ref();
            if let Err(why) = check_domain_name(name) {
                return Err(at(
                    d.name.span(),
                    format!("grouping.domain {name:?}: {why}"),
                ));
            }
            if !names.insert(name.clone()) {
                return Err(at(
                    d.name.span(),
                    format!("grouping.domain {name:?} appears twice"),
                ));
            }
            if d.globs.get_ref().is_empty() {
                return Err(at(
                    d.globs.span(),
                    format!("grouping.domain {name:?} has no globs"),
                ));
            }
            let span = d.globs.span();
            let rule = DomainRule {
                name: name.clone(),
                globs: d.globs.into_inner(),
            };
            // Compile each domain alone so that the error points at it.
            Grouper::new(std::slice::from_ref(&rule), 1).map_err(|e| {
                at(
                    span,
                    format!("grouping.domain {name:?}: {}", e.source.kind()),
                )
            })?;
            custom.push(rule);
        }
        let grouping = if custom.is_empty() && !g.replace_defaults {
            None
        } else {
            if !g.replace_defaults {
                custom.extend(default_domains());
            }
            let grouper =
                Grouper::new(&custom, 1).map_err(|e| at(0..0, format!("grouping: {e}")))?;
            Some(grouper)
        };
        let mut ids = BTreeSet::new();
        let mut entries = Vec::with_capacity(file.ledger.len());
        for e in file.ledger {
            let id = e.id.get_ref().clone();
            if !is_rule_id(&id) || id.starts_with("RV-") {
                return Err(at(
                    e.id.span(),
                    format!(
                        "ledger id {id:?} must look like MISS-012 (upper-case parts joined by \
                         `-`; `RV-` is reserved for built-in rules)"
                    ),
                ));
            }
            if !ids.insert(id.clone()) {
                return Err(at(e.id.span(), format!("ledger id {id} appears twice")));
            }
            let pattern = compile_pattern(e.pattern.get_ref())
                .map_err(|why| at(e.pattern.span(), format!("ledger {id}: pattern: {why}")))?;
            let paths = match &e.paths {
                Some(p) => compile_paths(p.get_ref())
                    .map_err(|why| at(p.span(), format!("ledger {id}: paths: {why}")))?,
                None => None,
            };
            let confidence = match e.confidence {
                Some(c) if *c.get_ref() > 100 => {
                    return Err(at(c.span(), format!("ledger {id}: confidence is 0-100")));
                }
                Some(c) => c.into_inner(),
                None => LEDGER_CONFIDENCE,
            };
            if e.summary.trim().is_empty() {
                return Err(at(e.id.span(), format!("ledger {id}: summary is empty")));
            }
            entries.push(LedgerEntry {
                id,
                pattern,
                paths,
                severity: e.severity,
                dimension: e.dimension,
                summary: e.summary,
                why: e.why,
                fix: e.fix,
                confidence,
                blast_radius: e.blast_radius,
            });
        }
        Ok(RepoConfig {
            rigor: file.rigor,
            grouping,
            max_slice_files: g.max_slice_files.map(Spanned::into_inner),
            slice_by_package: g.packages.unwrap_or(true),
            ledger: Ledger { entries },
        })
    }

    /// The grouper for this repository: the service's, unless the file
    /// changes the domains or the slice size.
    pub fn grouper<'a>(&self, service: &'a Grouper) -> Cow<'a, Grouper> {
        match (&self.grouping, self.max_slice_files) {
            (None, None) => Cow::Borrowed(service),
            (Some(g), max) => {
                Cow::Owned(g.clone().with_max_files(max.unwrap_or(service.max_files())))
            }
            (None, Some(max)) => Cow::Owned(service.clone().with_max_files(max)),
        }
    }
}

/// Domain names become lane ids (`domain:NAME`, split as `NAME#2`).
fn check_domain_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("name is empty".into());
    }
    if name == FALLBACK_DOMAIN {
        return Err(format!(
            "{FALLBACK_DOMAIN:?} is the fallback domain and cannot have globs"
        ));
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        return Err("use letters, digits, `-`, `_` and `.` only".into());
    }
    Ok(())
}

/// 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

#[cfg(test)]
mod tests;
