use super::lang::Lang;
use super::paths::is_test_path;
use super::pattern::{Pattern, pattern};
use super::meta::{Example, RuleMeta};
use super::{Message, Rule, RuleContext, finding, text_files};
use revu_domain::finding::{BlastRadius, Dimension, Finding, Severity};

static JS_FOCUS: Pattern = pattern!(r"(?:^|[^\w.])((?:describe|it|test|context|suite)\.only|fit|fdescribe|fcontext)\(");
static RUBY_FOCUS: Pattern = pattern!(r"^\s*(fit|fdescribe|fcontext)\b|\b(focus:\s*true)\b");

/// The `focused-test` rule: [`META`].
#[derive(Debug, Clone, Copy, Default)]
pub struct FocusedTest;

/// The `focused-test` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-TEST-002",
    name: "focused-test",
    dimension: Dimension::Testing,
    severity: Severity::Important,
    confidence: 90,
    languages: &["JavaScript/TypeScript", "Ruby"],
    catches: "Flags focused tests committed to test files: `it.only(`, `describe.only(`, \
              `test.only(`, `fit(`, `fdescribe(` (Jest, Mocha, Jasmine, Vitest) and RSpec \
              `fit`/`fdescribe`/`focus: true`.",
    why: "A focused test makes the runner skip every other test in the file or the whole suite. \
          CI stays green while almost nothing is tested.",
    example: Example {
        path: "web/cart.test.js",
        code: "it.only(\"applies the discount\", () => { /* … */ });",
        context: "",
    },
    instead: "```js\n\
              it(\"applies the discount\", () => { /* … */ });\n\
              ```",
};

impl Rule for FocusedTest {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, ctx: &RuleContext<'_>, out: &mut Vec<Finding>) {
        for patch in text_files(ctx) {
            let path = patch.path();
            let lang = Lang::of(path);
            let pattern = match lang {
                Lang::JavaScript => &JS_FOCUS,
                Lang::Ruby => &RUBY_FOCUS,
                _ => continue,
            };
            if !is_test_path(path) {
                continue;
            }
            for &(line, text) in ctx.added_lines(patch).iter() {
                let Some(c) = pattern.captures(text) else {
                    continue;
                };
                let Some(construct) = c.iter().skip(1).flatten().next() else {
                    continue;
                };
                let construct = construct.as_str();
                let msg = Message {
                    summary: format!("Focused test `{construct}` committed."),
                    why: format!(
                        "`{construct}` makes the runner skip every other test in scope, so CI \
                         stays green while most of the suite no longer runs."
                    ),
                    fix: "Remove the focus (`it.only` → `it`, `fit` → `it`, drop `focus: true`), \
                          and consider forbidding it in CI (`--forbid-only`, ESLint \
                          `no-only-tests`)."
                        .into(),
                };
                out.push(finding(self, path, line, BlastRadius::Module, msg));
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
    fn flags_focused_tests() {
        let change = [
            added_file(
                "web/src/cart.test.ts",
                &[
                    "describe(\"cart\", () => {",
                    "  it.only(\"applies the discount\", () => {",
                ],
            ),
            added_file("spec/models/cart_spec.rb", &["  fit \"totals\" do"]),
        ];
        let found = run(&FocusedTest, &change);
        assert_eq!(
            cited(&found),
            vec![("web/src/cart.test.ts", 2), ("spec/models/cart_spec.rb", 1)]
        );
        assert_eq!(found[0].summary, "Focused test `it.only` committed.");
        assert_well_formed(&FocusedTest, &found);
    }

    #[test]
    fn ignores_plain_tests_words_and_non_test_files() {
        let change = [
            added_file(
                "web/src/cart.test.ts",
                &[
                    "it(\"only charges once\", () => {",
                    "// it.only(\"debug\") while bisecting",
                    "const fit = layout.fit(box);",
                ],
            ),
            added_file(
                "web/src/layout.ts",
                &["export function fit(box) {}", "fit(box);"],
            ),
        ];
        assert!(run(&FocusedTest, &change).is_empty());
    }
}
