//! What the lanes of model engines spent: a table under the lanes, one row
//! per lane and one for the review, tokens by kind (a kind gets its column
//! only when some lane spent tokens of it) and cost (a column only when a
//! price table priced some lane).

use super::{cell, code, inline};
use revu_domain::lane::Usage;
use revu_domain::report::{Report, ReviewUsage};
use std::fmt::{self, Write};

/// A token column: its head, what a lane's cell counts, and whether it
/// is shown even when no lane counts any.
struct Column {
    head: &'static str,
    count: fn(&Usage) -> u64,
    always: bool,
}

const TOKENS: [Column; 5] = [
    column("input tokens", |u| u.tokens.input_tokens, true),
    column("cached", |u| u.tokens.cached_input_tokens, false),
    column("cache writes", |u| u.tokens.cache_write_tokens, false),
    column("output tokens", |u| u.tokens.output_tokens, true),
    column("reasoning", |u| u.tokens.reasoning_tokens, false),
];

const fn column(head: &'static str, count: fn(&Usage) -> u64, always: bool) -> Column {
    Column {
        head,
        count,
        always,
    }
}

pub(super) fn write(out: &mut String, r: &Report) -> fmt::Result {
    let metered: Vec<_> = r
        .lanes
        .iter()
        .filter_map(|l| l.usage.as_ref().map(|u| (l, u)))
        .collect();
    if metered.is_empty() {
        return Ok(());
    }
    let columns: Vec<&Column> = TOKENS
        .iter()
        .filter(|c| c.always || metered.iter().any(|(_, u)| (c.count)(u) > 0))
        .collect();
    let priced = metered.iter().any(|(_, u)| u.cost_usd.is_some());
    let heads: String = columns.iter().map(|c| format!(" {} |", c.head)).collect();
    let rules = "---:|".repeat(columns.len());
    let (cost_head, cost_rule) = if priced {
        (" cost |", "---:|")
    } else {
        ("", "")
    };
    writeln!(
        out,
        "| lane | model | requests |{heads} latency |{cost_head}"
    )?;
    writeln!(out, "|---|---|---:|{rules}---:|{cost_rule}")?;
    let row = |out: &mut String, name: &str, model: &str, u: &Usage| {
        let cells: String = columns
            .iter()
            .map(|c| format!(" {} |", (c.count)(u)))
            .collect();
        let cost = match (priced, u.cost_usd) {
            (false, _) => String::new(),
            (true, Some(c)) => format!(" ${:.4} |", c.dollars()),
            (true, None) => " — |".to_owned(),
        };
        writeln!(
            out,
            "| {name} | {model} | {} |{cells} {:.1} s |{cost}",
            u.requests,
            u.latency_ms as f64 / 1000.0
        )
    };
    for (l, u) in &metered {
        row(out, &cell(&code(&l.id)), &cell(&inline(&u.model)), u)?;
    }
    if metered.len() > 1 {
        let total = metered
            .iter()
            .fold(Usage::default(), |sum, (_, u)| sum.plus(u));
        row(out, "**review**", "", &total)?;
    }
    // From the lanes, so that a report written before the review's total
    // was kept reads the same.
    let review = ReviewUsage::of(&r.lanes).unwrap_or_default();
    if let Some(cost) = review.cost_usd {
        let note = match review.unpriced_lanes {
            0 => String::new(),
            n => format!(" ({n} lane(s) not priced: the table has no price for their model)"),
        };
        writeln!(
            out,
            "\nPriced lanes cost ${:.4} in all{note}.",
            cost.dollars()
        )?;
    }
    writeln!(out)
}
