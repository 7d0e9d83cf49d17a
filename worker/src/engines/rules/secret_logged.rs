use super::lang::Lang;
use super::pattern::{Pattern, pattern};
use super::meta::{Example, RuleMeta};
use super::{Message, Reads, Rule, RuleContext, finding, mask_of, text_files};
use revu_domain::finding::{BlastRadius, Dimension, Finding, Severity};

static LOG_CALL: Pattern = pattern!(concat!(
        r"(?:\b(?:log|logger|logging|console|slog|LOG|LOGGER|Log|Logger)",
        r"\.(?:debug|info|warn|warning|error|critical|exception|log|trace|fatal|print)\w*\(",
        r"|\b(?:debug|info|warn|error|trace)!\()",
    ));
/// A string literal (double or single quoted, with escapes).
static STRING: Pattern = pattern!(r#""(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'"#);
/// An interpolation inside a string: `{x}`, `${x}`, `#{x}`.
static HOLE: Pattern = pattern!(r"\{([^{}]+)\}");
static SECRET_NAME: Pattern = pattern!(concat!(
        r"(?i)\b\w*?(password|passwd|secret|api_?key|apikey|access_?token|auth_?token",
        r"|refresh_?token|bearer_?token|private_?key|credentials?)\b",
    ));

/// The `secret-logged` rule: [`META`].
#[derive(Debug, Clone, Copy, Default)]
pub struct SecretLogged;

/// The `secret-logged` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-SEC-006",
    name: "secret-logged",
    dimension: Dimension::Security,
    severity: Severity::Important,
    confidence: 75,
    languages: &["any source language"],
    catches: "Flags log calls (`log.info(…)`, `logger.debug(…)`, `console.log(…)`, \
              `tracing::info!(…)` …) whose arguments or interpolations name a secret-looking \
              variable: `password`, `secret`, `api_key`, `access_token`, `private_key`, \
              `credentials`. Words inside the message text itself are not flagged.",
    why: "Logs are shipped to aggregators, retained for months and readable by far more people \
          than the secret store; a logged credential is a leaked credential.",
    example: Example {
        path: "app/auth.py",
        code: "log.debug(\"login attempt user=%s password=%s\", user, password)",
        context: "",
    },
    instead: "```python\n\
              log.debug(\"login attempt user=%s\", user)\n\
              ```",
};

impl Rule for SecretLogged {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }
    fn reads(&self) -> Reads {
        Reads::CodeAndStrings
    }

    fn check(&self, ctx: &RuleContext<'_>, out: &mut Vec<Finding>) {
        for patch in text_files(ctx) {
            let lang = Lang::of(patch.path());
            if !lang.is_source() {
                continue;
            }
            let masks = ctx.production_masks(patch);
            for (i, &(line, text)) in ctx.production_lines(patch).iter().enumerate() {
                if !LOG_CALL.is_match_line(text, mask_of(&masks, i)) {
                    continue;
                }
                let Some(name) = logged_secret(text) else {
                    continue;
                };
                let msg = Message {
                    summary: format!("Log call includes secret-looking value `{name}`."),
                    why: "Log lines are shipped to aggregators, kept for a long time and readable \
                          by many more people and systems than the secret store, so the value \
                          leaks with every call."
                        .into(),
                    fix: format!(
                        "Drop `{name}` from the log call, or log a redacted form (presence, \
                         length or a short hash) instead of the value."
                    ),
                };
                out.push(finding(self, patch.path(), line, BlastRadius::System, msg));
            }
        }
    }
}

/// The secret-looking identifier logged on `text`: one outside string
/// literals, or inside an interpolation hole of one.
fn logged_secret(text: &str) -> Option<String> {
    let re = STRING.regex()?;
    let code = re.replace_all(text, "\"\"");
    let mut candidates = vec![code.into_owned()];
    for m in re.find_iter(text) {
        if let Some(holes) = HOLE.regex() {
            candidates.extend(holes.captures_iter(m.as_str()).map(|c| c[1].to_string()));
        }
    }
    candidates
        .iter()
        .find_map(|c| SECRET_NAME.captures(c).map(|m| m[0].to_string()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::super::testing::{added_file, assert_well_formed, cited, run};
    use super::*;

    #[test]
    fn flags_secrets_passed_or_interpolated_into_logs() {
        let change = [
            added_file(
                "app/auth.py",
                &[
                    "def login(user, password):",
                    "    log.debug(\"login user=%s password=%s\", user, password)",
                    "    logger.info(f\"token refresh {session.refresh_token}\")",
                ],
            ),
            added_file(
                "src/auth.rs",
                &["tracing::debug!(api_key = %cfg.api_key, \"calling\");"],
            ),
        ];
        let found = run(&SecretLogged, &change);
        assert_eq!(
            cited(&found),
            vec![("app/auth.py", 2), ("app/auth.py", 3), ("src/auth.rs", 1)]
        );
        assert_eq!(
            found[0].summary,
            "Log call includes secret-looking value `password`."
        );
        assert!(found[1].summary.contains("`refresh_token`"));
        assert_well_formed(&SecretLogged, &found);
    }

    #[test]
    fn ignores_secret_words_in_the_message_and_non_log_calls() {
        let change = [
            added_file(
                "app/auth.py",
                &[
                    "log.info(\"password reset requested for %s\", user.email)",
                    "check(password)",
                    "# log.debug(password)",
                ],
            ),
            added_file("tests/test_auth.py", &["log.debug(password)"]),
        ];
        assert!(run(&SecretLogged, &change).is_empty());
    }
}
