//! `revu eval corpus` in Markdown: the scores overall, per language and
//! per case, then every miss, trap hit and citation off with its
//! `file:line`.

use super::plural;
use super::scoring::{Scored, Tally};
use std::fmt::Write;

const HEADER: &str =
    "| expected | matched | recall | findings | matching | precision | traps hit | citations off |";

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
    table(&mut out, "", &[("all", &s.overall)]);
    let langs: Vec<(&str, &Tally)> = s.by_language.iter().map(|(l, t)| (*l, t)).collect();
    table(&mut out, "\n## By language\n\n| language ", &langs);
    let cases: Vec<(&str, &Tally)> = s
        .cases
        .iter()
        .map(|c| (c.name.as_str(), &c.tally))
        .collect();
    table(&mut out, "\n## By case\n\n| case ", &cases);

    let misses: Vec<_> = s.expectations.iter().filter(|e| !e.item.matched).collect();
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
            let _ = writeln!(
                out,
                "- `{}` ({}){}",
                e.lines.citation(&e.file),
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
            "| {name} | {} | {} | {} | {} | {} | {} | {}/{} | {} |",
            t.expectations,
            t.matched,
            share(t.recall),
            t.findings,
            t.findings_matching,
            share(t.precision),
            t.traps_hit,
            t.traps,
            t.citations_off
        );
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
