//! The finding schema of the review contract.
//!
//! Every engine speaks this schema; the coordinator verifies, merges and
//! renders it. Field names are the wire names of the canonical report JSON.

use serde::{Deserialize, Serialize};
use std::fmt;

/// How much a finding blocks the change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Severity {
    /// Worth a look; never blocks.
    Suggestion,
    /// Should be fixed, possibly in a follow-up.
    Important,
    /// Must be fixed before merge.
    Blocker,
}

impl Severity {
    /// The wire name (`BLOCKER`, `IMPORTANT`, `SUGGESTION`).
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Blocker => "BLOCKER",
            Severity::Important => "IMPORTANT",
            Severity::Suggestion => "SUGGESTION",
        }
    }

    /// Minimum confidence a finding of this severity needs to survive
    /// verification. BLOCKERs are never dropped for low confidence.
    pub fn confidence_floor(self) -> u8 {
        match self {
            Severity::Blocker => 0,
            Severity::Important => 70,
            Severity::Suggestion => 80,
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The six specialist review dimensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dimension {
    Correctness,
    Security,
    Performance,
    Design,
    Testing,
    Operability,
}

impl Dimension {
    /// Every dimension, in report order.
    pub const ALL: [Dimension; 6] = [
        Dimension::Correctness,
        Dimension::Security,
        Dimension::Performance,
        Dimension::Design,
        Dimension::Testing,
        Dimension::Operability,
    ];

    /// The wire name (`correctness`, `security`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Dimension::Correctness => "correctness",
            Dimension::Security => "security",
            Dimension::Performance => "performance",
            Dimension::Design => "design",
            Dimension::Testing => "testing",
            Dimension::Operability => "operability",
        }
    }
}

impl fmt::Display for Dimension {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How far the damage of a finding reaches if it ships: one of four words,
/// or, as the review contract writes it, free text (`3 direct callers, 12
/// transitive importers`). Written as a string either way.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BlastRadius {
    /// The changed lines only.
    Local,
    /// The module or package around them.
    Module,
    /// The service or binary that ships them.
    Service,
    /// Users, data or systems beyond the service.
    System,
    /// In the engine's own words.
    Described(String),
}

/// Longest blast radius text kept; longer text is cut on a character
/// boundary.
pub const MAX_BLAST_RADIUS: usize = 300;

impl BlastRadius {
    pub fn as_str(&self) -> &str {
        match self {
            BlastRadius::Local => "local",
            BlastRadius::Module => "module",
            BlastRadius::Service => "service",
            BlastRadius::System => "system",
            BlastRadius::Described(text) => text,
        }
    }

    /// The word `text` names, else `text` itself (trimmed, bounded; empty
    /// text reads as `local`).
    pub fn parse(text: &str) -> BlastRadius {
        let text = text.trim();
        match text.to_ascii_lowercase().as_str() {
            "local" | "" => BlastRadius::Local,
            "module" => BlastRadius::Module,
            "service" => BlastRadius::Service,
            "system" => BlastRadius::System,
            _ => {
                let mut cut = text.len().min(MAX_BLAST_RADIUS);
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                BlastRadius::Described(text[..cut].to_owned())
            }
        }
    }
}

impl Serialize for BlastRadius {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for BlastRadius {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(BlastRadius::parse(&String::deserialize(d)?))
    }
}

/// One finding, as engines emit it and as the report carries it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Finding {
    /// Stable id of what produced it: a rule code (`RV-SEC-001`), a linter's
    /// `TOOL:CODE`, a ledger id (`MISS-012`) or `engine:<name>`. An engine
    /// may leave it out, as the review contract's own finding schema does:
    /// the coordinator then writes `engine:<name>`.
    #[serde(default)]
    pub rule: String,
    pub severity: Severity,
    /// Path of the file on the head side (the old path for a deleted file).
    pub file: String,
    /// Head-side line number, 1 or more: a finding on a whole file cites
    /// its first changed line ([`crate::diff::FilePatch::anchor_line`]).
    /// Verification moves a `0` from an engine there; reports written
    /// before this rule may still hold `0` for the whole file.
    pub line: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_line: Option<u32>,
    /// The dimension that raised it; after merging, the first of `dimensions`.
    pub dimension: Dimension,
    /// Every dimension that raised the same root cause (set when merged).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dimensions: Vec<Dimension>,
    pub summary: String,
    pub why: String,
    pub fix: String,
    /// 0–100.
    pub confidence: u8,
    pub blast_radius: BlastRadius,
    /// Set by verification on a finding below BLOCKER that cites a line
    /// the change did not add: kept for the reader, never counted by the
    /// verdict. Such a finding is also `pre_existing_line`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pre_existing: bool,
    /// Set by verification on a finding of any severity that cites a line
    /// the change did not add: wherever it is shown, its summary reads
    /// after [`PRE_EXISTING_MARK`] ([`Finding::shown_summary`]). Reports
    /// written before the field carry the mark in the summary itself.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pre_existing_line: bool,
    /// Set by adjudication on a finding it lowered: the severity it was
    /// raised with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub downgraded_from: Option<Severity>,
    /// A finding about the change as a whole rather than what the code
    /// does at its line (a missing test, a file's size): the blast radius
    /// never elevates it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub meta: bool,
    /// Who owns the cited file by the repository's `CODEOWNERS`, set on a
    /// BLOCKER (the people a CI job asks to review it); empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub owners: Vec<String>,
}

