use super::falsify::Around;
use super::lang::Lang;
use super::pattern::{Pattern, pattern};
use super::meta::{Example, RuleMeta};
use super::{Message, Reads, Rule, RuleContext, blanked, finding, mask_of, text_files};
use revu_domain::finding::{BlastRadius, Dimension, Finding, Severity};
use std::sync::LazyLock;

/// Where a check applies: the languages (or config files) of the library
/// that reads the setting.
#[derive(Debug, Clone, Copy)]
enum Scope {
    Python,
    Go,
    Rust,
    Node,
    /// Wherever the Node environment variable can be set.
    NodeEnv,
    Curl,
    /// Shell scripts, Dockerfiles, CI configs, Makefiles.
    Scripts,
}

impl Scope {
    fn covers(self, lang: Lang) -> bool {
        let scripts = matches!(lang, Lang::Shell | Lang::Config | Lang::Other);
        match self {
            Scope::Python => lang == Lang::Python,
            Scope::Go => matches!(lang, Lang::Go | Lang::Config),
            Scope::Rust => lang == Lang::Rust,
            Scope::Node => matches!(lang, Lang::JavaScript | Lang::Config),
            Scope::NodeEnv => lang == Lang::JavaScript || scripts,
            Scope::Curl => matches!(lang, Lang::Php | Lang::C) || scripts,
            Scope::Scripts => scripts,
        }
    }
}

/// Each way of turning verification off: summary name, scope, pattern.
static CHECKS: LazyLock<Vec<(&'static str, Scope, Pattern)>> = LazyLock::new(|| {
    [
        ("verify=False", Scope::Python, r"\bverify\s*=\s*False\b"),
        (
            "_create_unverified_context",
            Scope::Python,
            r"\bssl\._create_unverified_context\b",
        ),
        (
            "ssl.CERT_NONE",
            Scope::Python,
            r"\b(?:verify_mode|cert_reqs)\s*=\s*ssl\.CERT_NONE",
        ),
        (
            "check_hostname=False",
            Scope::Python,
            r"\bcheck_hostname\s*=\s*False\b",
        ),
        (
            "InsecureSkipVerify: true",
            Scope::Go,
            r"(?i)\bInsecureSkipVerify\s*:\s*true\b",
        ),
        (
            "danger_accept_invalid_certs(true)",
            Scope::Rust,
            r"\bdanger_accept_invalid_(?:certs|hostnames)\(\s*true\s*\)",
        ),
        (
            "rejectUnauthorized: false",
            Scope::Node,
            r#"\brejectUnauthorized["']?\s*[:=]\s*false\b"#,
        ),
        (
            "NODE_TLS_REJECT_UNAUTHORIZED=0",
            Scope::NodeEnv,
            r#"\bNODE_TLS_REJECT_UNAUTHORIZED["']?\s*[:=]\s*["']?0\b"#,
        ),
        (
            "CURLOPT_SSL_VERIFYPEER off",
            Scope::Curl,
            r"\bCURLOPT_SSL_VERIFY(?:PEER|HOST)\s*,\s*(?:0|false|FALSE)\b",
        ),
        (
            "curl --insecure",
            Scope::Scripts,
            r"\bcurl\b.*\s(?:--insecure|-[A-Za-z]*k[A-Za-z]*)(?:\s|$)",
        ),
        (
            "wget --no-check-certificate",
            Scope::Scripts,
            r"\bwget\b.*\s--no-check-cert",
        ),
        (
            "sslVerify false",
            Scope::Scripts,
            r"(?i)\bsslverify\b\W{1,3}false\b",
        ),
    ]
    .into_iter()
    .map(|(label, scope, p)| (label, scope, Pattern::owned(p)))
    .collect()
});

/// A setting that asks for verification to be off: `verify`, `insecure`,
/// `skip_tls_verify`, `no_check_certificate`, `ssl_check`…
static OPT_OUT: Pattern = pattern!(
    r"(?i)verif|insecure|skip_?tls|no_?check|check_?cert|validate_?cert|ssl_?check|tls_?check|reject_?unauthorized|strict_?ssl"
);

/// The `tls-verification-disabled` rule: [`META`].
#[derive(Debug, Clone, Copy, Default)]
pub struct TlsVerificationDisabled;

/// The `tls-verification-disabled` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-SEC-005",
    name: "tls-verification-disabled",
    dimension: Dimension::Security,
    severity: Severity::Blocker,
    confidence: 90,
    languages: &["Python", "Go", "Rust", "JavaScript/TypeScript", "PHP", "C/C++", "shell", "config"],
    catches: "Flags code and configuration that turn off TLS certificate verification: \
              `verify=False` (requests/httpx), `InsecureSkipVerify: true` (Go), \
              `danger_accept_invalid_certs(true)` (reqwest), `rejectUnauthorized: false` and \
              `NODE_TLS_REJECT_UNAUTHORIZED=0` (Node), `ssl._create_unverified_context` and \
              `CERT_NONE` (Python), `CURLOPT_SSL_VERIFYPEER` off, `curl -k`, `wget \
              --no-check-certificate`, and `sslVerify false`.\n\
              \n\
              Before it reports, it tries to disprove the finding: a line that runs only under \
              a condition on a verification setting (`if not verify:`, `if cfg.Insecure {`) \
              implements an opt-out the caller asked for, and is not reported; a BLOCKER says \
              that no such condition was found.",
    why: "Without certificate verification, anyone on the network path can impersonate the \
          server and read or modify the traffic, including credentials and tokens sent over the \
          connection.",
    example: Example {
        path: "app/client.py",
        code: "requests.get(url, verify=False)",
        context: "",
    },
    instead: "```python\n\
              requests.get(url, verify=\"/etc/ssl/internal-ca.pem\")\n\
              ```",
};

