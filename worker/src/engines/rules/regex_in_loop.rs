use super::lang::Lang;
use super::pattern::{Pattern, pattern};
use super::scope::{HunkLines, indent};
use super::meta::{Example, RuleMeta};
use super::{Message, Rule, RuleContext, finding, text_files};
use revu_domain::finding::{BlastRadius, Dimension, Finding, Severity};

static LOOP: Pattern = pattern!(r"^\s*(?:(?:for|while)\b|loop\s*\{)|\.(?:for_each|forEach)\(");
static COMPILE: Pattern = pattern!(r"\b(Regex::new|RegexBuilder::new|re\.compile|regexp\.(?:Must)?Compile|Pattern\.compile|new RegExp)\(");
/// How far below the loop header a compile call is still looked for.
const WINDOW: usize = 30;

/// The `regex-in-loop` rule: [`META`].
#[derive(Debug, Clone, Copy, Default)]
pub struct RegexInLoop;

/// The `regex-in-loop` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-PERF-001",
    name: "regex-in-loop",
    dimension: Dimension::Performance,
    severity: Severity::Suggestion,
    confidence: 85,
    languages: &["any source language"],
    catches: "Flags a regex compiled inside a loop body: `Regex::new`, `re.compile`, \
              `regexp.MustCompile`, `Pattern.compile` or `new RegExp` added on a line indented \
              under a `for`/`while`/`loop`/`forEach` header in the same hunk.",
    why: "Compiling a regex costs far more than matching with it (Rust's `regex` builds \
          automata; Go and Java parse and compile every time). Doing it per iteration turns a \
          cheap loop into a hot spot that grows with the input.",
    example: Example {
        path: "src/count.rs",
        code: concat!(
            "for line in input.lines() {\n",
            "    let re = Regex::new(r\"^\\d+$\")?;\n",
            "    if re.is_match(line) { count += 1 }\n",
            "}",
        ),
        context: "",
    },
    instead: "compile once before the loop (or in a `static LazyLock`).",
};

impl Rule for RegexInLoop {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, ctx: &RuleContext<'_>, out: &mut Vec<Finding>) {
        for patch in text_files(ctx) {
            let lang = Lang::of(patch.path());
            if !lang.is_source() {
                continue;
            }
            for hunk in &patch.hunks {
                let lines = HunkLines::new(hunk);
                for (i, l) in lines.each().enumerate() {
                    let Some(code) = ctx.production_text(patch, l.line).filter(|_| l.added) else {
                        continue;
                    };
                    let Some(c) = COMPILE.captures(code) else {
                        continue;
                    };
                    if !inside_loop(&lines.all()[i.saturating_sub(WINDOW)..=i], lang) {
                        continue;
                    }
                    let call = &c[1];
                    let msg = Message {
                        summary: format!("`{call}` compiles a regex on every loop iteration."),
                        why: "Compiling a pattern costs far more than matching it; inside a loop \
                              the cost is paid per iteration and grows with the input size."
                            .into(),
                        fix: "Compile the pattern once before the loop, or in a `static` \
                              (`LazyLock`/module-level constant), and reuse it inside the loop."
                            .into(),
                    };
                    out.push(finding(self, patch.path(), l.line, BlastRadius::Local, msg));
                }
            }
        }
    }
}

/// Whether the last line of `window` sits in the body of a loop header that
/// appears earlier in `window` (or on the same line, after the header).
fn inside_loop(window: &[super::scope::HeadLine<'_>], lang: Lang) -> bool {
    let Some((target, before)) = window.split_last() else {
        return false;
    };
    if LOOP.is_match(target.text) && target.text.contains('{') {
        return true;
    }
    let mut depth = indent(target.text);
    for l in before.iter().rev() {
        if l.text.trim().is_empty() || lang.is_comment(l.text) {
            continue;
        }
        let ind = indent(l.text);
        if ind < depth {
            if LOOP.is_match(l.text) {
                return true;
            }
            depth = ind;
        }
    }
    false
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::super::testing::{added_file, assert_well_formed, cited, modified, run};
    use super::*;

    #[test]
    fn flags_compiles_nested_under_a_loop() {
        let change = [
            modified(
                "src/count.rs",
                20,
                &[
                    (' ', "for line in input.lines() {"),
                    (' ', "    if !line.is_empty() {"),
                    ('+', "        let re = Regex::new(r\"^\\d+$\")?;"),
                    (' ', "    }"),
                    (' ', "}"),
                ],
            ),
            added_file(
                "app/scan.py",
                &["for row in rows:", "    pat = re.compile(row.rule)"],
            ),
        ];
        let found = run(&RegexInLoop, &change);
        assert_eq!(
            cited(&found),
            vec![("src/count.rs", 22), ("app/scan.py", 2)]
        );
        assert_eq!(
            found[0].summary,
            "`Regex::new` compiles a regex on every loop iteration."
        );
        assert_well_formed(&RegexInLoop, &found);
    }

    #[test]
    fn ignores_compiles_before_or_after_the_loop() {
        let change = [
            added_file(
                "src/count.rs",
                &[
                    "let re = Regex::new(r\"^\\d+$\")?;",
                    "for line in input.lines() {",
                    "    count += usize::from(re.is_match(line));",
                    "}",
                    "let other = Regex::new(r\"x\")?;",
                ],
            ),
            added_file(
                "tests/scan_test.py",
                &["for c in cases:", "    re.compile(c)"],
            ),
        ];
        assert!(run(&RegexInLoop, &change).is_empty());
    }
}
