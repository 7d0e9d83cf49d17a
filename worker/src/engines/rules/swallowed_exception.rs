use super::falsify::Around;
use super::lang::Lang;
use super::pattern::{Pattern, pattern};
use super::scope::{HunkLines, test_code_start};
use super::meta::{Example, RuleMeta};
use super::{Message, Rule, RuleContext, finding, text_files};
use revu_domain::finding::{BlastRadius, Dimension, Finding, Severity};

/// `except:` / `except Exception [as e]:`, optionally with an inline `pass`.
static PY_EXCEPT: Pattern = pattern!(r"^\s*except(?:\s+\(?\s*(?:Exception|BaseException)\s*\)?(?:\s+as\s+\w+)?)?\s*:\s*(pass\s*)?$");
/// An empty `catch` block closed on the same line, or a promise `.catch`
/// with an empty handler.
static CATCH_EMPTY: Pattern = pattern!(r"\bcatch\s*(?:\([^)]*\))?\s*\{\s*\}|\.catch\(\s*(?:\(\s*\w*\s*\)|\w+)\s*=>\s*\{\s*\}\s*\)");
/// A `catch` block opened at the end of the line.
static CATCH_OPEN: Pattern = pattern!(r"\bcatch\s*(?:\([^)]*\))?\s*\{\s*$");

/// The `swallowed-exception` rule: [`META`].
#[derive(Debug, Clone, Copy, Default)]
pub struct SwallowedException;

/// The `swallowed-exception` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-COR-004",
    name: "swallowed-exception",
    dimension: Dimension::Correctness,
    severity: Severity::Important,
    confidence: 85,
    languages: &["Python", "JavaScript/TypeScript", "Java", "Kotlin", "C#", "PHP", "Scala", "Swift", "C/C++"],
    catches: "Flags exception handlers that discard the error: a bare or broad Python `except:` \
              whose body is only `pass`, and an empty `catch {}` block in JavaScript, \
              TypeScript, Java, Kotlin, C#, PHP, Scala, Swift or C++.\n\
              \n\
              A handler that says why it ignores the error (a comment in it, on its line or \
              just above its `try`), or whose `try` only overrides a default set just before \
              it, is ignoring on purpose and not reported.",
    why: "The failure disappears: the program continues in a state nobody checked, and whoever \
          debugs it later has no log line, metric or stack trace to go on. Broad handlers also \
          swallow programming errors such as `TypeError`.",
    example: Example {
        path: "app/receipts.py",
        code: concat!(
            "try:\n",
            "    send_receipt(order)\n",
            "except Exception:\n",
            "    pass",
        ),
        context: "",
    },
    instead: concat!(
        "```python\n",
        "try:\n",
        "    send_receipt(order)\n",
        "except SmtpError:\n",
        "    log.warning(\"receipt not sent for %s\", order.id, exc_info=True)\n",
        "```",
    ),
};

impl Rule for SwallowedException {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, ctx: &RuleContext<'_>, out: &mut Vec<Finding>) {
        for patch in text_files(ctx) {
            let lang = Lang::of(patch.path());
            let braces = matches!(
                lang,
                Lang::JavaScript
                    | Lang::Java
                    | Lang::Kotlin
                    | Lang::CSharp
                    | Lang::Php
                    | Lang::Scala
                    | Lang::Swift
                    | Lang::C
            );
            if !(braces || lang == Lang::Python) {
                continue;
            }
            let tests_from = test_code_start(patch);
            for hunk in &patch.hunks {
                let lines = HunkLines::new(hunk);
                for (i, l) in lines.each().enumerate() {
                    if !l.added || l.line >= tests_from || lang.is_comment(l.text) {
                        continue;
                    }
                    let next = || lines.all().get(i + 1).map(|n| n.text.trim());
                    let construct = if lang == Lang::Python {
                        let inline = l.text.trim_end().ends_with("pass");
                        let swallowed = PY_EXCEPT.is_match(l.text)
                            && (inline || matches!(next(), Some("pass" | "...")));
                        swallowed.then(|| format!("`{}` with only `pass`", py_head(l.text)))
                    } else if CATCH_EMPTY.is_match(l.text)
                        || (CATCH_OPEN.is_match(l.text) && next() == Some("}"))
                    {
                        Some("an empty `catch` block".to_string())
                    } else {
                        None
                    };
                    let Some(construct) = construct else {
                        continue;
                    };
                    if Around::of(ctx, patch).ignores_on_purpose(l.line) {
                        continue;
                    }
                    out.push(finding(
                        self,
                        patch.path(),
                        l.line,
                        BlastRadius::Module,
                        message(&construct),
                    ));
                }
            }
        }
    }
}

