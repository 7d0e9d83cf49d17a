use super::lang::Lang;
use super::paths::{is_script_path, is_test_path};
use super::pattern::{Pattern, pattern};
use super::meta::{Example, RuleMeta};
use super::{Message, Rule, RuleContext, finding, text_files};
use revu_domain::finding::{BlastRadius, Dimension, Finding, Severity};

static DJANGO_DEBUG: Pattern = pattern!(r"^\s*DEBUG\s*=\s*True\b");
static FLASK_DEBUG: Pattern = pattern!(r"\.run\(.*\bdebug\s*=\s*True\b");

/// The `debug-mode-enabled` rule: [`META`].
#[derive(Debug, Clone, Copy, Default)]
pub struct DebugModeEnabled;

/// The `debug-mode-enabled` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-SEC-007",
    name: "debug-mode-enabled",
    dimension: Dimension::Security,
    severity: Severity::Important,
    confidence: 80,
    languages: &["Python"],
    catches: "Flags framework debug mode switched on in code that ships: Django `DEBUG = True` \
              in a settings module that is not a dev/local/test one, and Flask/Werkzeug \
              `app.run(debug=True)`.",
    why: "Debug mode shows stack traces, settings and source to anyone who triggers an error; \
          the Werkzeug debugger even offers an interactive Python console, which is remote code \
          execution if it is reachable.",
    example: Example {
        path: "settings/production.py",
        code: "DEBUG = True",
        context: "",
    },
    instead: "```python\n\
              DEBUG = env.bool(\"DJANGO_DEBUG\", default=False)\n\
              ```",
};

impl Rule for DebugModeEnabled {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, ctx: &RuleContext<'_>, out: &mut Vec<Finding>) {
        for patch in text_files(ctx) {
            let path = patch.path();
            if Lang::of(path) != Lang::Python || is_test_path(path) || is_script_path(path) {
                continue;
            }
            let settings = is_production_settings(path);
            for &(line, text) in ctx.added_lines(patch).iter() {
                let construct = if settings && DJANGO_DEBUG.is_match(text) {
                    "DEBUG = True"
                } else if FLASK_DEBUG.is_match(text) {
                    "app.run(debug=True)"
                } else {
                    continue;
                };
                let msg = Message {
                    summary: format!("Framework debug mode enabled (`{construct}`)."),
                    why: "Debug mode serves stack traces, settings and source code to anyone who \
                          triggers an error, and the Werkzeug debugger exposes an interactive \
                          console that amounts to remote code execution."
                        .into(),
                    fix: "Default to debug off and enable it only from the environment in local \
                          development (e.g. `DEBUG = env.bool(\"DEBUG\", default=False)`)."
                        .into(),
                };
                out.push(finding(self, path, line, BlastRadius::Service, msg));
            }
        }
    }
}

/// A Django settings module that is not explicitly for development.
fn is_production_settings(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let is_settings = lower.contains("settings");
    let dev_only = ["dev", "local", "test"].iter().any(|w| {
        lower
            .rsplit('/')
            .next()
            .is_some_and(|name| name.contains(w))
    });
    is_settings && !dev_only
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::super::testing::{added_file, assert_well_formed, cited, modified, run};
    use super::*;

    #[test]
    fn flags_debug_in_production_settings_and_app_run() {
        let change = [
            modified(
                "shop/settings/production.py",
                3,
                &[
                    (' ', "ALLOWED_HOSTS = ['shop.example.com']"),
                    ('+', "DEBUG = True"),
                ],
            ),
            added_file(
                "shop/app.py",
                &[
                    "app = Flask(__name__)",
                    "app.run(host=\"0.0.0.0\", debug=True)",
                ],
            ),
        ];
        let found = run(&DebugModeEnabled, &change);
        assert_eq!(
            cited(&found),
            vec![("shop/settings/production.py", 4), ("shop/app.py", 2)]
        );
        assert_eq!(
            found[0].summary,
            "Framework debug mode enabled (`DEBUG = True`)."
        );
        assert_well_formed(&DebugModeEnabled, &found);
    }

    #[test]
    fn ignores_dev_settings_env_driven_values_and_comments() {
        let change = [
            added_file("shop/settings/dev.py", &["DEBUG = True"]),
            added_file(
                "shop/settings/base.py",
                &["DEBUG = env.bool('DEBUG', default=False)"],
            ),
            added_file("shop/app.py", &["# app.run(debug=True) for local runs"]),
        ];
        assert!(run(&DebugModeEnabled, &change).is_empty());
    }
}
