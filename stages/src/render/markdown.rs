//! The Markdown report, for PR comments and terminals.
//!
//! Byte-identical for identical input: it reads nothing but the report and
//! iterates only over its vectors, in their order. Findings are grouped by
//! the severity they count with at the report's rigor (see
//! [`crate::verdict`]), so the headings agree with the verdict.
mod adjudication;
mod conventions;
mod coverage;
mod owners;
mod usage;
mod walkthrough;

use super::{outcome_name, rigor_name};
use crate::verdict::{folded_severity, signal_name};
use revu_domain::facts::RiskTier;
use revu_domain::finding::{Finding, Severity};
use revu_domain::report::{Gate, LaneOutcome, LaneSummary, Report, Rigor, RigorSource};
use std::borrow::Cow;
use std::fmt::{self, Write};

/// Renders the report as GitHub-flavoured Markdown.
pub fn markdown(report: &Report) -> String {
    let mut out = String::new();
    // Writing into a String cannot fail; the Result only satisfies `fmt::Write`.
    match write_report(&mut out, report) {
        Ok(()) => out,
        Err(fmt::Error) => String::new(),
    }
}

fn write_report(out: &mut String, r: &Report) -> fmt::Result {
    writeln!(out, "# revu review: {} · {}\n", r.verdict, r.gate)?;
    if !r.summary.is_empty() {
        writeln!(out, "{}\n", inline(&r.summary))?;
    }
    if r.gate == Gate::NeedsHuman && !r.gate_reasons.is_empty() {
        writeln!(out, "**Gate reasons**\n")?;
        for reason in &r.gate_reasons {
            writeln!(out, "- {}", inline(reason))?;
        }
        writeln!(out)?;
    }
    for lane in r
        .lanes
        .iter()
        .filter(|l| l.outcome != LaneOutcome::Complete)
    {
        writeln!(out, "> [!WARNING]\n> {}\n", lane_warning(lane))?;
    }
    walkthrough::write(out, r)?;
    write_findings(out, r)?;
    if !r.cross_cutting.is_empty() {
        writeln!(out, "## Cross-cutting notes\n")?;
        for note in &r.cross_cutting {
            writeln!(out, "- {}", inline(note))?;
        }
        writeln!(out)?;
    }
    writeln!(out, "## Actions\n")?;
    for (i, action) in r.actions.iter().enumerate() {
        writeln!(out, "{}. {}", i + 1, inline(action))?;
    }
    writeln!(out)?;
    owners::write(out, r)?;
    write_lanes(out, r)?;
    write_facts(out, r)?;
    coverage::write(out, r)?;
    write_verification(out, r)?;
    adjudication::write(out, r)?;
    conventions::write(out, r)?;
    writeln!(
        out,
        "Rigor: {} (from {})\n",
        rigor_name(r.rigor.level),
        source_name(r.rigor.source)
    )?;
    writeln!(out, "Review id: {}", code(&r.review_id))
}

fn write_findings(out: &mut String, r: &Report) -> fmt::Result {
    writeln!(out, "## Findings ({})\n", r.findings.len())?;
    if r.findings.is_empty() {
        return writeln!(out, "No findings.\n");
    }
    let rigor = r.rigor.level;
    for severity in [Severity::Blocker, Severity::Important, Severity::Suggestion] {
        let group: Vec<&Finding> = r
            .findings
            .iter()
            .filter(|f| folded_severity(f, rigor) == Some(severity))
            .collect();
        if group.is_empty() {
            continue;
        }
        writeln!(out, "### {severity} ({})\n", group.len())?;
        for f in group {
            write_finding(out, f, severity, rigor)?;
        }
        writeln!(out)?;
    }
    let uncounted: Vec<&Finding> = r
        .findings
        .iter()
        .filter(|f| folded_severity(f, rigor).is_none())
        .collect();
    if !uncounted.is_empty() {
        writeln!(out, "### Pre-existing, not counted ({})\n", uncounted.len())?;
        for f in uncounted {
            write_finding(out, f, f.severity, rigor)?;
        }
        writeln!(out)?;
    }
    Ok(())
}

