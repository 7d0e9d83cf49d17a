use super::lang::Lang;
use super::paths::is_test_path;
use super::pattern::compile;
use super::{Message, Rule, RuleContext, finding, text_files};
use regex::Regex;
use revu_common::finding::{BlastRadius, Dimension, Finding, Severity};
use std::sync::LazyLock;

/// Each way of turning verification off, with the name the summary uses.
static CHECKS: LazyLock<Vec<(&'static str, Option<Regex>)>> = LazyLock::new(|| {
    [
        ("verify=False", r"\bverify\s*=\s*False\b"),
        (
            "InsecureSkipVerify: true",
            r"\bInsecureSkipVerify\s*:\s*true\b",
        ),
        (
            "danger_accept_invalid_certs(true)",
            r"\bdanger_accept_invalid_(?:certs|hostnames)\(\s*true\s*\)",
        ),
        (
            "rejectUnauthorized: false",
            r#"\brejectUnauthorized["']?\s*[:=]\s*false\b"#,
        ),
        (
            "NODE_TLS_REJECT_UNAUTHORIZED=0",
            r#"\bNODE_TLS_REJECT_UNAUTHORIZED["']?\s*[:=]\s*["']?0\b"#,
        ),
        (
            "ssl._create_unverified_context",
            r"\bssl\._create_unverified_context\b",
        ),
        (
            "ssl.CERT_NONE",
            r"\bverify_mode\s*=\s*ssl\.CERT_NONE\b|\bcert_reqs\s*=\s*ssl\.CERT_NONE\b",
        ),
        ("check_hostname = False", r"\bcheck_hostname\s*=\s*False\b"),
        (
            "CURLOPT_SSL_VERIFYPEER off",
            r"\bCURLOPT_SSL_VERIFY(?:PEER|HOST)\s*,\s*(?:0|false|FALSE)\b",
        ),
        (
            "curl --insecure",
            r"\bcurl\b.*\s(?:--insecure|-[A-Za-z]*k[A-Za-z]*)(?:\s|$)",
        ),
        (
            "wget --no-check-certificate",
            r"\bwget\b.*\s--no-check-certificate\b",
        ),
        (
            "sslVerify false",
            r"(?i)\b(?:http\.)?sslverify\b\W{1,3}false\b",
        ),
    ]
    .into_iter()
    .map(|(label, p)| (label, compile(p)))
    .collect()
});

/// ## What it does
/// Flags code and configuration that turn off TLS certificate verification:
/// `verify=False` (requests/httpx), `InsecureSkipVerify: true` (Go),
/// `danger_accept_invalid_certs(true)` (reqwest), `rejectUnauthorized: false`
/// and `NODE_TLS_REJECT_UNAUTHORIZED=0` (Node), `ssl._create_unverified_context`
/// and `CERT_NONE` (Python), `CURLOPT_SSL_VERIFYPEER` off, `curl -k`,
/// `wget --no-check-certificate`, and `sslVerify false`.
///
/// ## Why is this bad?
/// Without certificate verification, anyone on the network path can
/// impersonate the server and read or modify the traffic, including
/// credentials and tokens sent over the connection.
///
/// ## Example
/// ```python
/// requests.get(url, verify=False)
/// ```
///
/// Use instead:
/// ```python
/// requests.get(url, verify="/etc/ssl/internal-ca.pem")
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct TlsVerificationDisabled;

impl Rule for TlsVerificationDisabled {
    fn code(&self) -> &'static str {
        "RV-SEC-005"
    }
    fn name(&self) -> &'static str {
        "tls-verification-disabled"
    }
    fn dimension(&self) -> Dimension {
        Dimension::Security
    }
    fn severity(&self) -> Severity {
        Severity::Blocker
    }
    fn confidence(&self) -> u8 {
        90
    }

    fn check(&self, ctx: &RuleContext<'_>, out: &mut Vec<Finding>) {
        for patch in text_files(ctx) {
            let lang = Lang::of(patch.path());
            if is_test_path(patch.path()) {
                continue;
            }
            for (line, text) in patch.added_lines() {
                if lang.is_comment(text) {
                    continue;
                }
                let hit = CHECKS
                    .iter()
                    .find(|(_, re)| re.as_ref().is_some_and(|re| re.is_match(text)));
                let Some((label, _)) = hit else {
                    continue;
                };
                let msg = Message {
                    summary: format!("TLS certificate verification disabled (`{label}`)."),
                    why: "Without certificate verification anyone on the network path can \
                          impersonate the server and read or alter the traffic, including the \
                          credentials sent over it."
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
        assert!(CHECKS.iter().all(|(_, re)| re.is_some()));
    }

    #[test]
    fn ignores_enabled_verification_comments_and_tests() {
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
        ];
        assert!(run(&TlsVerificationDisabled, &change).is_empty());
    }
}
