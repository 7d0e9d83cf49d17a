use super::falsify::{Around, weigh_injection};
use super::lang::Lang;
use super::pattern::{Pattern, pattern};
use super::meta::{Example, RuleMeta};
use super::{Message, Reads, Rule, RuleContext, finding, mask_of, text_files};
use revu_domain::pattern::LineMask;
use revu_domain::finding::{BlastRadius, Dimension, Finding, Severity};

/// `eval(`/`exec(` as a free function whose argument is not a string literal.
static EVAL: Pattern = pattern!(r#"(?:^|[^\w.])(eval|exec)\(\s*[^)"'\s]"#);
/// `eval(` on any argument, for a line that also builds a string.
static EVAL_ANY: Pattern = pattern!(r"(?:^|[^\w.])(eval)\(");
/// A shell `eval` of an expansion.
static SHELL_EVAL: Pattern = pattern!(r#"^\s*(eval)\s+["']?\$"#);
/// Java's native deserialization, and node-serialize's.
static JAVA_READ: Pattern = pattern!(r"\b(readObject|readUnshared)\(\s*\)|\b(XMLDecoder)\(");
static JS_UNSERIALIZE: Pattern = pattern!(r"\b(unserialize)\(");
static NEW_FUNCTION: Pattern = pattern!(r#"\b(new Function)\(\s*[^)"'`\s]"#);
static DESERIALIZE: Pattern = pattern!(r"\b((?:c?[pP]ickle|marshal|dill|jsonpickle)\.(?:loads?|decode|Unpickler)|yaml\.(?:unsafe_)?load(?:_all)?)\(");

/// The `dynamic-code-execution` rule: [`META`].
#[derive(Debug, Clone, Copy, Default)]
pub struct DynamicCodeExecution;

/// The `dynamic-code-execution` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-SEC-003",
    name: "dynamic-code-execution",
    dimension: Dimension::Security,
    severity: Severity::Blocker,
    confidence: 85,
    languages: &["Python", "JavaScript/TypeScript", "Java", "shell"],
    catches: "Flags code that executes or deserialises data as code: Python `eval(…)` and \
              `exec(…)` on a non-literal, `pickle`/`marshal`/`dill` loads, `yaml.load(…)` \
              without a safe loader, JavaScript `eval(…)` or `new Function(…)` on a non-literal \
              or a concatenation, node-serialize's `unserialize`, Java's `readObject()` and \
              `XMLDecoder`, and a shell `eval` of an expansion.",
    why: "Whoever controls the input controls the process: an attacker-supplied string or \
          pickle runs arbitrary code with the service's permissions.",
    example: Example {
        path: "app/config.py",
        code: "config = yaml.load(request.data)",
        context: "",
    },
    instead: "```python\n\
              config = yaml.safe_load(request.data)\n\
              ```",
};

impl Rule for DynamicCodeExecution {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }
    fn reads(&self) -> Reads {
        Reads::CodeAndStrings
    }

    fn check(&self, ctx: &RuleContext<'_>, out: &mut Vec<Finding>) {
        for patch in text_files(ctx) {
            let lang = Lang::of(patch.path());
            if !matches!(
                lang,
                Lang::Python | Lang::JavaScript | Lang::Shell | Lang::Java
            ) {
                continue;
            }
            let masks = ctx.production_masks(patch);
            for (i, &(line, text)) in ctx.production_lines(patch).iter().enumerate() {
                let Some(call) = detect(text, mask_of(&masks, i), lang) else {
                    continue;
                };
                let (why, fix) = if call.starts_with("eval")
                    || call.starts_with("exec")
                    || call.starts_with("new")
                {
                    (
                        "The argument is evaluated as code, so anyone who can influence it can run \
                         arbitrary code with the service's permissions.",
                        "Parse the data instead of evaluating it (`json.loads`, \
                         `ast.literal_eval`, `JSON.parse`), or dispatch through an explicit \
                         mapping of allowed operations.",
                    )
                } else {
                    (
                        "Unpickling or unsafe YAML loading can construct arbitrary objects and \
                         call arbitrary functions, so untrusted bytes become code execution.",
                        "Use a data-only format and loader (`yaml.safe_load`, `json.loads`); \
                         if pickle is unavoidable, only load bytes this service signed itself \
                         and verify the signature first.",
                    )
                };
                let msg = Message {
                    summary: format!(
                        "`{call}(…)` executes or deserialises untrusted data as code."
                    ),
                    why: why.into(),
                    fix: fix.into(),
                };
                let f = finding(self, patch.path(), line, BlastRadius::System, msg);
                let around = Around::of(ctx, patch);
                out.push(weigh_injection(f, &around, patch.path(), line, text));
            }
        }
    }
}

/// The dangerous call on `text`, if any (`bytes` is the line's
/// [`LineMask`]).
fn detect(text: &str, bytes: LineMask, lang: Lang) -> Option<String> {
    match lang {
        Lang::Shell => return SHELL_EVAL.captures_line(text, bytes).map(|c| c[1].to_string()),
        Lang::Java => {
            let c = JAVA_READ.captures_line(text, bytes)?;
            let call = c.get(1).or(c.get(2)).map_or("readObject", |m| m.as_str());
            return Some(call.to_string());
        }
        _ => {}
    }
    // `eval("(" + input + ")")`: a literal first, then the data.
    if let Some(c) = EVAL_ANY.captures_line(text, bytes)
        && super::interpolation::interpolation(text).is_some()
    {
        return Some(c[1].to_string());
    }
    if let Some(c) = EVAL.captures_line(text, bytes) {
        let name = &c[1];
        if lang == Lang::Python || name == "eval" {
            return Some(name.to_string());
        }
    }
    if lang == Lang::JavaScript {
        return NEW_FUNCTION.captures_line(text, bytes)
            .or_else(|| JS_UNSERIALIZE.captures_line(text, bytes))
            .map(|c| c[1].to_string());
    }
    let c = DESERIALIZE.captures_line(text, bytes)?;
    let call = &c[1];
    let safe_yaml = call.starts_with("yaml.load")
        && ["SafeLoader", "CSafeLoader", "BaseLoader"]
            .iter()
            .any(|l| text.contains(l));
    (!safe_yaml).then(|| call.to_string())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::super::testing::{added_file, assert_well_formed, cited, run};
    use super::*;

    #[test]
    fn flags_eval_exec_pickle_and_unsafe_yaml() {
        let change = [
            added_file(
                "app/api.py",
                &[
                    "import pickle",
                    "result = eval(request.args['expr'])",
                    "session = pickle.loads(blob)",
                    "cfg = yaml.load(body)",
                ],
            ),
            added_file("web/calc.js", &["const f = new Function(userCode);"]),
        ];
        let found = run(&DynamicCodeExecution, &change);
        assert_eq!(
            cited(&found),
            vec![
                ("app/api.py", 2),
                ("app/api.py", 3),
                ("app/api.py", 4),
                ("web/calc.js", 1)
            ]
        );
        assert_eq!(
            found[1].summary,
            "`pickle.loads(…)` executes or deserialises untrusted data as code."
        );
        assert_well_formed(&DynamicCodeExecution, &found);
    }

    #[test]
    fn ignores_literals_safe_loaders_methods_and_tests() {
        let change = [
            added_file(
                "app/api.py",
                &[
                    "value = ast.literal_eval(raw)",
                    "model.eval()",
                    "exec(\"import site\")",
                    "cfg = yaml.load(body, Loader=yaml.SafeLoader)",
                    "cfg = yaml.safe_load(body)",
                    "# never eval(user_input)",
                ],
            ),
            added_file("web/re.js", &["const m = pattern.exec(line);"]),
            added_file("tests/test_cache.py", &["obj = pickle.loads(blob)"]),
        ];
        assert!(run(&DynamicCodeExecution, &change).is_empty());
    }
}