/// What precedes the summary of a finding on a line the change did not
/// add, wherever the finding is shown.
pub const PRE_EXISTING_MARK: &str = "[pre-existing] ";

/// The rule of the findings a model raises in lane `lane_id`: `llm:` and
/// the lane (`llm:security` for `specialist:security`, `llm:domain:api`
/// for `domain:api`), so that a report says which lane raised each and
/// two lanes' findings on one line merge only when they make one claim.
pub fn model_rule(lane_id: &str) -> String {
    let lane = lane_id.strip_prefix("specialist:").unwrap_or(lane_id);
    format!("llm:{lane}")
}

/// Whether `rule` is one a model's lane raised ([`model_rule`]).
pub fn is_model_rule(rule: &str) -> bool {
    rule.starts_with("llm:")
}

impl Finding {
    /// A finding of `rule` at `file:line`, its text and everything else
    /// empty or unset, confidence 90: for an engine to fill in, and for
    /// tests.
    pub fn at(
        rule: impl Into<String>,
        severity: Severity,
        file: impl Into<String>,
        line: u32,
        dimension: Dimension,
    ) -> Finding {
        Finding {
            rule: rule.into(),
            severity,
            file: file.into(),
            line,
            end_line: None,
            dimension,
            dimensions: Vec::new(),
            summary: String::new(),
            why: String::new(),
            fix: String::new(),
            confidence: 90,
            blast_radius: BlastRadius::Local,
            pre_existing: false,
            pre_existing_line: false,
            downgraded_from: None,
            meta: false,
            owners: Vec::new(),
        }
    }

    /// The summary as a reader sees it: after [`PRE_EXISTING_MARK`] when
    /// the finding cites a line the change did not add.
    pub fn shown_summary(&self) -> std::borrow::Cow<'_, str> {
        if self.pre_existing_line {
            std::borrow::Cow::Owned(format!("{PRE_EXISTING_MARK}{}", self.summary))
        } else {
            std::borrow::Cow::Borrowed(&self.summary)
        }
    }

    /// This finding as the current version writes it when it was stored
    /// before the pre-existing mark was a field: the mark taken out of its
    /// summary and set as `pre_existing_line`.
    pub fn with_mark_as_field(mut self) -> Self {
        if !self.pre_existing_line
            && let Some(rest) = self.summary.strip_prefix(PRE_EXISTING_MARK)
        {
            self.summary = rest.to_owned();
            self.pre_existing_line = true;
        }
        self
    }

    /// Whether a linter raised it: its rule reads `TOOL:CODE` (an engine's
    /// own findings read `engine:NAME`).
    pub fn is_linter_finding(&self) -> bool {
        self.rule
            .split_once(':')
            .is_some_and(|(tool, _)| !tool.is_empty() && tool != "engine")
    }

    /// The `file:line[-end]` citation used by every renderer.
    pub fn citation(&self) -> String {
        match (self.line, self.end_line) {
            (0, _) => self.file.clone(),
            (l, Some(e)) if e > l => format!("{}:{}-{}", self.file, l, e),
            (l, _) => format!("{}:{}", self.file, l),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn severity_orders_blocker_highest_and_serializes_upper_case() {
        assert!(Severity::Blocker > Severity::Important);
        assert!(Severity::Important > Severity::Suggestion);
        assert_eq!(
            serde_json::to_string(&Severity::Blocker).ok().as_deref(),
            Some("\"BLOCKER\"")
        );
    }

    #[test]
    fn a_finding_in_the_review_contracts_schema_is_read() {
        // No rule id, and the blast radius in the contract's words.
        let f: Finding = serde_json::from_value(serde_json::json!({
            "severity": "IMPORTANT", "file": "src/a.rs", "line": 3,
            "dimension": "correctness", "summary": "s", "why": "w", "fix": "f",
            "confidence": 80,
            "blast_radius": "2 direct callers, 5 transitive importers"
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(f.rule, "");
        assert_eq!(
            f.blast_radius,
            BlastRadius::Described("2 direct callers, 5 transitive importers".into())
        );
        let back = serde_json::to_value(&f).unwrap_or_default();
        assert_eq!(
            back["blast_radius"],
            "2 direct callers, 5 transitive importers"
        );
        assert_eq!(BlastRadius::parse(" Service "), BlastRadius::Service);
        assert_eq!(
            serde_json::to_value(BlastRadius::Module).unwrap_or_default(),
            "module"
        );
        let long = "é".repeat(MAX_BLAST_RADIUS);
        assert!(BlastRadius::parse(&long).as_str().len() <= MAX_BLAST_RADIUS);
    }

    #[test]
    fn citation_includes_range_only_when_it_spans_lines() {
        let mut f = Finding::at(
            "RV-TEST",
            Severity::Important,
            "src/a.rs",
            3,
            Dimension::Correctness,
        );
        assert_eq!(f.citation(), "src/a.rs:3");
        f.end_line = Some(5);
        assert_eq!(f.citation(), "src/a.rs:3-5");
        f.line = 0;
        assert_eq!(f.citation(), "src/a.rs");
        assert_eq!(f.shown_summary(), "");
        f.summary = "stale".into();
        f.pre_existing_line = true;
        assert_eq!(f.shown_summary(), "[pre-existing] stale");
        let stored = Finding {
            summary: "[pre-existing] stale".into(),
            pre_existing_line: false,
            ..f.clone()
        };
        assert_eq!(stored.with_mark_as_field(), f);
        assert_eq!(f.clone().with_mark_as_field(), f, "once");
    }
}
