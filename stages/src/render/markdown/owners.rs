//! Who to ask: the owners, by `CODEOWNERS`, of the files that carry a
//! BLOCKER or an always-human signal. Owners are shown as code, so that a
//! report posted as a comment names them without notifying them: a CI job
//! requests reviewers from the JSON.

use super::{code, inline};
use revu_domain::report::Report;
use std::fmt::{self, Write};

/// `@a`, `@org/team` as code spans, or `no owner` when there are none.
pub(super) fn names(owners: &[String]) -> String {
    if owners.is_empty() {
        return "no owner".to_owned();
    }
    let names: Vec<String> = owners.iter().map(|o| code(o)).collect();
    names.join(", ")
}

/// The section, when the report names owners.
pub(super) fn write(out: &mut String, r: &Report) -> fmt::Result {
    if r.owners.is_empty() {
        return Ok(());
    }
    writeln!(out, "## Owners to ask\n")?;
    for file in &r.owners {
        let because: Vec<String> = file.because.iter().map(|b| b.replace('_', " ")).collect();
        writeln!(
            out,
            "- {} ({}): {}",
            code(&file.file),
            inline(&because.join(", ")),
            names(&file.owners)
        )?;
    }
    writeln!(out)
}
