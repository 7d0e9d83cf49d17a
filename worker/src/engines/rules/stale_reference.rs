use super::meta::{Example, RuleMeta};
use super::{Message, Rule, RuleContext, finding};
use revu_domain::code_index::{SymbolChange, describe_radius};
use revu_domain::finding::{BlastRadius, Dimension, Finding, Severity};

/// The `stale-reference` rule: [`META`].
#[derive(Debug, Clone, Copy, Default)]
pub struct StaleReference;

/// The `stale-reference` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-COR-006",
    name: "stale-reference",
    dimension: Dimension::Correctness,
    severity: Severity::Blocker,
    confidence: 90,
    languages: &["Python", "JavaScript/TypeScript", "Go", "Rust", "Java"],
    catches: "Flags a use, anywhere at head, of a symbol this change renamed or removed in one \
              of the lane's files, or a call that still passes the arguments a function took \
              before the change re-shaped its parameters. It reads the client's code index \
              (tree-sitter definitions, references and imports of the repository at head), so \
              it sees call sites on lines and in files the diff does not touch. Without an \
              index it is silent.\n\
              \n\
              The index resolves each name through its binding first (locals, imports, \
              qualifiers, the receiver's type): a use it resolved is a BLOCKER whose `why` says \
              what was checked. A use it could not resolve with certainty is no finding: the \
              report lists it under the code index with its doubt, and the llm lanes get it as \
              a candidate to check. A check that the old name is gone, which only raises, is no \
              use.",
    why: "A rename applied to the definition and to some callers compiles in the files that \
          changed and breaks in the one that did not: an `AttributeError` or `undefined` at run \
          time, or a build failure in a package the author never opened. It is the omission a \
          reviewer reading only the hunks misses.",
    example: Example {
        path: "app/models.py",
        code: "self.username = name",
        context: "The line replaces `self.user_name = name`, and the code index finds \
                  `print(user.user_name)` in `app/report.py`, which the change does not touch.",
    },
    instead: "rename the remaining use (`user.username`), or keep the old name as an alias \
              while callers move.",
};

impl Rule for StaleReference {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, ctx: &RuleContext<'_>, out: &mut Vec<Finding>) {
        let Some(index) = ctx.index else { return };
        for o in &index.omissions {
            if o.doubt.is_some() || !ctx.files.iter().any(|p| p.path() == o.defined_in) {
                continue;
            }
            let (summary, fix) = match &o.change {
                SymbolChange::Removed => (
                    format!("`{}` was removed, but this still uses it.", o.symbol),
                    format!("Remove this use of `{}`, or keep the definition.", o.symbol),
                ),
                SymbolChange::Renamed { to } => (
                    format!("`{}` was renamed to `{to}`, but this still uses the old name.", o.symbol),
                    format!("Rename this use to `{to}`."),
                ),
                SymbolChange::Arity { now, .. } => (
                    format!("`{}` now takes {now} argument(s), but this call was not updated.", o.symbol),
                    format!("Pass the arguments `{}` takes now.", o.symbol),
                ),
            };
            let what = format!(
                "{} `{}` (at {}:{} before the change)",
                o.kind.as_str(),
                o.symbol,
                o.defined_in,
                o.defined_line
            );
            let done = match &o.change {
                SymbolChange::Removed => format!("removed {what}"),
                SymbolChange::Renamed { to } => format!("renamed {what} to `{to}`"),
                SymbolChange::Arity { was, now, passed } => format!(
                    "changed the parameters of {what} from {was} to {now}; this call passes {passed}"
                ),
            };
            let why = format!(
                "The change {done}, and this line at head still reads `{}`: it fails at run \
                 time or does not build. Checked: {}.",
                o.text, o.checked
            );
            // Verification writes the blast radius again from the same index.
            let radius = index
                .blast_radius(&o.site.file, o.site.line)
                .map_or(BlastRadius::Local, |(callers, importers)| {
                    BlastRadius::Described(describe_radius(callers, importers))
                });
            out.push(finding(
                self,
                &o.site.file,
                o.site.line,
                radius,
                Message { summary, why, fix },
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{assert_well_formed, cited, modified};
    use super::*;
    use revu_domain::code_index::{CodeIndex, Omission, Site, SymbolKind};

    fn index() -> CodeIndex {
        CodeIndex {
            omissions: vec![Omission {
                symbol: "user_name".into(),
                kind: SymbolKind::Property,
                change: SymbolChange::Renamed {
                    to: "username".into(),
                },
                defined_in: "app/models.py".into(),
                defined_line: 3,
                site: Site::at("app/report.py", 6),
                text: "return user.user_name".into(),
                checked: String::new(),
                doubt: None,
            }],
            ..CodeIndex::default()
        }
    }

    #[test]
    fn a_stale_use_of_a_symbol_renamed_in_the_lane_is_a_blocker_at_the_use() {
        let change = [modified(
            "app/models.py",
            3,
            &[('-', "        self.user_name = name"), ('+', "        self.username = name")],
        )];
        let files: Vec<_> = change.iter().collect();
        let index = index();
        let mut out = Vec::new();
        StaleReference.check(
            &RuleContext::new(&files, &change, Some(&index)),
            &mut out,
        );
        assert_eq!(cited(&out), vec![("app/report.py", 6)]);
        assert!(out[0].why.contains("to `username`"), "{}", out[0].why);
        assert_well_formed(&StaleReference, &out);
    }

    #[test]
    fn another_lane_and_a_review_without_an_index_raise_nothing() {
        let change = [modified("app/views.py", 1, &[('+', "x = 1")])];
        let files: Vec<_> = change.iter().collect();
        let index = index();
        for index in [Some(&index), None] {
            let mut out = Vec::new();
            StaleReference.check(
                &RuleContext::new(&files, &change, index),
                &mut out,
            );
            assert!(out.is_empty());
        }
    }
}
