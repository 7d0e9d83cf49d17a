//! Renderers: every output format is a pure function of the canonical report.
//!
//! None reads a clock, the environment or a hash map's iteration order, so
//! identical reports render to identical bytes; the golden tests beside each
//! renderer hold them to it.

mod markdown;
mod rdjson;
mod sarif;

#[cfg(test)]
mod fixtures;
#[cfg(test)]
mod tests;

pub use markdown::markdown;
pub use rdjson::rdjson;
pub use sarif::sarif;

use crate::verdict::folded_severity;
use revu_domain::finding::{Dimension, Finding, Severity};
use revu_domain::report::{LaneOutcome, Report, Rigor};
use serde::Serialize;

/// The canonical JSON: pretty-printed, with a trailing newline.
pub fn json(report: &Report) -> String {
    to_pretty_json(report)
}

fn to_pretty_json<T: Serialize>(value: &T) -> String {
    // Serializing plain structs with string keys cannot fail; the fallback
    // only keeps this total without a panic.
    let mut out =
        serde_json::to_string_pretty(value).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"));
    out.push('\n');
    out
}

/// The severity a finding counts with at `rigor`, as the verdict counts it.
fn counted_severity(f: &Finding, rigor: Rigor) -> Severity {
    match folded_severity(f, rigor) {
        Some(s) => s,
        // Not counted: shown at the lowest level.
        None => Severity::Suggestion,
    }
}

/// Every dimension that raised the finding, the primary one first.
fn dimensions(f: &Finding) -> Vec<Dimension> {
    let mut out = vec![f.dimension];
    for d in &f.dimensions {
        if !out.contains(d) {
            out.push(*d);
        }
    }
    out
}

/// The finding as prose for tools that show one message: the summary (as
/// the reader sees it), then why and the fix when the engine gave them.
fn message(f: &Finding) -> String {
    let mut out = f.shown_summary().trim().to_owned();
    for (label, text) in [("why", &f.why), ("fix", &f.fix)] {
        if !text.trim().is_empty() {
            out.push_str(&format!("\n\n{label}: {}", text.trim()));
        }
    }
    out
}

pub(crate) fn outcome_name(outcome: LaneOutcome) -> &'static str {
    match outcome {
        LaneOutcome::Complete => "COMPLETE",
        LaneOutcome::Incomplete => "INCOMPLETE",
        LaneOutcome::PipelineFault => "PIPELINE-FAULT",
        LaneOutcome::Cancelled => "CANCELLED",
    }
}

fn rigor_name(rigor: Rigor) -> &'static str {
    match rigor {
        Rigor::Poc => "poc",
        Rigor::Prototype => "prototype",
        Rigor::Production => "production",
    }
}
