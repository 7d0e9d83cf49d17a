//! Renderers: every output format is a pure function of the canonical report.

mod markdown;

pub use markdown::markdown;

use revu_common::report::Report;

/// The canonical JSON: pretty-printed, with a trailing newline.
pub fn json(report: &Report) -> String {
    let mut out =
        serde_json::to_string_pretty(report).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"));
    out.push('\n');
    out
}
