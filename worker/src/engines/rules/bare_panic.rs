use super::pattern::{Pattern, pattern};
use super::meta::{Example, RuleMeta};
use super::{Message, Rule, RuleContext, finding, text_files};
use revu_domain::finding::{BlastRadius, Dimension, Finding, Severity};

static BARE: Pattern = pattern!(r"\b(panic|unreachable)!\(\s*\)");

/// The `bare-panic` rule: [`META`].
#[derive(Debug, Clone, Copy, Default)]
pub struct BarePanic;

/// The `bare-panic` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-COR-002",
    name: "bare-panic",
    dimension: Dimension::Correctness,
    severity: Severity::Important,
    confidence: 80,
    languages: &["Rust"],
    catches: "Flags `panic!()` and `unreachable!()` without a message, added to non-test Rust \
              code.",
    why: "When it fires in production, the only clue is \"explicit panic\" or \"entered \
          unreachable code\" and a line number. A message that states the violated invariant \
          and the offending value makes the crash diagnosable from the logs alone.",
    example: Example {
        path: "src/state.rs",
        code: concat!(
            "match state {\n",
            "    State::Open => open(),\n",
            "    _ => unreachable!(),\n",
            "}",
        ),
        context: "",
    },
    instead: concat!(
        "```rust\n",
        "match state {\n",
        "    State::Open => open(),\n",
        "    other => unreachable!(\"state {other:?} is filtered out by poll()\"),\n",
        "}\n",
        "```",
    ),
};

impl Rule for BarePanic {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, ctx: &RuleContext<'_>, out: &mut Vec<Finding>) {
        for patch in text_files(ctx) {
            // Read as code: comments and string contents are not there.
            for &(line, code) in ctx.production_rust_lines(patch).iter() {
                let Some(c) = BARE.captures(code) else {
                    continue;
                };
                let mac = &c[1];
                let msg = Message {
                    summary: format!("`{mac}!()` without a message added to non-test code."),
                    why: format!(
                        "If this path is ever reached the process aborts the task with a bare \
                         `{mac}!` and nothing explaining which invariant broke or with what value."
                    ),
                    fix: format!(
                        "Return an error if the case can happen; otherwise give the macro a \
                         message naming the invariant and the value, e.g. \
                         `{mac}!(\"unexpected state {{state:?}}\")`."
                    ),
                };
                out.push(finding(self, patch.path(), line, BlastRadius::Service, msg));
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::super::testing::{added_file, assert_well_formed, cited, modified, run};
    use super::*;

    #[test]
    fn flags_panics_without_a_message() {
        let change = [modified(
            "src/state.rs",
            7,
            &[
                (' ', "match state {"),
                ('+', "    State::Open => open(),"),
                ('+', "    _ => unreachable!(),"),
                (' ', "}"),
            ],
        )];
        let found = run(&BarePanic, &change);
        assert_eq!(cited(&found), vec![("src/state.rs", 9)]);
        assert!(found[0].summary.contains("unreachable!()"));
        assert_well_formed(&BarePanic, &found);
    }

    #[test]
    fn ignores_panics_with_a_message_and_test_code() {
        let change = [
            added_file(
                "src/a.rs",
                &["_ => unreachable!(\"filtered by poll: {s:?}\"),"],
            ),
            added_file("src/b_test.rs", &["panic!()"]),
            added_file("src/c.rs", &["#[test]", "fn t() { panic!() }"]),
        ];
        assert!(run(&BarePanic, &change).is_empty());
    }
}