impl Rule for TlsVerificationDisabled {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }
    fn reads(&self) -> Reads {
        Reads::CodeAndStrings
    }

    fn check(&self, ctx: &RuleContext<'_>, out: &mut Vec<Finding>) {
        for patch in text_files(ctx) {
            let lang = Lang::of(patch.path());
            let lines = ctx.production_lines(patch);
            // In program code these settings are code, never string content.
            let code = ctx.production_code(patch);
            let masks = ctx.production_masks(patch);
            for (i, &(line, text)) in lines.iter().enumerate() {
                let code = blanked(&code, i, text);
                let mask = mask_of(&masks, i);
                let hit = CHECKS.iter().find(|(_, scope, re)| {
                    let written_as_code = matches!(scope, Scope::Python | Scope::Go | Scope::Rust);
                    let subject = if written_as_code { code } else { text };
                    scope.covers(lang) && re.is_match_line(subject, mask)
                });
                let Some((label, _, _)) = hit else {
                    continue;
                };
                let around = Around::of(ctx, patch);
                if opted_out(&around, line, text) {
                    continue;
                }
                let msg = Message {
                    summary: format!("TLS certificate verification disabled (`{label}`)."),
                    why: "Without certificate verification anyone on the network path can \
                          impersonate the server and read or alter the traffic, including the \
                          credentials sent over it. Checked: no condition around this line \
                          tests a verification setting, so it runs whatever the caller asks, \
                          and it is not test code."
                        .into(),
                    fix: "Keep verification on; for a private or self-signed server, trust its CA \
                          explicitly (a CA bundle path, `add_root_certificate`, `RootCAs`, \
                          `ca:` option) instead of disabling the check."
                        .into(),
                };
                out.push(finding(self, patch.path(), line, BlastRadius::System, msg));
            }
        }
    }
}

/// Whether the line runs only when verification was asked to be off: a
/// condition around it, or on the line itself (`verify=False if insecure
/// else True`), tests an opt-out setting.
fn opted_out(around: &Around<'_>, line: u32, text: &str) -> bool {
    let conditional = text.contains(" if ") || text.contains('?') || text.contains("&&");
    let settings = OPT_OUT.regex().map_or(0, |re| re.find_iter(text).count());
    (conditional && settings > 1)
        || around.guards(line).iter().any(|(_, g)| OPT_OUT.is_match(g))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::super::testing::{added_file, assert_well_formed, cited, modified, run};
    use super::*;

    #[test]
    fn flags_each_way_of_disabling_verification() {
        let change = [
            modified(
                "app/client.py",
                12,
                &[
                    (' ', "def fetch(url):"),
                    ('+', "    return requests.get(url, verify=False)"),
                ],
            ),
            added_file(
                "pkg/http.go",
                &["cfg := &tls.Config{InsecureSkipVerify: true}"],
            ),
            added_file(
                "src/client.rs",
                &["let c = builder.danger_accept_invalid_certs(true);"],
            ),
            added_file("deploy/fetch.sh", &["curl -sk https://internal/health"]),
        ];
        let found = run(&TlsVerificationDisabled, &change);
        assert_eq!(
            cited(&found),
            vec![
                ("app/client.py", 13),
                ("pkg/http.go", 1),
                ("src/client.rs", 1),
                ("deploy/fetch.sh", 1)
            ]
        );
        assert_eq!(
            found[0].summary,
            "TLS certificate verification disabled (`verify=False`)."
        );
        assert_well_formed(&TlsVerificationDisabled, &found);
        assert!(CHECKS.iter().all(|(_, _, re)| re.regex().is_some()));
    }

    #[test]
    fn ignores_enabled_verification_other_languages_strings_and_tests() {
        let change = [
            added_file(
                "app/client.py",
                &[
                    "requests.get(url, verify=True)",
                    "# never use verify=False here",
                    "requests.get(url, verify=ca_bundle)",
                ],
            ),
            added_file(
                "deploy/fetch.sh",
                &["curl -fsSL https://example.org/install.sh"],
            ),
            added_file("tests/test_client.py", &["requests.get(url, verify=False)"]),
            added_file(
                "src/docs.rs",
                &[
                    "// verify=False",
                    "let s = \"danger_accept_invalid_certs(true)\";",
                ],
            ),
        ];
        assert!(run(&TlsVerificationDisabled, &change).is_empty());
    }

    #[test]
    fn an_opt_out_the_caller_asked_for_is_no_finding() {
        // An HTTP client implementing its own `verify=False` option.
        let client = added_file(
            "httpkit/_config.py",
            &[
                "def create_ssl_context(verify=True, cert=None):",
                "    ctx = ssl.create_default_context()",
                "    if verify is False:",
                "        ctx.check_hostname = False",
                "        ctx.verify_mode = ssl.CERT_NONE",
                "    return ctx",
            ],
        );
        let go = added_file(
            "pkg/dial.go",
            &[
                "func dial(cfg Config) *tls.Config {",
                "\tif cfg.Insecure {",
                "\t\treturn &tls.Config{InsecureSkipVerify: true}",
                "\t}",
                "\treturn &tls.Config{}",
                "}",
            ],
        );
        assert!(run(&TlsVerificationDisabled, &[client, go]).is_empty());
        // Unconditional, it is a BLOCKER that says what was checked.
        let always = added_file(
            "httpkit/_config.py",
            &["def create_ssl_context():", "    ctx.check_hostname = False"],
        );
        let found = run(&TlsVerificationDisabled, &[always]);
        assert_eq!(cited(&found), vec![("httpkit/_config.py", 2)]);
        assert_eq!(found[0].severity, Severity::Blocker);
        assert!(found[0].why.contains("Checked: no condition"), "{}", found[0].why);
    }
}
