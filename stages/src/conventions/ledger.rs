//! The review-miss ledger: patterns that earlier reviews missed, kept in
//! `revu.toml` as `[[ledger]]` entries and run as first-class checks.
//!
//! The coordinator runs them itself, once per review, over the added lines
//! of the diff: they are repo data rather than engine code, so they apply
//! whichever engine the lanes use, produce no duplicate per lane, and need
//! nothing new on the job stream. Their findings cite the ledger id in
//! `rule` and go through verification like any other.

use super::repo_config::PathsError;
use globset::{GlobSet, GlobSetBuilder};
use regex::{Regex, RegexBuilder};
use revu_domain::diff::{Diff, FileStatus};
use revu_domain::finding::{BlastRadius, Dimension, Finding, Severity};

/// One compiled ledger entry.
#[derive(Debug, Clone)]
pub struct LedgerEntry {
    pub id: String,
    pub pattern: Regex,
    /// Files the entry applies to; `None` for every file.
    pub paths: Option<GlobSet>,
    pub severity: Severity,
    pub dimension: Dimension,
    pub summary: String,
    pub why: String,
    pub fix: String,
    pub confidence: u8,
    pub blast_radius: BlastRadius,
}

/// Largest compiled pattern, so one entry cannot make a review slow.
const PATTERN_SIZE_LIMIT: usize = 1 << 20;

pub(crate) fn compile_pattern(pattern: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(pattern)
        .size_limit(PATTERN_SIZE_LIMIT)
        .build()
}

pub(crate) fn compile_paths(globs: &[String]) -> Result<Option<GlobSet>, PathsError> {
    if globs.is_empty() {
        return Ok(None);
    }
    let mut set = GlobSetBuilder::new();
    for g in globs {
        set.add(globset::Glob::new(g).map_err(|error| PathsError::Glob {
            glob: g.clone(),
            error,
        })?);
    }
    set.build().map(Some).map_err(PathsError::Set)
}

/// The ledger of a repository, in `revu.toml` order.
#[derive(Debug, Clone, Default)]
pub struct Ledger {
    pub entries: Vec<LedgerEntry>,
}

impl Ledger {
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The ids of the entries, as the report lists the checks run.
    pub fn ids(&self) -> Vec<String> {
        self.entries.iter().map(|e| e.id.clone()).collect()
    }

    /// One finding per (entry, added line) the pattern matches.
    pub fn run(&self, diff: &Diff) -> Vec<Finding> {
        let mut out = Vec::new();
        for patch in &diff.files {
            if patch.binary || patch.status == FileStatus::Deleted {
                continue;
            }
            let path = patch.path();
            for entry in &self.entries {
                if entry.paths.as_ref().is_some_and(|p| !p.is_match(path)) {
                    continue;
                }
                for (line, text) in patch.added_lines() {
                    if entry.pattern.is_match(text) {
                        out.push(entry.finding(path, line));
                    }
                }
            }
        }
        out
    }
}

impl LedgerEntry {
    fn finding(&self, file: &str, line: u32) -> Finding {
        Finding {
            rule: self.id.clone(),
            severity: self.severity,
            file: file.to_owned(),
            line,
            end_line: None,
            dimension: self.dimension,
            dimensions: Vec::new(),
            summary: self.summary.clone(),
            why: if self.why.is_empty() {
                format!(
                    "An earlier review missed this pattern (review-miss ledger {}).",
                    self.id
                )
            } else {
                self.why.clone()
            },
            fix: self.fix.clone(),
            confidence: self.confidence,
            blast_radius: self.blast_radius.clone(),
            pre_existing: false,
            pre_existing_line: false,
            downgraded_from: None,
            meta: false,
            owners: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use crate::conventions::RepoConfig;
    use revu_domain::diff;
    use revu_domain::finding::Severity;

    const DIFF: &[u8] = b"\
diff --git a/services/payments/balance.rs b/services/payments/balance.rs
--- a/services/payments/balance.rs
+++ b/services/payments/balance.rs
@@ -1,2 +1,3 @@
 fn balance(a: &Account) -> i64 {
-    a.cents().unwrap()
+    let cents = a.cents().unwrap_or(0);
+    cents
diff --git a/src/report.rs b/src/report.rs
--- a/src/report.rs
+++ b/src/report.rs
@@ -1 +1 @@
-x
+let n = parse(s).unwrap_or(0);
";

    const CONFIG: &str = r#"
[[ledger]]
id = "MISS-012"
pattern = '\.unwrap_or\(0\)'
paths = ["services/payments/**"]
severity = "IMPORTANT"
dimension = "correctness"
summary = "balance read defaults to zero"
fix = "propagate the error"
"#;

    #[test]
    fn a_matching_added_line_yields_a_finding_citing_the_ledger_id() {
        let config = RepoConfig::parse(CONFIG).unwrap();
        let diff = diff::parse(DIFF).unwrap();
        let found = config.ledger.run(&diff);
        assert_eq!(found.len(), 1, "{found:#?}");
        let f = &found[0];
        assert_eq!(f.rule, "MISS-012");
        assert_eq!(f.citation(), "services/payments/balance.rs:2");
        assert_eq!((f.severity, f.confidence), (Severity::Important, 90));
        assert_eq!(f.summary, "balance read defaults to zero");
        assert!(f.why.contains("review-miss ledger MISS-012"), "{}", f.why);
    }

    #[test]
    fn an_entry_without_paths_checks_every_file_and_skips_removed_lines() {
        let config =
            RepoConfig::parse(&CONFIG.replace("paths = [\"services/payments/**\"]\n", "")).unwrap();
        let found = config.ledger.run(&diff::parse(DIFF).unwrap());
        let cited: Vec<String> = found.iter().map(|f| f.citation()).collect();
        assert_eq!(cited, ["services/payments/balance.rs:2", "src/report.rs:1"]);
        let none = RepoConfig::parse(&CONFIG.replace(r"unwrap_or\(0\)", r"cents\(\)\.unwrap\(\)"))
            .unwrap();
        assert!(none.ledger.run(&diff::parse(DIFF).unwrap()).is_empty());
    }
}
