//! The "Coverage" section: which lanes reviewed which files and what they
//! read of them, the files no lane reviewed and why, and the lanes that
//! could not finish what they were given.

use super::{cell, code, inline, push_code};
use revu_domain::intent::IntentSource;
use revu_domain::report::{FileRead, Report};
use std::fmt::{self, Write};

pub(super) fn write(out: &mut String, r: &Report) -> fmt::Result {
    let c = &r.coverage;
    if c.files.is_empty() && c.truncated.is_empty() {
        return Ok(());
    }
    let reviewed = c.files.iter().filter(|f| !f.lanes.is_empty()).count();
    let full = c.files.iter().filter(|f| f.read == FileRead::Full).count();
    writeln!(out, "## Coverage\n")?;
    writeln!(
        out,
        "{} file(s): {reviewed} reviewed ({full} with full contents), {} not reviewed.\n",
        c.files.len(),
        c.files.len() - reviewed
    )?;
    if !c.intent_sources.is_empty() {
        let from: Vec<&str> = c.intent_sources.iter().map(|s| said(*s)).collect();
        writeln!(out, "Intent taken from {}.\n", from.join(", "))?;
    }
    if !c.files.is_empty() {
        writeln!(
            out,
            "<details>\n<summary>Files ({})</summary>\n",
            c.files.len()
        )?;
        writeln!(
            out,
            "| path | lanes | read | not reviewed |\n|---|---|---|---|"
        )?;
        let mut lanes = String::new();
        for f in &c.files {
            lanes.clear();
            for (i, l) in f.lanes.iter().enumerate() {
                if i > 0 {
                    lanes.push_str(", ");
                }
                push_code(&mut lanes, l);
            }
            let read = match f.read {
                FileRead::Full => "full",
                FileRead::Diff => "diff",
                FileRead::None => "none",
            };
            writeln!(
                out,
                "| {} | {} | {read} | {} |",
                cell(&code(&f.path)),
                cell(&lanes),
                cell(&inline(f.skipped.as_deref().unwrap_or("")))
            )?;
        }
        writeln!(out, "\n</details>\n")?;
    }
    if !c.truncated.is_empty() {
        writeln!(out, "Not finished:\n")?;
        for t in &c.truncated {
            writeln!(out, "- {}", inline(t))?;
        }
        writeln!(out)?;
    }
    Ok(())
}

/// An intent source as the report's reader knows it.
fn said(source: IntentSource) -> &'static str {
    match source {
        IntentSource::Flag => "`--intent`",
        IntentSource::File => "`--intent-file`",
        IntentSource::Github => "the GitHub pull request",
        IntentSource::Gitlab => "the GitLab merge request",
        IntentSource::Commits => "the commit messages",
    }
}