/// `except Exception as e:` → `except Exception:` (what the summary names).
fn py_head(text: &str) -> String {
    let head = text.trim().split(':').next().unwrap_or("except");
    let head = head.split(" as ").next().unwrap_or(head).trim();
    format!("{head}:")
}

fn message(construct: &str) -> Message {
    Message {
        summary: format!("Exception silently swallowed by {construct}."),
        why: "Errors caught here vanish without a log line, metric or re-raise, so the program \
              continues in an unchecked state and the failure cannot be diagnosed later; broad \
              handlers also hide programming errors."
            .into(),
        fix: "Catch only the specific exception you expect, and log it (with the stack trace), \
              handle it, or re-raise it; if ignoring it is intended, say why in a comment in the \
              handler."
            .into(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    #[test]
    fn a_handler_that_says_why_or_keeps_a_default_is_on_purpose() {
        use super::super::testing::{added_file, run};
        let commented = added_file(
            "src/compile.ts",
            &[
                "export function f(schema) {",
                "  // Treat \"can't tell\" as recursive: the runtime raises the error itself.",
                "  let recursive = true;",
                "  try {",
                "    recursive = isRecursive(schema);",
                "  } catch {}",
                "  return recursive;",
                "}",
            ],
        );
        let fallback = added_file(
            "app/load.py",
            &[
                "def load(path):",
                "    data = {}",
                "    try:",
                "        data = read(path)",
                "    except Exception:",
                "        pass",
                "    return data",
            ],
        );
        assert!(run(&super::SwallowedException, &[commented, fallback]).is_empty());
        let silent = added_file(
            "app/send.py",
            &["def send(o):", "    try:", "        mail(o)", "    except Exception:", "        pass"],
        );
        assert_eq!(run(&super::SwallowedException, &[silent]).len(), 1);
    }

    use super::super::testing::{added_file, assert_well_formed, cited, modified, run};
    use super::*;

    #[test]
    fn flags_python_and_brace_language_handlers() {
        let change = [
            modified(
                "app/receipts.py",
                20,
                &[
                    (' ', "try:"),
                    (' ', "    send_receipt(order)"),
                    ('+', "except Exception as e:"),
                    ('+', "    pass"),
                ],
            ),
            added_file(
                "web/src/api.ts",
                &["try { load() } catch (e) {}", "} catch {", "}"],
            ),
        ];
        let found = run(&SwallowedException, &change);
        assert_eq!(
            cited(&found),
            vec![
                ("app/receipts.py", 22),
                ("web/src/api.ts", 1),
                ("web/src/api.ts", 2)
            ]
        );
        assert!(found[0].summary.contains("`except Exception:`"));
        assert_well_formed(&SwallowedException, &found);
    }

    #[test]
    fn ignores_narrow_or_handled_exceptions_and_tests() {
        let change = [
            added_file("app/cache.py", &["except KeyError:", "    pass"]),
            added_file(
                "app/jobs.py",
                &["except Exception:", "    log.exception('job failed')"],
            ),
            added_file(
                "web/src/a.js",
                &["} catch (e) { /* offline: retried later */ }"],
            ),
            added_file("tests/test_api.py", &["except Exception:", "    pass"]),
        ];
        assert!(run(&SwallowedException, &change).is_empty());
    }
}
