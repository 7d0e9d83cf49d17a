use super::pattern::{Pattern, pattern};
use super::meta::{Example, RuleMeta};
use super::{Message, Rule, RuleContext, finding, text_files};
use revu_domain::finding::{BlastRadius, Dimension, Finding, Severity};

static PLACEHOLDER: Pattern = pattern!(r"\b(todo|unimplemented)!\(");

/// The `placeholder-macro` rule: [`META`].
#[derive(Debug, Clone, Copy, Default)]
pub struct PlaceholderMacro;

/// The `placeholder-macro` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-COR-003",
    name: "placeholder-macro",
    dimension: Dimension::Correctness,
    severity: Severity::Blocker,
    confidence: 85,
    languages: &["Rust"],
    catches: "Flags `todo!()` and `unimplemented!()` added to non-test Rust code.",
    why: "Both compile into an unconditional panic. Merged, they turn an unfinished code path \
          into a crash the first time a caller reaches it, and nothing at build time says the \
          feature is incomplete.",
    example: Example {
        path: "src/payments.rs",
        code: concat!(
            "fn refund(&self, order: &Order) -> Result<(), PayError> {\n",
            "    todo!()\n",
            "}",
        ),
        context: "",
    },
    instead: "finish the implementation, or return an explicit error \
              (`Err(PayError::Unsupported(\"refund\"))`) until it exists.",
};

impl Rule for PlaceholderMacro {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, ctx: &RuleContext<'_>, out: &mut Vec<Finding>) {
        for patch in text_files(ctx) {
            // Read as code: comments and string contents are not there.
            for &(line, code) in ctx.production_rust_lines(patch).iter() {
                let Some(c) = PLACEHOLDER.captures(code) else {
                    continue;
                };
                let mac = &c[1];
                let msg = Message {
                    summary: format!("`{mac}!()` placeholder added to non-test code."),
                    why: format!(
                        "`{mac}!` always panics: any caller that reaches this path crashes, \
                         and the compiler gives no warning that the code is unfinished. \
                         Checked: the line is production code, not a test, an example or a \
                         benchmark."
                    ),
                    fix: "Implement the path before merging, or return an explicit error \
                          (e.g. an `Unsupported` variant) that callers can handle."
                        .into(),
                };
                out.push(finding(self, patch.path(), line, BlastRadius::Service, msg));
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::super::testing::{added_file, assert_well_formed, cited, run};
    use super::*;

    #[test]
    fn flags_todo_and_unimplemented() {
        let change = [added_file(
            "src/pay.rs",
            &[
                "fn refund(&self) -> Result<(), PayError> {",
                "    todo!()",
                "}",
                "fn void(&self) { unimplemented!(\"later\") }",
            ],
        )];
        let found = run(&PlaceholderMacro, &change);
        assert_eq!(cited(&found), vec![("src/pay.rs", 2), ("src/pay.rs", 4)]);
        assert!(found[0].summary.contains("todo!()"));
        assert_well_formed(&PlaceholderMacro, &found);
    }

    #[test]
    fn ignores_comments_and_test_modules() {
        let change = [added_file(
            "src/pay.rs",
            &[
                "// todo!() once the API exists",
                "mod tests {",
                "    todo!()",
                "}",
            ],
        )];
        assert!(run(&PlaceholderMacro, &change).is_empty());
    }
}
