use super::falsify::{Around, weigh_injection};
use super::interpolation::interpolation;
use super::lang::Lang;
use super::pattern::{Pattern, pattern};
use super::meta::{Example, RuleMeta};
use super::{Message, Reads, Rule, RuleContext, finding, mask_of, text_files};
use revu_domain::pattern::LineMask;
use revu_domain::finding::{BlastRadius, Dimension, Finding, Severity};

static PY_SUBPROCESS: Pattern = pattern!(r"\b(subprocess\.(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput))\(");
static SHELL_TRUE: Pattern = pattern!(r"\bshell\s*=\s*True\b");
static PY_OS: Pattern = pattern!(r#"\b(os\.(?:system|popen))\(\s*(["']?)"#);
static JS_EXEC: Pattern = pattern!(r"(?:^|[^\w.]|child_process\.)(exec(?:Sync)?)\(");
static RUST_SH: Pattern = pattern!(r#"(Command::new\(\s*"(?:/bin/|/usr/bin/)?(?:ba|z)?sh"\s*\))[\s\S]*"-c""#);
static JAVA_EXEC: Pattern = pattern!(r"(Runtime\.getRuntime\(\)\.exec|new\s+ProcessBuilder)\(");
static GO_SH: Pattern = pattern!(r#"(exec\.Command(?:Context)?)\((?:\s*\w+\s*,)?\s*"(?:/bin/)?(?:ba)?sh"\s*,\s*"-c""#);

/// The `shell-injection` rule: [`META`].
#[derive(Debug, Clone, Copy, Default)]
pub struct ShellInjection;

/// The `shell-injection` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-SEC-004",
    name: "shell-injection",
    dimension: Dimension::Security,
    severity: Severity::Blocker,
    confidence: 85,
    languages: &["Python", "JavaScript/TypeScript", "Rust", "Go", "Java"],
    catches: "Flags shell commands built from runtime values: `subprocess.*(…, shell=True)` \
              with a formatted command, `os.system`/`os.popen` with a non-literal, Node \
              `child_process.exec` with a template literal or concatenation, `sh -c` with a \
              formatted script in Rust or Go, and Java's `Runtime.exec` or `ProcessBuilder` \
              given a concatenated command.",
    why: "The shell parses the whole string, so a value containing `;`, `|`, `$( )` or a quote \
          runs extra commands with the service's permissions (command injection).",
    example: Example {
        path: "app/thumbnails.py",
        code: concat!(
            "def thumbnail(upload):\n",
            "    subprocess.run(f\"convert {upload} out.png\", shell=True)",
        ),
        context: "",
    },
    instead: concat!(
        "```python\n",
        "def thumbnail(upload):\n",
        "    subprocess.run([\"convert\", upload, \"out.png\"], check=True)\n",
        "```",
    ),
};

impl Rule for ShellInjection {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }
    fn reads(&self) -> Reads {
        Reads::CodeAndStrings
    }

    fn check(&self, ctx: &RuleContext<'_>, out: &mut Vec<Finding>) {
        for patch in text_files(ctx) {
            let lang = Lang::of(patch.path());
            let masks = ctx.production_masks(patch);
            for (i, &(line, text)) in ctx.production_lines(patch).iter().enumerate() {
                let Some(call) = detect(text, mask_of(&masks, i), lang) else {
                    continue;
                };
                let how = interpolation(text).unwrap_or("a non-literal value");
                let msg = Message {
                    summary: format!("Shell command for `{call}` built from {how}."),
                    why: "The shell parses the interpolated value, so input containing `;`, `|`, \
                          `$(…)` or quotes runs additional commands with the service's \
                          permissions (command injection)."
                        .into(),
                    fix: "Run the program directly with an argument list and no shell \
                          (`subprocess.run([...])`, `execFile`/`spawn` with args, \
                          `Command::new(prog).args(...)`); if a shell is unavoidable, pass \
                          values as positional parameters or quote them with `shlex.quote`."
                        .into(),
                };
                let f = finding(self, patch.path(), line, BlastRadius::System, msg);
                let around = Around::of(ctx, patch);
                out.push(weigh_injection(f, &around, patch.path(), line, text));
            }
        }
    }
}

/// The call that runs a shell with an interpolated command, if any
/// (`bytes` is the line's [`LineMask`]).
fn detect(text: &str, bytes: LineMask, lang: Lang) -> Option<String> {
    let interpolated = || interpolation(text).is_some();
    match lang {
        Lang::Python => {
            if let Some(c) = PY_SUBPROCESS.captures_line(text, bytes)
                && SHELL_TRUE.is_match_line(text, bytes)
                && interpolated()
            {
                return Some(c[1].to_string());
            }
            let c = PY_OS.captures_line(text, bytes)?;
            let literal_arg = !c[2].is_empty();
            (!literal_arg || interpolated()).then(|| c[1].to_string())
        }
        Lang::JavaScript => {
            let c = JS_EXEC.captures_line(text, bytes)?;
            interpolated().then(|| c[1].to_string())
        }
        Lang::Rust => {
            let c = RUST_SH.captures_line(text, bytes)?;
            interpolated().then(|| c[1].to_string())
        }
        Lang::Go => {
            let c = GO_SH.captures_line(text, bytes)?;
            interpolated().then(|| c[1].to_string())
        }
        Lang::Java => {
            let c = JAVA_EXEC.captures_line(text, bytes)?;
            interpolated().then(|| c[1].to_string())
        }
        _ => None,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::super::testing::{added_file, assert_well_formed, cited, run};
    use super::*;

    #[test]
    fn flags_interpolated_shell_commands() {
        let change = [
            added_file(
                "app/convert.py",
                &[
                    "import subprocess",
                    "subprocess.run(f\"convert {upload} out.png\", shell=True)",
                    "os.system(cmd)",
                ],
            ),
            added_file(
                "server/zip.js",
                &["child_process.exec(`zip -r ${name}.zip dir`);"],
            ),
            added_file(
                "src/hook.rs",
                &["Command::new(\"sh\").arg(\"-c\").arg(format!(\"git log {rev}\"));"],
            ),
        ];
        let found = run(&ShellInjection, &change);
        assert_eq!(
            cited(&found),
            vec![
                ("app/convert.py", 2),
                ("app/convert.py", 3),
                ("server/zip.js", 1),
                ("src/hook.rs", 1)
            ]
        );
        assert_eq!(
            found[0].summary,
            "Shell command for `subprocess.run` built from an f-string."
        );
        assert_eq!(
            found[1].summary,
            "Shell command for `os.system` built from a non-literal value."
        );
        assert_well_formed(&ShellInjection, &found);
    }

    #[test]
    fn ignores_argument_lists_literals_regex_exec_and_tests() {
        let change = [
            added_file(
                "app/convert.py",
                &[
                    "subprocess.run([\"convert\", upload, \"out.png\"], check=True)",
                    "subprocess.run(\"make clean\", shell=True)",
                    "os.system(\"clear\")",
                ],
            ),
            added_file("server/parse.js", &["const m = re.exec(`${prefix}`);"]),
            added_file("tests/test_convert.py", &["os.system(f\"rm -rf {tmp}\")"]),
        ];
        assert!(run(&ShellInjection, &change).is_empty());
    }
}
