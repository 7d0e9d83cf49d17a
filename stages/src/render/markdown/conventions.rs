//! The "Repository conventions" section: which `REVIEW.md` files,
//! `revu.toml` and `CODEOWNERS` the review used and what they changed.
//! Absent when it used none.

use super::{code, inline};
use revu_domain::report::{ConventionEffect, Report, SourceFile};
use std::fmt::{self, Write};

pub(super) fn write(out: &mut String, r: &Report) -> fmt::Result {
    let c = &r.conventions;
    let used: Vec<&SourceFile> = c
        .review_md
        .iter()
        .chain(&c.nested_review_md)
        .chain(&c.repo_config)
        .chain(&c.codeowners)
        .collect();
    if used.is_empty() && c.warnings.is_empty() {
        return Ok(());
    }
    writeln!(out, "## Repository conventions\n")?;
    for file in used {
        writeln!(out, "- used {}", source(file))?;
    }
    if !c.ledger_checks.is_empty() {
        writeln!(
            out,
            "- review-miss ledger: {} check(s), {} match(es)",
            c.ledger_checks.len(),
            c.ledger_matches
        )?;
    }
    for g in &c.path_guidance {
        let lanes = if g.lanes.is_empty() {
            "no lane".to_owned()
        } else {
            g.lanes
                .iter()
                .map(|l| code(l))
                .collect::<Vec<_>>()
                .join(", ")
        };
        writeln!(
            out,
            "- guidance ({}) to {lanes}: {}",
            g.convention,
            inline(&g.guidance)
        )?;
    }
    effects(out, "severity override", &c.overrides_applied)?;
    effects(out, "allowed nit suppressed", &c.nits_suppressed)?;
    effects(
        out,
        "refused (a BLOCKER is never lowered or silenced)",
        &c.blockers_protected,
    )?;
    for w in &c.warnings {
        writeln!(out, "- warning: {}", inline(w))?;
    }
    writeln!(out)
}

fn source(f: &SourceFile) -> String {
    let short = f.sha256.get(..12).unwrap_or(&f.sha256);
    format!("{} ({} bytes, sha256 {short}…)", code(&f.name), f.bytes)
}

fn effects(out: &mut String, what: &str, list: &[ConventionEffect]) -> fmt::Result {
    for e in list {
        let change = match e.to {
            Some(to) => format!("{} → {to}", e.from),
            None => e.from.to_string(),
        };
        writeln!(
            out,
            "- {what} ({}): {} at {} {change}",
            e.convention,
            code(&e.rule),
            code(&e.citation)
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::markdown;
    use crate::render::fixtures::{blocked_report, clean_docs_report};
    use revu_domain::finding::Severity;
    use revu_domain::report::{ConventionEffect, SourceFile};

    #[test]
    fn section_appears_only_when_the_review_used_repo_files() {
        assert!(!markdown(&clean_docs_report()).contains("## Repository conventions"));
        let mut r = blocked_report();
        r.conventions.review_md = Some(SourceFile {
            name: "REVIEW.md".into(),
            bytes: 120,
            sha256: "ab".repeat(32),
        });
        r.conventions.overrides_applied.push(ConventionEffect {
            convention: "REVIEW.md:9".into(),
            rule: "RV-COR-001".into(),
            citation: "src/pay.rs:4".into(),
            from: Severity::Important,
            to: Some(Severity::Blocker),
        });
        r.conventions
            .warnings
            .push("REVIEW.md:14: bullet ignored".into());
        let md = markdown(&r);
        assert!(md.contains("## Repository conventions"), "{md}");
        assert!(
            md.contains("- used `REVIEW.md` (120 bytes, sha256 abababababab…)"),
            "{md}"
        );
        assert!(md.contains("- severity override (REVIEW.md:9): `RV-COR-001` at `src/pay.rs:4` IMPORTANT → BLOCKER"), "{md}");
        assert!(
            md.contains("- warning: REVIEW.md:14: bullet ignored"),
            "{md}"
        );
    }
}
