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

mod error;

pub use error::{DomainName, PathsError, Problem, RepoConfigError};

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
        let at = |span: std::ops::Range<usize>, problem: Problem| RepoConfigError {
            line: line_of(text, span.start),
            problem,
        };
        let file: File = toml::from_str(text).map_err(|error| {
            let span = error.span().unwrap_or(0..0);
            // Some parse errors ("duplicate key") do not say what they saw.
            let seen = text
                .get(span.clone())
                .map(str::trim)
                .filter(|seen| {
                    !error.message().contains('`') && !seen.is_empty() && !seen.contains('\n')
                })
                .map(str::to_owned);
            at(span, Problem::Toml { error, seen })
        })?;
        let g = file.grouping;
        if let Some(max) = &g.max_slice_files
            && *max.get_ref() == 0
        {
            return Err(at(max.span(), Problem::NoSliceFiles));
        }
        let mut names = BTreeSet::new();
        let mut custom = Vec::with_capacity(g.domain.len());
        for d in g.domain {
            let name = d.name.get_ref();
            if let Err(why) = check_domain_name(name) {
                let name = name.clone();
                return Err(at(d.name.span(), Problem::DomainName { name, why }));
            }
            if !names.insert(name.clone()) {
                let name = name.clone();
                return Err(at(d.name.span(), Problem::DomainTwice { name }));
            }
            if d.globs.get_ref().is_empty() {
                let name = name.clone();
                return Err(at(d.globs.span(), Problem::NoGlobs { name }));
            }
            let span = d.globs.span();
            let rule = DomainRule {
                name: name.clone(),
                globs: d.globs.into_inner(),
            };
            // Compile each domain alone so that the error points at it.
            Grouper::new(std::slice::from_ref(&rule), 1).map_err(|e| {
                let (name, error) = (name.clone(), e.source);
                at(span, Problem::Glob { name, error })
            })?;
            custom.push(rule);
        }
        let grouping = if custom.is_empty() && !g.replace_defaults {
            None
        } else {
            if !g.replace_defaults {
                custom.extend(default_domains());
            }
            let grouper = Grouper::new(&custom, 1).map_err(|e| at(0..0, Problem::Grouping(e)))?;
            Some(grouper)
        };
        let mut ids = BTreeSet::new();
        let mut entries = Vec::with_capacity(file.ledger.len());
        for e in file.ledger {
            let id = e.id.get_ref().clone();
            if !is_rule_id(&id) || id.starts_with("RV-") {
                return Err(at(e.id.span(), Problem::LedgerId { id }));
            }
            if !ids.insert(id.clone()) {
                return Err(at(e.id.span(), Problem::LedgerIdTwice { id }));
            }
            let pattern = compile_pattern(e.pattern.get_ref()).map_err(|error| {
                let id = id.clone();
                at(e.pattern.span(), Problem::Pattern { id, error })
            })?;
            let paths = match &e.paths {
                Some(p) => compile_paths(p.get_ref()).map_err(|error| {
                    let id = id.clone();
                    at(p.span(), Problem::Paths { id, error })
                })?,
                None => None,
            };
            let confidence = match e.confidence {
                Some(c) if *c.get_ref() > 100 => {
                    return Err(at(c.span(), Problem::Confidence { id }));
                }
                Some(c) => c.into_inner(),
                None => LEDGER_CONFIDENCE,
            };
            if e.summary.trim().is_empty() {
                return Err(at(e.id.span(), Problem::NoSummary { id }));
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
fn check_domain_name(name: &str) -> Result<(), DomainName> {
    if name.is_empty() {
        return Err(DomainName::Empty);
    }
    if name == FALLBACK_DOMAIN {
        return Err(DomainName::Fallback);
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        return Err(DomainName::Characters);
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
