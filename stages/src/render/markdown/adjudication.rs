//! The "Adjudication" section: what the adjudication lane confirmed,
//! downgraded and dropped, each change with its reason, and the second
//! opinions on BLOCKERs beside it. Absent when the review was not
//! adjudicated.

use super::{code, inline};
use revu_domain::adjudication::{Action, AdjudicationStatus, ChallengeVerdict};
use revu_domain::report::Report;
use std::fmt::{self, Write};

pub(super) fn write(out: &mut String, r: &Report) -> fmt::Result {
    let Some(a) = &r.adjudication else {
        return Ok(());
    };
    writeln!(out, "## Adjudication\n")?;
    match a.status {
        AdjudicationStatus::Applied => writeln!(
            out,
            "engine {} · candidates {} · confirmed {} · downgraded {} · dropped {}\n",
            code(&a.engine),
            a.candidates,
            a.confirmed,
            a.downgraded,
            a.dropped
        )?,
        AdjudicationStatus::NothingToAdjudicate => writeln!(
            out,
            "engine {} · nothing to adjudicate: no BLOCKER or IMPORTANT finding survived verification\n",
            code(&a.engine)
        )?,
        AdjudicationStatus::NotApplied => writeln!(
            out,
            "engine {} · candidates {} · not applied: findings are as verification left them\n",
            code(&a.engine),
            a.candidates
        )?,
    }
    for c in &a.changes {
        let what = match (c.action, c.to) {
            (Action::Downgrade, Some(to)) => format!("downgraded {} → {to}", c.from),
            _ => format!("dropped {}", c.from),
        };
        writeln!(
            out,
            "- {what} {} at {}: {}",
            code(&c.rule),
            code(&c.citation),
            inline(&c.reason)
        )?;
    }
    for w in &a.warnings {
        writeln!(out, "- warning: {}", inline(w))?;
    }
    if !a.changes.is_empty() || !a.warnings.is_empty() {
        writeln!(out)?;
    }
    if !a.challenges.is_empty() {
        writeln!(out, "Second opinions on BLOCKERs:\n")?;
        writeln!(out, "| finding | adjudication | challenge | reason |")?;
        writeln!(out, "|---|---|---|---|")?;
        for c in &a.challenges {
            let challenge = match c.verdict {
                ChallengeVerdict::Stands => "stands",
                ChallengeVerdict::Disproved => "disproved: lowered to IMPORTANT",
                ChallengeVerdict::NotApplied => "disproved, not applied",
                ChallengeVerdict::Unsettled => "did not complete",
            };
            let reason = match c.evidence.as_str() {
                "" => inline(&c.reason),
                e => format!("{} ({})", inline(&c.reason), code(e)),
            };
            writeln!(
                out,
                "| {} at {} | {} | {challenge} | {reason} |",
                code(&c.rule),
                code(&c.citation),
                c.adjudication.map_or("no decision", Action::as_str),
            )?;
        }
        writeln!(out)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::markdown;
    use crate::render::fixtures::{adjudicated_report, blocked_report};

    #[test]
    fn section_lists_every_drop_and_downgrade_with_its_reason() {
        assert!(!markdown(&blocked_report()).contains("## Adjudication"));
        let md = markdown(&adjudicated_report());
        let section = "## Adjudication\n\n\
            engine `rules` · candidates 3 · confirmed 1 · downgraded 1 · dropped 1\n\n\
            - downgraded BLOCKER → IMPORTANT `RV-SEC-001` at `src/auth/session.rs:42-44`: only test code calls it\n\
            - dropped IMPORTANT `RV-COR-002` at `src/api/client.rs:9`: rule no longer fires at src/api/client.rs:9\n\
            - warning: second decision for candidate 0 ignored\n\n\
            Second opinions on BLOCKERs:\n\n\
            | finding | adjudication | challenge | reason |\n\
            |---|---|---|---|\n\
            | `RV-SEC-001` at `src/auth/session.rs:42-44` | downgrade | stands | the token reaches the comparison from the cookie |\n\n";
        assert!(md.contains(section), "{md}");
    }
}
