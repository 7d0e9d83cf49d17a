//! One lane report from the answers of the requests a lane was split
//! into.

use crate::engines::EngineOutput;
use revu_domain::lane::LaneReportBody;
use serde_json::{Value, json};

/// The section of a lane report that says the engine could not finish it
/// (the completeness gate's `incomplete`).
pub(super) const INCOMPLETE: &str = "incomplete";

/// What one request of a lane gave.
pub(super) enum Part {
    Report(LaneReportBody),
    /// Cut at the output limit: what could be read, marked incomplete.
    Cut(Value),
    /// Not a lane report at all.
    Other(Value),
}

/// The lane report assembled from the answers of its requests.
#[derive(Default)]
pub(super) struct Merged {
    reviewed: Vec<String>,
    pub(super) checks: Vec<String>,
    findings: Vec<revu_domain::finding::Finding>,
    summaries: Vec<String>,
    decisions: Vec<revu_domain::adjudication::Decision>,
    /// Why the lane is not complete, if it is not.
    pub(super) unfinished: Vec<String>,
}

impl Merged {
    pub(super) fn add(&mut self, body: LaneReportBody) {
        for item in body.reviewed {
            if !self.reviewed.contains(&item) {
                self.reviewed.push(item);
            }
        }
        for item in body.checks {
            if !self.checks.contains(&item) {
                self.checks.push(item);
            }
        }
        for f in body.findings {
            let same = |g: &revu_domain::finding::Finding| {
                (&g.file, g.line, &g.summary) == (&f.file, f.line, &f.summary)
            };
            if !self.findings.iter().any(same) {
                self.findings.push(f);
            }
        }
        if !body.summary.trim().is_empty() {
            self.summaries.push(body.summary);
        }
        self.decisions.extend(body.decisions);
    }

    /// A complete report, or one marked incomplete for the gate to settle.
    pub(super) fn output(self) -> EngineOutput {
        let body = LaneReportBody {
            reviewed: self.reviewed,
            checks: self.checks,
            findings: self.findings,
            summary: self.summaries.join(" "),
            decisions: self.decisions,
            ..LaneReportBody::default()
        };
        if self.unfinished.is_empty() {
            return EngineOutput::Body(body);
        }
        let mut raw = serde_json::to_value(&body).unwrap_or_else(|_| json!({}));
        raw[INCOMPLETE] = json!(self.unfinished.join("; "));
        EngineOutput::Raw(raw)
    }
}

/// A token count as a ledger change.
pub(super) fn signed(tokens: u64) -> i64 {
    i64::try_from(tokens).unwrap_or(i64::MAX)
}
