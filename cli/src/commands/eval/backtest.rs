//! What `revu eval history` found, as figures: each commit's review
//! reduced to what a team weighs before gating on revu (changed lines,
//! findings, BLOCKERs, whether and why the gate would have stopped it,
//! time), and the run's totals. The JSON `--format json` prints is
//! [`History`] as it serializes; `docs/eval.md` describes it.
//!
//! Why the gate stops a commit is read from the report's structured
//! fields, by the gate's own rules (`revu_stages::verdict`), never from
//! the wording of its gate reasons.

use super::commits::{Commit, Selection};
use revu_domain::finding::Severity;
use revu_domain::report::{Gate, LaneOutcome, Report, Verdict};
use revu_stages::verdict::folded_severity;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// Version of the JSON below; bumped on any incompatible change.
pub const EVAL_VERSION: &str = "1";

/// Why the gate stops a change: each row of the gate table that applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GateCause {
    /// A finding the verdict counts as BLOCKER (after rigor folding).
    Findings,
    /// A lane that counts for the gate faulted, is incomplete or was
    /// cancelled.
    Lane,
    /// Verification dropped citations of code that does not exist.
    Verification,
    /// An always-human signal: auth surface, destructive migration.
    Trigger,
}

impl GateCause {
    pub const ALL: [GateCause; 4] = [
        GateCause::Findings,
        GateCause::Lane,
        GateCause::Verification,
        GateCause::Trigger,
    ];

    /// The causes that apply to `report`, in the gate table's order.
    pub fn of(report: &Report) -> Vec<GateCause> {
        let rigor = report.rigor.level;
        let v = &report.verification;
        let applies = |cause: GateCause| match cause {
            GateCause::Findings => report
                .findings
                .iter()
                .any(|f| folded_severity(f, rigor) == Some(Severity::Blocker)),
            GateCause::Lane => report
                .lanes
                .iter()
                .any(|l| l.counts_for_gate() && l.outcome != LaneOutcome::Complete),
            GateCause::Verification => v.dropped_unknown_file + v.dropped_missing_line > 0,
            GateCause::Trigger => report.facts.signals.iter().any(|s| s.always_human()),
        };
        GateCause::ALL.into_iter().filter(|c| applies(*c)).collect()
    }
}

/// What became of one commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Reviewed,
    /// It could not be reviewed: an empty change, missing objects, a git
    /// error.
    Skipped,
    /// Its review failed with an internal error.
    Failed,
}

/// One commit's line of the run.
#[derive(Debug, Clone, Serialize)]
pub struct CommitFigures {
    pub sha: String,
    pub short: String,
    pub subject: String,
    pub status: Status,
    /// Why it was skipped or failed.
    pub reason: Option<String>,
    pub verdict: Option<Verdict>,
    pub gate: Option<Gate>,
    /// Why the gate stops it; empty when it does not.
    pub gated_by: Vec<GateCause>,
    /// Lines added and removed, from the report's facts.
    pub changed_lines: u64,
    pub findings: usize,
    pub blockers: usize,
    /// Wall time of the commit, from reading its change to its report.
    pub wall_ms: u64,
}

/// A BLOCKER, with the commit it falls in.
#[derive(Debug, Clone, Serialize)]
pub struct Blocker {
    pub sha: String,
    pub short: String,
    pub subject: String,
    /// `file:line`.
    pub citation: String,
    pub file: String,
    pub line: u32,
    pub rule: String,
    pub summary: String,
    pub why: String,
}

/// Findings of one rule by severity, as the reports state it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct SeverityCounts {
    #[serde(rename = "BLOCKER")]
    pub blocker: usize,
    #[serde(rename = "IMPORTANT")]
    pub important: usize,
    #[serde(rename = "SUGGESTION")]
    pub suggestion: usize,
}

impl SeverityCounts {
    fn add(&mut self, severity: Severity) {
        match severity {
            Severity::Blocker => self.blocker += 1,
            Severity::Important => self.important += 1,
            Severity::Suggestion => self.suggestion += 1,
        }
    }

    pub fn all(&self) -> usize {
        self.blocker + self.important + self.suggestion
    }
}

/// Commits the gate would have stopped, in all and per cause.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct GatedCounts {
    pub commits: usize,
    pub findings: usize,
    pub lane: usize,
    pub verification: usize,
    pub trigger: usize,
    /// Stopped by findings and by nothing else.
    pub findings_only: usize,
}

impl GatedCounts {
    pub fn of(&self, cause: GateCause) -> usize {
        match cause {
            GateCause::Findings => self.findings,
            GateCause::Lane => self.lane,
            GateCause::Verification => self.verification,
            GateCause::Trigger => self.trigger,
        }
    }
}

/// Wall time per reviewed commit, in milliseconds (nearest rank).
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct WallTimes {
    pub median: u64,
    pub p90: u64,
    pub max: u64,
    pub total: u64,
}

/// The run's totals.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    pub reviewed: usize,
    pub skipped: usize,
    pub failed: usize,
    pub changed_lines: u64,
    pub findings: usize,
    /// `null` when no line changed.
    pub findings_per_1000_lines: Option<f64>,
    pub blockers: usize,
    /// Ids of the commits with a BLOCKER, in run order.
    pub blocker_commits: Vec<String>,
    pub gated: GatedCounts,
    /// Commits stopped by findings alone, over the commits reviewed;
    /// `null` when none was.
    pub findings_only_share: Option<f64>,
    pub wall_ms: WallTimes,
}

