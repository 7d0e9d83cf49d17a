//! `revu eval history` in Markdown: the summary a team decides on, the
//! findings by rule and severity, the commits the gate would have
//! stopped, every BLOCKER to read and judge, and what was not reviewed.

use super::backtest::{GateCause, History, Status};
use super::commits::Selection;
use super::{cut, plural};
use std::fmt::Write;

pub fn markdown(h: &History) -> String {
    let mut out = String::new();
    let s = &h.summary;
    let name = std::path::Path::new(&h.repository).file_name().map_or_else(
        || h.repository.clone(),
        |n| n.to_string_lossy().into_owned(),
    );
    let walk = if h.asked.first_parent {
        "first parent"
    } else {
        "every commit"
    };
    let _ = writeln!(out, "# revu eval history: `{name}`\n");
    let _ = writeln!(
        out,
        "{}, {walk}.\n",
        asked(&h.asked.selection, h.asked.commits)
    );
    let _ = writeln!(out, "| | |\n|---|---:|");
    let mut row = |name: &str, value: String| {
        let _ = writeln!(out, "| {name} | {value} |");
    };
    row("commits asked", h.asked.commits.to_string());
    row("commits reviewed", s.reviewed.to_string());
    row("commits skipped", s.skipped.to_string());
    row("reviews failed", s.failed.to_string());
    row("changed lines", s.changed_lines.to_string());
    row("findings", s.findings.to_string());
    row(
        "findings per 1,000 changed lines",
        s.findings_per_1000_lines
            .map_or_else(|| "–".to_owned(), |r| format!("{r:.1}")),
    );
    row(
        "BLOCKERs",
        format!(
            "{} in {}",
            s.blockers,
            plural(s.blocker_commits.len(), "commit")
        ),
    );
    row(
        "commits the gate would have stopped",
        format!("{}{}", s.gated.commits, share(s.gated.commits, s.reviewed)),
    );
    for cause in GateCause::ALL {
        row(
            &format!("… by {}", cause_name(cause)),
            s.gated.of(cause).to_string(),
        );
    }
    row(
        "stopped by findings alone",
        format!(
            "{}{}",
            s.gated.findings_only,
            share(s.gated.findings_only, s.reviewed)
        ),
    );
    row(
        "wall time per commit",
        format!(
            "median {} · p90 {} · max {}",
            secs(s.wall_ms.median),
            secs(s.wall_ms.p90),
            secs(s.wall_ms.max)
        ),
    );
    row("wall time in all", secs(s.wall_ms.total));

    if !h.by_rule.is_empty() {
        let _ = writeln!(
            out,
            "\n## Findings by rule\n\n| rule | BLOCKER | IMPORTANT | SUGGESTION | all |\n|---|---:|---:|---:|---:|"
        );
        for (rule, c) in &h.by_rule {
            let _ = writeln!(
                out,
                "| `{rule}` | {} | {} | {} | {} |",
                c.blocker,
                c.important,
                c.suggestion,
                c.all()
            );
        }
    }

    let gated: Vec<_> = h
        .commits
        .iter()
        .filter(|c| !c.gated_by.is_empty())
        .collect();
    if !gated.is_empty() {
        let _ = writeln!(
            out,
            "\n## Commits the gate would have stopped\n\n| commit | subject | stopped by | findings | BLOCKERs |\n|---|---|---|---:|---:|"
        );
        for c in gated {
            let by: Vec<&str> = c.gated_by.iter().map(|&g| cause_name(g)).collect();
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {} | {} |",
                c.short,
                cell(&short(&c.subject)),
                by.join(", "),
                c.findings,
                c.blockers
            );
        }
    }

    if !h.blockers.is_empty() {
        let _ = writeln!(out, "\n## BLOCKERs\n");
        for b in &h.blockers {
            let _ = writeln!(
                out,
                "- `{}` {} — **`{}`** · `{}` — {}",
                b.short,
                short(&b.subject),
                b.citation,
                b.rule,
                b.summary
            );
            if !b.why.is_empty() {
                let _ = writeln!(out, "  - why: {}", b.why.replace('\n', " "));
            }
        }
    }

    let unreviewed: Vec<_> = h
        .commits
        .iter()
        .filter(|c| c.status != Status::Reviewed)
        .collect();
    if !unreviewed.is_empty() {
        let _ = writeln!(out, "\n## Not reviewed\n");
        for c in unreviewed {
            let what = if c.status == Status::Skipped {
                "skipped"
            } else {
                "failed"
            };
            let _ = writeln!(
                out,
                "- `{}` {} — {what}: {}",
                c.short,
                short(&c.subject),
                c.reason.as_deref().unwrap_or_default()
            );
        }
    }
    out
}

/// What the run was asked, in words.
fn asked(selection: &Selection, n: usize) -> String {
    match selection {
        Selection::Last(last) => format!("The last {} of HEAD", plural((*last).min(n), "commit")),
        Selection::Commits(file) => format!("The commits {} lists", file.display()),
        Selection::Range(range) => format!("The commits of `{range}`"),
    }
}

/// The cause as the summary names it.
fn cause_name(cause: GateCause) -> &'static str {
    match cause {
        GateCause::Findings => "findings",
        GateCause::Lane => "lane",
        GateCause::Verification => "verification",
        GateCause::Trigger => "trigger",
    }
}

fn share(n: usize, of: usize) -> String {
    if of == 0 {
        return String::new();
    }
    format!(" ({:.0}% of reviewed)", n as f64 * 100.0 / of as f64)
}

fn secs(ms: u64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}

/// A commit's subject cut to fit a line.
fn short(subject: &str) -> String {
    cut(subject, 72)
}

/// Text fit for a table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}
