use super::lang::Lang;
use super::pattern::{Pattern, pattern};
use super::meta::{Example, RuleMeta};
use super::{Message, Rule, RuleContext, finding, mask_of, text_files};
use revu_domain::finding::{BlastRadius, Dimension, Finding, Severity};

// Unconditional skips, per language; conditional ones (`skipif`, `t.Skip`
// behind an `if`) are deliberate and not matched.
static JS: Pattern = pattern!(r"(?:^|[^\w.])((?:describe|it|test|context|suite)\.skip|xit|xdescribe|xtest)\(");
static PY: Pattern = pattern!(r"^\s*(@pytest\.mark\.skip|@unittest\.skip)\b(?:\(|\s*$)");
static RUST: Pattern = pattern!(r"^\s*(#\[ignore\])");
static JVM: Pattern = pattern!(r"^\s*(@Disabled|@Ignore)\b");

/// The `skipped-test` rule: [`META`].
#[derive(Debug, Clone, Copy, Default)]
pub struct SkippedTest;

/// The `skipped-test` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-TEST-003",
    name: "skipped-test",
    dimension: Dimension::Testing,
    severity: Severity::Suggestion,
    confidence: 80,
    languages: &["JavaScript/TypeScript", "Python", "Rust", "Java", "Kotlin"],
    catches: "Flags tests disabled unconditionally: `it.skip`, `describe.skip`, `xit`, \
              `xdescribe` (JavaScript), `@pytest.mark.skip`, `@unittest.skip` (Python), a bare \
              `ignore` attribute (Rust), `@Disabled`/`@Ignore` (Java, Kotlin). Conditional \
              skips such as `skipif`, and Rust's documented `ignore = \"reason\"` attribute for \
              slow tests run with `--ignored`, are not flagged.",
    why: "A skipped test reports nothing while the suite stays green, so the behaviour it \
          covered can break unnoticed; skips added \"for now\" tend to stay forever.",
    example: Example {
        path: "tests/test_refunds.py",
        code: "@pytest.mark.skip\n\
               def test_refund_rounding(): ...",
        context: "",
    },
    instead: "fix the test, or skip it only under the condition that breaks it \
              (`@pytest.mark.skipif(sys.platform == \"win32\", reason=\"…\")`) with an issue \
              reference.",
};

impl Rule for SkippedTest {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, ctx: &RuleContext<'_>, out: &mut Vec<Finding>) {
        for patch in text_files(ctx) {
            let lang = Lang::of(patch.path());
            let pattern = match lang {
                Lang::JavaScript => &JS,
                Lang::Python => &PY,
                Lang::Rust => &RUST,
                Lang::Java | Lang::Kotlin => &JVM,
                _ => continue,
            };
            let masks = ctx.added_masks(patch);
            for (i, &(line, text)) in ctx.added_lines(patch).iter().enumerate() {
                let Some(c) = pattern.captures_line(text, mask_of(&masks, i)) else {
                    continue;
                };
                let construct = c.get(1).map_or("", |m| m.as_str());
                let msg = Message {
                    summary: format!("Test disabled with `{construct}`."),
                    why: "A skipped test no longer checks anything while the suite stays green, \
                          so the behaviour it covered can regress unnoticed; temporary skips tend \
                          to become permanent."
                        .into(),
                    fix: "Fix the test or the code it exercises; if it must be skipped, make the \
                          skip conditional on the actual cause and link the tracking issue in \
                          the reason (in Rust, `#[\x69gnore = \"why\"]`)."
                        .into(),
                };
                out.push(finding(self, patch.path(), line, BlastRadius::Local, msg));
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
    fn flags_unconditional_skips() {
        let change = [
            modified(
                "tests/test_refunds.py",
                14,
                &[
                    (' ', ""),
                    ('+', "@pytest.mark.skip(reason=\"flaky\")"),
                    (' ', "def test_rounding():"),
                ],
            ),
            added_file("web/cart.test.ts", &["it.skip(\"totals\", () => {});"]),
            added_file("src/diff.rs", &["#[test]", "#[\x69gnore]", "fn slow() {}"]),
        ];
        let found = run(&SkippedTest, &change);
        assert_eq!(
            cited(&found),
            vec![
                ("tests/test_refunds.py", 15),
                ("web/cart.test.ts", 1),
                ("src/diff.rs", 2)
            ]
        );
        assert_eq!(found[0].summary, "Test disabled with `@pytest.mark.skip`.");
        assert_eq!(found[2].summary, "Test disabled with `#[\x69gnore]`.");
        assert_well_formed(&SkippedTest, &found);
    }

    #[test]
    fn ignores_conditional_skips_and_unrelated_calls() {
        let change = [
            added_file(
                "tests/test_refunds.py",
                &[
                    "@pytest.mark.skipif(sys.platform == \"win32\", reason=\"no fork\")",
                    "# @pytest.mark.skip",
                ],
            ),
            added_file(
                "web/list.ts",
                &["const rest = items.skip(2);", "stream.skip(1)"],
            ),
            added_file(
                "tests/perf.rs",
                &["#[\x69gnore = \"slow: run with --ignored\"]"],
            ),
        ];
        assert!(run(&SkippedTest, &change).is_empty());
    }
}