fn write_finding(out: &mut String, f: &Finding, counted: Severity, rigor: Rigor) -> fmt::Result {
    let dimensions = if f.dimensions.is_empty() {
        f.dimension.to_string()
    } else {
        let names: Vec<&str> = f.dimensions.iter().map(|d| d.as_str()).collect();
        names.join(", ")
    };
    write!(
        out,
        "- **{}** · {dimensions} · {} · confidence {}",
        code(&f.citation()),
        code(&f.rule),
        f.confidence
    )?;
    if counted != f.severity {
        write!(
            out,
            " · raised as {} ({} rigor)",
            f.severity,
            rigor_name(rigor)
        )?;
    }
    writeln!(out, " — {}", inline(&f.shown_summary()))?;
    if !f.why.is_empty() {
        writeln!(out, "  - why: {}", inline(&f.why))?;
    }
    if !f.fix.is_empty() {
        writeln!(out, "  - fix: {}", inline(&f.fix))?;
    }
    writeln!(out, "  - blast radius: {}", inline(f.blast_radius.as_str()))?;
    if !f.owners.is_empty() {
        writeln!(out, "  - owners: {}", owners::names(&f.owners))?;
    }
    Ok(())
}

fn write_lanes(out: &mut String, r: &Report) -> fmt::Result {
    writeln!(out, "## Lanes\n")?;
    writeln!(
        out,
        "| lane | kind | engine | outcome | attempts | files | findings | summary |"
    )?;
    writeln!(out, "|---|---|---|---|---:|---:|---:|---|")?;
    for l in &r.lanes {
        let cached = if l.cache == Some(revu_domain::lane::CacheUse::Hit) {
            " (cached)"
        } else {
            ""
        };
        writeln!(
            out,
            "| {} | {} | {} | {}{cached} | {} | {} | {} | {} |",
            cell(&code(&l.id)),
            cell(&inline(&l.kind)),
            cell(&inline(&l.engine)),
            outcome_name(l.outcome),
            l.attempts,
            l.files,
            l.findings_raised,
            cell(&inline(&l.summary))
        )?;
    }
    writeln!(out)?;
    let hits = r
        .lanes
        .iter()
        .filter(|l| l.cache == Some(revu_domain::lane::CacheUse::Hit))
        .count();
    if hits > 0 {
        writeln!(
            out,
            "{hits} lane(s) reused the report of an identical input reviewed before \
             (the lane result cache; `revu submit --no-cache` runs them again).\n"
        )?;
    }
    usage::write(out, r)?;
    if !r.dimensions_not_dispatched.is_empty() {
        let skipped: Vec<String> = r
            .dimensions_not_dispatched
            .iter()
            .map(|s| format!("{} ({})", s.dimension, inline(&s.reason)))
            .collect();
        writeln!(out, "Not dispatched: {}.\n", skipped.join("; "))?;
    }
    Ok(())
}

fn write_facts(out: &mut String, r: &Report) -> fmt::Result {
    let f = &r.facts;
    let signals: Vec<&str> = f.signals.iter().map(|&s| signal_name(s)).collect();
    let signals = if signals.is_empty() {
        "none".to_owned()
    } else {
        signals.join(", ")
    };
    writeln!(out, "## Facts\n")?;
    writeln!(out, "- risk tier: {}", tier_name(f.risk_tier))?;
    writeln!(out, "- signals: {signals}")?;
    writeln!(
        out,
        "- files changed: {} (+{} −{})\n",
        f.files_changed, f.lines_added, f.lines_removed
    )?;
    if f.files.is_empty() {
        return Ok(());
    }
    // A blank line after <summary> lets GitHub render the table inside.
    writeln!(
        out,
        "<details>\n<summary>Files ({})</summary>\n",
        f.files.len()
    )?;
    writeln!(out, "| path | status | + | − | slice |")?;
    writeln!(out, "|---|---|---:|---:|---|")?;
    for file in &f.files {
        let path = match &file.old_path {
            Some(old) if *old != file.path => format!("{} ← {}", code(&file.path), code(old)),
            _ => code(&file.path),
        };
        let status = if file.binary {
            format!("{} (binary)", file.status.as_str())
        } else {
            file.status.as_str().to_owned()
        };
        writeln!(
            out,
            "| {} | {status} | {} | {} | {} |",
            cell(&path),
            file.added,
            file.removed,
            cell(&inline(&file.slice))
        )?;
    }
    writeln!(out, "\n</details>\n")
}

