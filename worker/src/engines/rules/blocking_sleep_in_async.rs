use super::lang::Lang;
use super::pattern::{Pattern, pattern};
use super::scope::{HeadLine, HunkLines, indent};
use super::meta::{Example, RuleMeta};
use super::{Message, Rule, RuleContext, finding, text_files};
use revu_domain::finding::{BlastRadius, Dimension, Finding, Severity};

static RUST_SLEEP: Pattern = pattern!(r"\b((?:std::)?thread::sleep)\(");
static PY_SLEEP: Pattern = pattern!(r"\b(time\.sleep)\(");
/// An async function or block header.
static ASYNC: Pattern = pattern!(r"\basync\s+(?:fn|def)\b|\basync\s+(?:move\s+)?\{");
/// A synchronous function or closure boundary: the sleep is not in async code.
static SYNC_FN: Pattern = pattern!(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+|unsafe\s+)?(?:fn|def)\b|spawn_blocking\(|\bthread::spawn\(");

/// The `blocking-sleep-in-async` rule: [`META`].
#[derive(Debug, Clone, Copy, Default)]
pub struct BlockingSleepInAsync;

/// The `blocking-sleep-in-async` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-PERF-003",
    name: "blocking-sleep-in-async",
    dimension: Dimension::Performance,
    severity: Severity::Important,
    confidence: 85,
    languages: &["Rust", "Python"],
    catches: "Flags a blocking sleep inside async code: `std::thread::sleep` within an `async \
              fn` or `async` block in Rust, and `time.sleep` within an `async def` in Python.",
    why: "A blocking sleep parks the executor thread, not just the task: every other task \
          scheduled on that thread stalls for the whole duration, which shows up as latency \
          spikes and timeouts under load.",
    example: Example {
        path: "app/jobs.py",
        code: concat!(
            "async def poll(job):\n",
            "    while not job.done():\n",
            "        time.sleep(1)",
        ),
        context: "",
    },
    instead: concat!(
        "```python\n",
        "async def poll(job):\n",
        "    while not job.done():\n",
        "        await asyncio.sleep(1)\n",
        "```",
    ),
};

impl Rule for BlockingSleepInAsync {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, ctx: &RuleContext<'_>, out: &mut Vec<Finding>) {
        for patch in text_files(ctx) {
            let lang = Lang::of(patch.path());
            let (sleep, fix) = match lang {
                Lang::Rust => (&RUST_SLEEP, "tokio::time::sleep(…).await"),
                Lang::Python => (&PY_SLEEP, "await asyncio.sleep(…)"),
                _ => continue,
            };
            for hunk in &patch.hunks {
                let lines = HunkLines::new(hunk);
                for (i, l) in lines.each().enumerate() {
                    let Some(code) = ctx.production_text(patch, l.line).filter(|_| l.added) else {
                        continue;
                    };
                    let Some(c) = sleep.captures(code) else {
                        continue;
                    };
                    if !in_async(&lines.all()[..i], &l, &hunk.section) {
                        continue;
                    }
                    let call = &c[1];
                    let msg = Message {
                        summary: format!("Blocking `{call}` called inside async code."),
                        why: format!(
                            "`{call}` blocks the executor thread, so every other task scheduled on \
                             it stalls for the whole sleep; under load this shows up as latency \
                             spikes and timeouts."
                        ),
                        fix: format!("Use the runtime's timer instead: `{fix}`."),
                    };
                    out.push(finding(
                        self,
                        patch.path(),
                        l.line,
                        BlastRadius::Service,
                        msg,
                    ));
                }
            }
        }
    }
}

/// Whether `target` is enclosed by an async function or block: the nearest
/// enclosing (less indented) header is async. Falls back to the hunk's
/// function context when the hunk does not show the header.
fn in_async(before: &[HeadLine<'_>], target: &HeadLine<'_>, section: &str) -> bool {
    let mut depth = indent(target.text);
    for l in before.iter().rev() {
        if l.text.trim().is_empty() {
            continue;
        }
        let ind = indent(l.text);
        if ind >= depth {
            continue;
        }
        if ASYNC.is_match(l.text) {
            return true;
        }
        if SYNC_FN.is_match(l.text) {
            return false;
        }
        depth = ind;
    }
    ASYNC.is_match(section)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::super::testing::{added_file, assert_well_formed, cited, modified, run};
    use super::*;

    #[test]
    fn flags_blocking_sleep_in_async_functions_and_blocks() {
        let mut rust = modified(
            "src/poller.rs",
            50,
            &[
                (' ', "    loop {"),
                ('+', "        std::thread::sleep(Duration::from_secs(1));"),
                (' ', "    }"),
            ],
        );
        rust.hunks[0].section = "pub async fn poll(&self) -> Result<()> {".into();
        let change = [
            rust,
            added_file(
                "app/jobs.py",
                &[
                    "async def wait(job):",
                    "    while not job.done():",
                    "        time.sleep(1)",
                ],
            ),
        ];
        let found = run(&BlockingSleepInAsync, &change);
        assert_eq!(
            cited(&found),
            vec![("src/poller.rs", 51), ("app/jobs.py", 3)]
        );
        assert_eq!(
            found[1].summary,
            "Blocking `time.sleep` called inside async code."
        );
        assert_well_formed(&BlockingSleepInAsync, &found);
    }

    #[test]
    fn ignores_sleep_in_sync_code_and_blocking_closures() {
        let change = [
            added_file(
                "src/worker.rs",
                &[
                    "async fn run() {",
                    "    tokio::task::spawn_blocking(move || {",
                    "        std::thread::sleep(BACKOFF);",
                    "    });",
                    "}",
                    "fn retry() {",
                    "    std::thread::sleep(BACKOFF);",
                    "}",
                ],
            ),
            added_file("app/cli.py", &["def wait():", "    time.sleep(1)"]),
        ];
        assert!(run(&BlockingSleepInAsync, &change).is_empty());
    }
}
