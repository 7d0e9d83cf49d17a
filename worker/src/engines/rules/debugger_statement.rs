use super::lang::Lang;
use super::pattern::{Pattern, pattern};
use super::meta::{Example, RuleMeta};
use super::{Message, Rule, RuleContext, finding, mask_of, text_files};
use revu_domain::finding::{BlastRadius, Dimension, Finding, Severity};

static JS: Pattern = pattern!(r"^\s*(debugger)\s*;?\s*$");
static PY: Pattern = pattern!(r"\b((?:i?pdb|pudb|ipdb)\.set_trace)\(|^\s*(breakpoint)\(\)|\b(pdb\.post_mortem)\(");
static RUBY: Pattern = pattern!(r"\b(binding\.(?:pry|irb))\b|^\s*(byebug|debugger)\s*$");
static PHP: Pattern = pattern!(r"\b(xdebug_break)\(\)");

/// The `debugger-statement` rule: [`META`].
#[derive(Debug, Clone, Copy, Default)]
pub struct DebuggerStatement;

/// The `debugger-statement` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-OPS-002",
    name: "debugger-statement",
    dimension: Dimension::Operability,
    severity: Severity::Important,
    confidence: 95,
    languages: &["JavaScript/TypeScript", "Python", "Ruby", "PHP"],
    catches: "Flags interactive debugger breakpoints: `debugger;` (JavaScript), \
              `pdb.set_trace()`, `breakpoint()` (Python), `binding.pry`, `byebug` (Ruby), \
              `xdebug_break()` (PHP) — in any file, tests included.",
    why: "When reached, the process stops and waits for a debugger or a terminal that is not \
          there: a request hangs until it times out, a worker stalls, or a CI job blocks until \
          it is killed.",
    example: Example {
        path: "app/billing.py",
        code: concat!(
            "def charge(order):\n",
            "    breakpoint()\n",
            "    return gateway.charge(order.total)",
        ),
        context: "",
    },
    instead: "remove the breakpoint before committing; use the debugger's own breakpoints or a \
              log line instead.",
};

impl Rule for DebuggerStatement {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, ctx: &RuleContext<'_>, out: &mut Vec<Finding>) {
        for patch in text_files(ctx) {
            let lang = Lang::of(patch.path());
            let pattern = match lang {
                Lang::JavaScript => &JS,
                Lang::Python => &PY,
                Lang::Ruby => &RUBY,
                Lang::Php => &PHP,
                _ => continue,
            };
            let masks = ctx.added_masks(patch);
            for (i, &(line, text)) in ctx.added_lines(patch).iter().enumerate() {
                let Some(c) = pattern.captures_line(text, mask_of(&masks, i)) else {
                    continue;
                };
                let Some(stmt) = c.iter().skip(1).flatten().next() else {
                    continue;
                };
                let stmt = stmt.as_str();
                let msg = Message {
                    summary: format!("Debugger breakpoint `{stmt}` left in the code."),
                    why: "When this line runs, the process stops and waits for an interactive \
                          debugger that is not attached: requests hang until they time out and \
                          CI jobs block until killed."
                        .into(),
                    fix: format!(
                        "Remove `{stmt}` before merging; use editor breakpoints or a log line \
                         while debugging."
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
    fn flags_breakpoints_in_any_file() {
        let change = [
            modified(
                "app/billing.py",
                40,
                &[
                    (' ', "def charge(order):"),
                    ('+', "    import pdb; pdb.set_trace()"),
                ],
            ),
            added_file(
                "web/src/cart.js",
                &["function total(c) {", "  debugger;", "}"],
            ),
            added_file("spec/cart_spec.rb", &["  binding.pry"]),
        ];
        let found = run(&DebuggerStatement, &change);
        assert_eq!(
            cited(&found),
            vec![
                ("app/billing.py", 41),
                ("web/src/cart.js", 2),
                ("spec/cart_spec.rb", 1)
            ]
        );
        assert_eq!(
            found[0].summary,
            "Debugger breakpoint `pdb.set_trace` left in the code."
        );
        assert_well_formed(&DebuggerStatement, &found);
    }

    #[test]
    fn ignores_comments_and_identifiers_that_merely_mention_it() {
        let change = [
            added_file(
                "app/billing.py",
                &["# breakpoint() here when debugging", "use_breakpoint()"],
            ),
            added_file(
                "web/src/dbg.js",
                &[
                    "const debuggerEnabled = false;",
                    "log('debugger attached');",
                ],
            ),
        ];
        assert!(run(&DebuggerStatement, &change).is_empty());
    }
}