fn write_verification(out: &mut String, r: &Report) -> fmt::Result {
    let v = &r.verification;
    let dropped = v.dropped_unknown_file
        + v.dropped_missing_line
        + v.dropped_low_confidence
        + v.dropped_untouched_line;
    writeln!(out, "## Verification\n")?;
    writeln!(
        out,
        "raised {} · kept {} · dropped {dropped} (unknown file {}, missing line {}, low confidence {}, untouched line {}) · merged duplicates {}\n",
        v.raised,
        v.kept,
        v.dropped_unknown_file,
        v.dropped_missing_line,
        v.dropped_low_confidence,
        v.dropped_untouched_line,
        v.merged_duplicates
    )?;
    if v.elevated > 0 {
        writeln!(
            out,
            "Raised from IMPORTANT to BLOCKER by blast radius (50 or more transitive importers): {}\n",
            v.elevated
        )?;
    }
    if let Some(note) = &r.cover_fallback {
        writeln!(out, "Cover fallback: {}\n", inline(note))?;
    }
    write_code_index(out, r)
}

/// What the code index read, and the downstream uses it found.
fn write_code_index(out: &mut String, r: &Report) -> fmt::Result {
    let Some(index) = &r.code_index else {
        return writeln!(
            out,
            "Code index: none (blast radius is graph unavailable -- severity based on code analysis only)\n"
        );
    };
    let languages: Vec<String> = index
        .languages
        .iter()
        .map(|(lang, n)| format!("{lang} {n}"))
        .collect();
    writeln!(
        out,
        "Code index: {} file(s) ({}) · with syntax errors {} · skipped {} · stale uses {}\n",
        index.files,
        if languages.is_empty() {
            "no indexed language".to_owned()
        } else {
            languages.join(", ")
        },
        index.with_errors,
        index.skipped,
        index.stale_uses
    )?;
    if !index.unconfirmed.is_empty() {
        writeln!(
            out,
            "Possible stale uses the index could not confirm ({}), no finding:\n",
            index.unconfirmed.len()
        )?;
        for u in &index.unconfirmed {
            writeln!(
                out,
                "- {} `{}` ({}): {}",
                code(&format!("{}:{}", u.file, u.line)),
                u.symbol,
                u.change,
                u.doubt
            )?;
        }
        writeln!(out)?;
    }
    if index.downstream.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "## Downstream consumers ({})\n",
        index.downstream.len()
    )?;
    writeln!(
        out,
        "| repository | use | symbol | change |\n|---|---|---|---|"
    )?;
    for hit in &index.downstream {
        writeln!(
            out,
            "| {} | {} | {} | {} |",
            cell(&hit.repository),
            code(&format!("{}:{}", hit.file, hit.line)),
            code(&hit.symbol),
            hit.change
        )?;
    }
    writeln!(out)
}

fn lane_warning(lane: &LaneSummary) -> String {
    let what = match lane.outcome {
        LaneOutcome::PipelineFault => "faulted",
        LaneOutcome::Incomplete => "incomplete",
        LaneOutcome::Cancelled => "cancelled",
        LaneOutcome::Complete => "complete",
    };
    match &lane.banner {
        Some(banner) => format!("lane {} {what}: {}", code(&lane.id), inline(banner)),
        None => format!("lane {} {what}", code(&lane.id)),
    }
}

/// A code span that survives backticks inside: the fence is one longer than
/// the longest backtick run, padded when the text touches a backtick.
fn code(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    push_code(&mut out, text);
    out
}

/// [`code`] of `text`, written at the end of `out`.
fn push_code(out: &mut String, text: &str) {
    if !text.contains('`') {
        out.push('`');
        out.push_str(text);
        out.push('`');
        return;
    }
    // The longest run of backticks in `text`.
    let (mut longest, mut run) = (0, 0);
    for b in text.bytes() {
        run = if b == b'`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    for part in [fence.as_str(), pad, text, pad, fence.as_str()] {
        out.push_str(part);
    }
}

/// Free text on one line, so that it cannot break the list or table around it.
fn inline(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A table cell: one line, and `|` cannot end the cell (GitHub honours the
/// escape even inside a code span).
fn cell(text: &str) -> Cow<'_, str> {
    if !text.contains(['\r', '\n', '|']) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.replace(['\r', '\n'], " ").replace('|', "\\|"))
}

fn tier_name(tier: RiskTier) -> &'static str {
    match tier {
        RiskTier::Trivial => "TRIVIAL",
        RiskTier::Local => "LOCAL",
        RiskTier::Broad => "BROAD",
        RiskTier::HighRisk => "HIGH_RISK",
    }
}

fn source_name(source: RigorSource) -> &'static str {
    match source {
        RigorSource::Request => "request",
        RigorSource::RepoConfig => "repo config",
        RigorSource::Default => "default",
    }
}

#[cfg(test)]
mod tests;
