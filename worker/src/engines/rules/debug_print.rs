use super::lang::Lang;
use super::paths::{is_non_production_path, is_script_path};
use super::pattern::{Pattern, pattern};
use super::scope::each_head_line;
use super::meta::{Example, RuleMeta};
use super::{Message, Reads, Rule, RuleContext, blanked, finding, mask_of, text_files};
use revu_domain::diff::FilePatch;
use revu_domain::finding::{BlastRadius, Dimension, Finding, Severity};

static JS: Pattern = pattern!(r"\b(console\.(?:log|debug|trace|dir))\(");
static PY: Pattern = pattern!(r"^\s*(print)\(");
static RUST: Pattern = pattern!(r#"\b(dbg!)\(|\b(e?println!)\(\s*"\s*\[?(?i:debug)\b"#);
static GO: Pattern = pattern!(r#"\b(fmt\.Print(?:f|ln)?)\(\s*"\s*\[?(?i:debug)\b"#);
static PY_MAIN: Pattern = pattern!(r#"^if\s+__name__\s*==\s*["']__main__["']"#);
static PHP: Pattern = pattern!(r"\b(var_dump|print_r)\(");

/// The `debug-print` rule: [`META`].
#[derive(Debug, Clone, Copy, Default)]
pub struct DebugPrint;

/// The `debug-print` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-OPS-001",
    name: "debug-print",
    dimension: Dimension::Operability,
    severity: Severity::Suggestion,
    confidence: 85,
    languages: &["JavaScript/TypeScript", "Python", "Rust", "Go", "PHP"],
    catches: "Flags debug output added to production code: `console.log`/`debug`/`trace`/`dir` \
              (JavaScript), `print(…)` (Python), `dbg!(…)` and `println!(\"DEBUG …\")` (Rust), \
              `fmt.Println(\"debug …\")` (Go), `var_dump`/`print_r` (PHP). Tests, examples, \
              scripts and command-line entry points, where printing is the point, are skipped.",
    why: "Stray prints bypass the logging pipeline: they have no level, no structure and no \
          request context, they cannot be turned off, and they can spill internal data to \
          stdout of a server or a user's browser console.",
    example: Example {
        path: "web/cart.js",
        code: "console.log(\"cart\", cart);",
        context: "",
    },
    instead: "remove it, or log through the application logger at debug level (`logger.debug({ \
              cartId: cart.id }, \"cart loaded\")`).",
};

impl Rule for DebugPrint {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }
    fn reads(&self) -> Reads {
        Reads::CodeAndStrings
    }

    fn check(&self, ctx: &RuleContext<'_>, out: &mut Vec<Finding>) {
        for patch in text_files(ctx) {
            let path = patch.path();
            let lang = Lang::of(path);
            if is_non_production_path(path) || is_script_path(path) {
                continue;
            }
            let pattern = match lang {
                Lang::Rust => &RUST,
                Lang::JavaScript => &JS,
                Lang::Python => &PY,
                Lang::Go => &GO,
                Lang::Php => &PHP,
                _ => continue,
            };
            // A call is matched in code; Rust's and Go's prints only with
            // the `DEBUG` their message starts with.
            let in_message = matches!(lang, Lang::Rust | Lang::Go);
            let main_from = script_block_start(patch);
            let masks = ctx.production_masks(patch);
            let code = ctx.production_code(patch);
            for (i, &(line, text)) in ctx.production_lines(patch).iter().enumerate() {
                // `print(…, file=sys.stderr)` is deliberate error output.
                if line >= main_from || (lang == Lang::Python && text.contains("file=")) {
                    continue;
                }
                let subject = if in_message { text } else { blanked(&code, i, text) };
                let Some(c) = pattern.captures_line(subject, mask_of(&masks, i)) else {
                    continue;
                };
                let Some(call) = c.iter().skip(1).flatten().next() else {
                    continue;
                };
                let call = call.as_str();
                let msg = Message {
                    summary: format!("Debug output `{call}(…)` left in production code."),
                    why:
                        "Ad-hoc prints bypass the logging pipeline: no level, structure or request \
                          context, no way to turn them off, and they can spill internal data to \
                          stdout or the browser console."
                            .into(),
                    fix: "Remove it, or replace it with the application's logger at debug level \
                          with structured fields."
                        .into(),
                };
                out.push(finding(self, path, line, BlastRadius::Local, msg));
            }
        }
    }
}

/// The head line of a Python `if __name__ == "__main__":` block, after which
/// printing is the script's output (`u32::MAX` if the patch shows none).
fn script_block_start(patch: &FilePatch) -> u32 {
    patch
        .hunks
        .iter()
        .flat_map(each_head_line)
        .find(|l| PY_MAIN.is_match(l.text))
        .map_or(u32::MAX, |l| l.line)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::super::testing::{added_file, assert_well_formed, cited, modified, run};
    use super::*;

    #[test]
    fn flags_debug_output_in_production_code() {
        let change = [
            modified(
                "web/src/cart.ts",
                8,
                &[
                    (' ', "export function total(cart) {"),
                    ('+', "  console.log(\"cart\", cart);"),
                ],
            ),
            added_file("app/pricing.py", &["def price(p):", "    print(p)"]),
            added_file(
                "src/plan.rs",
                &[
                    "let plan = dbg!(build(cfg));",
                    "println!(\"DEBUG plan={plan:?}\");",
                ],
            ),
        ];
        let found = run(&DebugPrint, &change);
        assert_eq!(
            cited(&found),
            vec![
                ("web/src/cart.ts", 9),
                ("app/pricing.py", 2),
                ("src/plan.rs", 1),
                ("src/plan.rs", 2)
            ]
        );
        assert_eq!(
            found[0].summary,
            "Debug output `console.log(…)` left in production code."
        );
        assert_well_formed(&DebugPrint, &found);
    }

    #[test]
    fn ignores_tests_scripts_cli_output_and_real_logging() {
        let change = [
            added_file("web/src/cart.test.ts", &["console.log(cart);"]),
            added_file("scripts/release.py", &["print(version)"]),
            added_file("app/__main__.py", &["print(report)"]),
            added_file(
                "app/report.py",
                &[
                    "print(msg, file=sys.stderr)",
                    "if __name__ == \"__main__\":",
                    "    print(build())",
                ],
            ),
            added_file(
                "web/src/api.ts",
                &[
                    "console.error(\"request failed\", err);",
                    "// console.log(x)",
                ],
            ),
            added_file("src/main.rs", &["println!(\"listening on {addr}\");"]),
        ];
        assert!(run(&DebugPrint, &change).is_empty());
    }

    #[test]
    fn console_log_in_a_jsdoc_example_without_asterisks_is_not_debug_output() {
        let declaration = [
            "/**",
            " * Formats a value.",
            "@example",
            "console.log(format(1));",
            "```js",
            "console.debug(format(2))",
            "```",
            "*/",
            "export declare function format(x: number): string;",
        ];
        let change = [
            added_file("types/format.d.ts", &declaration),
            added_file("web/src/format.ts", &declaration),
            added_file(
                "web/src/log.ts",
                &["const hint = \"use console.log(x) to debug\";", "const t = `console.log(${x})`;"],
            ),
        ];
        assert!(run(&DebugPrint, &change).is_empty());
    }

    #[test]
    fn code_after_a_block_comment_ends_on_its_line_is_still_read() {
        let change = [added_file(
            "web/src/cart.ts",
            &["/* debugging the cart", "   total */ console.log(cart);"],
        )];
        assert_eq!(cited(&run(&DebugPrint, &change)), vec![("web/src/cart.ts", 2)]);
    }
}
