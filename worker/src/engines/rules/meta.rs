//! What a built-in rule is, as people read it. Every rule has one
//! [`RuleMeta`], a `static` beside its code: the engine reads its code,
//! severity and confidence from it, its cache identity digests it
//! ([`super::identity`]), and `revu rules` prints it (`docs/rules.md` is
//! that command's output).

use revu_domain::finding::{Dimension, Severity};

/// A built-in rule's entry in the catalogue. Its text is Markdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleMeta {
    /// Stable code, e.g. `RV-SEC-001`. Never reused for another check.
    pub code: &'static str,
    /// Short kebab-case name, e.g. `hardcoded-credential`.
    pub name: &'static str,
    pub dimension: Dimension,
    /// The severity of its findings, before the rule lowers one that a
    /// convention says is no blocker (the finding's `why` then says so).
    pub severity: Severity,
    /// 0–100: how often a hit is a true positive.
    pub confidence: u8,
    /// The languages and kinds of file it reads, e.g. `["Python", "Go"]`.
    pub languages: &'static [&'static str],
    /// What it flags, and what it leaves alone.
    pub catches: &'static str,
    /// Why what it flags matters.
    pub why: &'static str,
    /// A change it flags.
    pub example: Example,
    /// What to write instead.
    pub instead: &'static str,
}

/// A change a rule flags: lines added to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Example {
    /// The file the lines are added to; its name says the language.
    pub path: &'static str,
    /// The lines added.
    pub code: &'static str,
    /// What the rule reads besides the lines, for a rule that needs more
    /// than them to fire (the code index, a file's size); empty when the
    /// lines are all.
    pub context: &'static str,
}

/// Where a reason goes in a silencing bullet.
const REASON: &str = "why it does not matter here";

impl RuleMeta {
    /// How to silence the rule in `REVIEW.md`, as Markdown
    /// (`docs/conventions.md` has the syntax).
    pub fn silencing(&self) -> String {
        let code = self.code;
        match self.review_md() {
            None => format!(
                "Not silenced: `REVIEW.md` never lowers or suppresses a BLOCKER. A severity \
                 override that would lower `{code}` is refused (the report lists it under \
                 `conventions.blockers_protected`), and an allowed nit never matches a \
                 BLOCKER: fix the code instead. A finding the rule itself reports lower (its \
                 `why` starts with \"Downgraded from BLOCKER\") is silenced like any finding \
                 of its severity."
            ),
            Some(snippet) => {
                let how = match self.severity {
                    Severity::Suggestion => "Allow it as a nit",
                    _ => {
                        "Cap it to SUGGESTION, then allow it as a nit (capped alone, it stays a SUGGESTION)"
                    }
                };
                format!(
                    "{how}:\n\n```markdown\n{snippet}```\n\nAfter the code, \
                     `` in `GLOB` `` keeps it to the paths a glob matches."
                )
            }
        }
    }

    /// The `REVIEW.md` sections that silence the rule everywhere; none for
    /// a BLOCKER, which nothing in `REVIEW.md` silences.
    pub fn review_md(&self) -> Option<String> {
        let code = self.code;
        let nit = format!("## Allowed Nits\n\n- `{code}`: {REASON}\n");
        match self.severity {
            Severity::Blocker => None,
            Severity::Important => Some(format!(
                "## Severity Overrides\n\n- `{code}`: at most SUGGESTION — {REASON}\n\n{nit}"
            )),
            Severity::Suggestion => Some(nit),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const META: RuleMeta = RuleMeta {
        code: "RV-COR-099",
        name: "example-rule",
        dimension: Dimension::Correctness,
        severity: Severity::Important,
        confidence: 80,
        languages: &["Rust"],
        catches: "",
        why: "",
        example: Example {
            path: "src/lib.rs",
            code: "x",
            context: "",
        },
        instead: "",
    };

    #[test]
    fn a_blocker_is_never_silenced_and_the_rest_are_capped_then_allowed() {
        let blocker = RuleMeta {
            severity: Severity::Blocker,
            ..META
        };
        assert_eq!(blocker.review_md(), None);
        assert!(blocker.silencing().starts_with("Not silenced"));
        let important = META.review_md().unwrap_or_default();
        assert!(important.contains("- `RV-COR-099`: at most SUGGESTION"));
        assert!(important.contains("## Allowed Nits\n\n- `RV-COR-099`"));
        let suggestion = RuleMeta {
            severity: Severity::Suggestion,
            ..META
        };
        let nit = suggestion.review_md().unwrap_or_default();
        assert!(!nit.contains("Severity Overrides"), "{nit}");
        assert!(suggestion.silencing().contains(&nit));
    }
}
