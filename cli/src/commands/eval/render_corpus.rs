//! `revu eval corpus` in Markdown: the scores overall, per language and
//! per case, what each case cost, then every miss, trap hit and citation
//! off with its `file:line`, and the cases skipped.

use super::scoring::{Scored, Spent, Tally};
use super::{cut, plural};
use revu_domain::usage::Usd;
use std::fmt::Write;

const HEADER: &str = "| expected | matched | recall | findings | matching | precision | F1 | needs --judge | traps hit | citations off |";

pub fn markdown(s: &Scored) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# revu eval corpus\n");
    let _ = writeln!(
        out,
        "`{}`: {}, {} expected, {} traps.\n",
        s.corpus,
        plural(s.cases.len(), "case"),
        s.overall.expectations,
        s.overall.traps
    );
    if let Some(j) = &s.judge {
        let _ = writeln!(
            out,
            "Judged by engine `{}` (model `{}`, prompt {}).\n",
            j.engine, j.model, j.prompt
        );
    }
    table(&mut out, "", &[("all", &s.overall)]);
    if s.overall.needs_judge > 0 {
        let _ = writeln!(
            out,
            "\n{} not scored: a description alone, which only `--judge` can match.",
            plural(s.overall.needs_judge, "expectation")
        );
    }
    let langs: Vec<(&str, &Tally)> = s.by_language.iter().map(|(l, t)| (*l, t)).collect();
    table(&mut out, "\n## By language\n\n| language ", &langs);
    let cases: Vec<(&str, &Tally)> = s
        .cases
        .iter()
        .map(|c| (c.name.as_str(), &c.tally))
        .collect();
    table(&mut out, "\n## By case\n\n| case ", &cases);
    cost(&mut out, s);

    let misses: Vec<_> = s
        .expectations
        .iter()
        .filter(|e| !e.item.matched && !e.item.needs_judge)
        .collect();
    if !misses.is_empty() {
        let _ = writeln!(out, "\n## Misses\n");
        for m in misses {
            let e = &m.item.expectation;
            let mut what: Vec<String> = Vec::new();
            if let Some(id) = &e.id {
                what.push(id.clone());
            }
            if let Some(sev) = e.severity {
                what.push(format!("{sev} or above"));
            }
            if let Some(rule) = &e.rule {
                what.push(format!("`{rule}`"));
            }
            if let Some(class) = &e.class {
                what.push(format!("\"{class}\""));
            }
            if let Some(sev) = e.golden_severity {
                what.push(format!("golden {sev}"));
            }
            if let Some(text) = &e.description {
                let words: Vec<&str> = text.split_whitespace().collect();
                what.push(cut(&words.join(" "), 100));
            }
            let _ = writeln!(
                out,
                "- `{}` ({}){}",
                e.citation(),
                m.case,
                suffix(&what.join(" · "))
            );
        }
    }

    let hits: Vec<_> = s
        .traps
        .iter()
        .filter(|t| !t.item.hit_by.is_empty())
        .collect();
    if !hits.is_empty() {
        let _ = writeln!(out, "\n## Traps hit\n");
        for t in hits {
            let by: Vec<String> = t
                .item
                .hit_by
                .iter()
                .map(|f| format!("`{}` {}", f.rule, f.summary))
                .collect();
            let _ = writeln!(
                out,
                "- `{}` ({}){} — hit by {}",
                t.item.trap.lines.citation(&t.item.trap.file),
                t.case,
                suffix(t.item.trap.id.as_deref().unwrap_or_default()),
                by.join("; ")
            );
        }
    }

    let failed: Vec<_> = s.cases.iter().filter(|c| c.judge_error.is_some()).collect();
    if !failed.is_empty() {
        let _ = writeln!(out, "\n## Judge failures\n");
        for c in failed {
            let _ = writeln!(
                out,
                "- {}: {}",
                c.name,
                c.judge_error.as_deref().unwrap_or_default()
            );
        }
    }

    if !s.skipped.is_empty() {
        let _ = writeln!(out, "\n## Skipped\n");
        for k in &s.skipped {
            let _ = writeln!(out, "- {}: {}", k.name, k.reason);
        }
    }

    if !s.citations_off.is_empty() {
        let _ = writeln!(out, "\n## Citations off\n");
        for c in &s.citations_off {
            let _ = writeln!(
                out,
                "- `{}` ({}) `{}` — {} (expected at {})",
                c.item.finding.citation,
                c.case,
                c.item.finding.rule,
                c.item.finding.summary,
                c.item
                    .expected
                    .iter()
                    .map(|e| format!("`{e}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
    out
}

/// A score table; `head` opens the first column's header (empty: no
/// name column title).
fn table(out: &mut String, head: &str, rows: &[(&str, &Tally)]) {
    if rows.is_empty() {
        return;
    }
    let columns = HEADER.matches(" |").count();
    let _ = writeln!(out, "{}{HEADER}", if head.is_empty() { "| " } else { head });
    let _ = writeln!(out, "|---{}|", "|---:".repeat(columns));
    for (name, t) in rows {
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {} | {} | {} | {} | {} | {} | {}/{} | {} |",
            t.expectations,
            t.matched,
            share(t.recall),
            t.findings,
            t.findings_matching,
            share(t.precision),
            share(t.f1),
            t.needs_judge,
            t.traps_hit,
            t.traps,
            t.citations_off
        );
    }
}

/// What each case cost and the totals: wall time, the review's model
/// tokens and cost, and the judge's apart.
fn cost(out: &mut String, s: &Scored) {
    let _ = writeln!(
        out,
        "\n## Cost\n\n| case | wall s | requests | tokens in | tokens out | cost $ | judge tokens in | judge tokens out | judge cost $ |"
    );
    let _ = writeln!(out, "|---{}|", "|---:".repeat(8));
    let mut row = |name: &str, spent: &Spent| {
        let usage = spent.usage.as_ref();
        let judge = spent.judge.as_ref();
        let _ = writeln!(
            out,
            "| {name} | {:.1} | {} | {} | {} | {} | {} | {} | {} |",
            spent.wall_ms as f64 / 1000.0,
            usage.map_or(0, |u| u.requests),
            usage.map_or(0, |u| u.tokens.input_tokens),
            usage.map_or(0, |u| u.tokens.output_tokens),
            dollars(usage.and_then(|u| u.cost_usd), usage.is_some()),
            judge.map_or(0, |u| u.tokens.input_tokens),
            judge.map_or(0, |u| u.tokens.output_tokens),
            dollars(judge.and_then(|u| u.cost_usd), judge.is_some()),
        );
    };
    for c in &s.cases {
        row(&c.name, &c.spent);
    }
    row("all", &s.spent);
}

/// A cost: `–` when nothing was spent, `?` when tokens were but no price
/// is known.
fn dollars(cost: Option<Usd>, spent: bool) -> String {
    match (cost, spent) {
        (Some(c), _) => format!("{:.4}", c.dollars()),
        (None, true) => "?".to_owned(),
        (None, false) => "–".to_owned(),
    }
}

fn share(x: Option<f64>) -> String {
    x.map_or_else(|| "–".to_owned(), |x| format!("{x:.2}"))
}

fn suffix(text: &str) -> String {
    if text.is_empty() {
        String::new()
    } else {
        format!(" {text}")
    }
}