/// What the run was asked.
#[derive(Debug, Clone, Serialize)]
pub struct Asked {
    pub selection: Selection,
    pub first_parent: bool,
    /// Commits the selection named.
    pub commits: usize,
}

/// The whole run: what `--format json` prints.
#[derive(Debug, Clone, Serialize)]
pub struct History {
    pub eval_version: &'static str,
    pub mode: &'static str,
    /// The top of the work tree.
    pub repository: String,
    pub asked: Asked,
    pub summary: Summary,
    /// Findings by rule, then severity.
    pub by_rule: BTreeMap<String, SeverityCounts>,
    /// Every BLOCKER, in run order.
    pub blockers: Vec<Blocker>,
    /// Every commit, in run order.
    pub commits: Vec<CommitFigures>,
}

/// How one commit ended.
#[derive(Debug)]
pub enum Outcome {
    Reviewed(Arc<Report>),
    Skipped(String),
    Failed(String),
}

impl History {
    pub fn new(repository: String, asked: Asked) -> History {
        History {
            eval_version: EVAL_VERSION,
            mode: "history",
            repository,
            asked,
            summary: Summary::default(),
            by_rule: BTreeMap::new(),
            blockers: Vec::new(),
            commits: Vec::new(),
        }
    }

    /// Takes one commit's outcome into account; its report is not kept.
    pub fn add(&mut self, commit: &Commit, outcome: Outcome, wall: Duration) {
        let mut figures = CommitFigures {
            sha: commit.sha.clone(),
            short: commit.short.clone(),
            subject: commit.subject.clone(),
            status: Status::Reviewed,
            reason: None,
            verdict: None,
            gate: None,
            gated_by: Vec::new(),
            changed_lines: 0,
            findings: 0,
            blockers: 0,
            wall_ms: u64::try_from(wall.as_millis()).unwrap_or(u64::MAX),
        };
        match outcome {
            Outcome::Skipped(why) => {
                figures.status = Status::Skipped;
                figures.reason = Some(why);
            }
            Outcome::Failed(why) => {
                figures.status = Status::Failed;
                figures.reason = Some(why);
            }
            Outcome::Reviewed(report) => self.take_report(commit, &report, &mut figures),
        }
        self.commits.push(figures);
    }

    fn take_report(&mut self, commit: &Commit, report: &Report, figures: &mut CommitFigures) {
        figures.verdict = Some(report.verdict);
        figures.gate = Some(report.gate);
        if report.gate == Gate::NeedsHuman {
            figures.gated_by = GateCause::of(report);
        }
        figures.changed_lines = report.facts.lines_added + report.facts.lines_removed;
        figures.findings = report.findings.len();
        for f in &report.findings {
            self.by_rule
                .entry(f.rule.clone())
                .or_default()
                .add(f.severity);
            if folded_severity(f, report.rigor.level) != Some(Severity::Blocker) {
                continue;
            }
            figures.blockers += 1;
            self.blockers.push(Blocker {
                sha: commit.sha.clone(),
                short: commit.short.clone(),
                subject: commit.subject.clone(),
                citation: f.citation(),
                file: f.file.clone(),
                line: f.line,
                rule: f.rule.clone(),
                summary: f.summary.clone(),
                why: f.why.clone(),
            });
        }
    }

    /// Works out the totals once every commit is in.
    pub fn finish(&mut self) {
        let mut s = Summary::default();
        let mut walls = Vec::new();
        for c in &self.commits {
            match c.status {
                Status::Skipped => s.skipped += 1,
                Status::Failed => s.failed += 1,
                Status::Reviewed => {
                    s.reviewed += 1;
                    walls.push(c.wall_ms);
                }
            }
            s.changed_lines += c.changed_lines;
            s.findings += c.findings;
            s.blockers += c.blockers;
            if c.blockers > 0 {
                s.blocker_commits.push(c.sha.clone());
            }
            if c.gate == Some(Gate::NeedsHuman) {
                s.gated.commits += 1;
            }
            for cause in &c.gated_by {
                match cause {
                    GateCause::Findings => s.gated.findings += 1,
                    GateCause::Lane => s.gated.lane += 1,
                    GateCause::Verification => s.gated.verification += 1,
                    GateCause::Trigger => s.gated.trigger += 1,
                }
            }
            if c.gated_by == [GateCause::Findings] {
                s.gated.findings_only += 1;
            }
        }
        s.findings_per_1000_lines = (s.changed_lines > 0)
            .then(|| round(s.findings as f64 * 1000.0 / s.changed_lines as f64));
        s.findings_only_share =
            (s.reviewed > 0).then(|| round(s.gated.findings_only as f64 / s.reviewed as f64));
        s.wall_ms = wall_times(walls);
        self.summary = s;
    }
}

/// Median, p90 (nearest rank), max and total of `walls`.
fn wall_times(mut walls: Vec<u64>) -> WallTimes {
    walls.sort_unstable();
    let rank = |p: f64| -> u64 {
        let n = walls.len();
        if n == 0 {
            return 0;
        }
        let at = ((p * n as f64).ceil() as usize).clamp(1, n) - 1;
        walls[at]
    };
    WallTimes {
        median: rank(0.5),
        p90: rank(0.9),
        max: walls.last().copied().unwrap_or(0),
        total: walls.iter().sum(),
    }
}

/// Four decimals: enough for a share or a rate, stable in JSON.
pub fn round(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

#[cfg(test)]
mod tests;
