use super::lang::Lang;
use super::paths::{KeyPlacement, has_dir};
use super::pattern::{Pattern, pattern};
use super::secrets::{is_placeholder, mask};
use super::meta::{Example, RuleMeta};
use super::{Message, Reads, Rule, RuleContext, downgrade, finding, mask_of, text_files};
use revu_domain::finding::{BlastRadius, Dimension, Finding, Severity};
use revu_domain::pattern::LineMask;
use std::borrow::Cow;

static PRIVATE_KEY: Pattern = pattern!(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----");
static AWS_KEY_ID: Pattern = pattern!(r"\b((?:AKIA|ASIA)[0-9A-Z]{16})\b");
static AWS_SECRET: Pattern = pattern!(r#"(?i)aws_?secret(?:_?access)?_?key\w*["']?\s*(?:=>|:=|=|:)\s*["']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)"#);
static GITHUB: Pattern = pattern!(r"\b((?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{22,})\b");
static SLACK: Pattern = pattern!(r"\b(xox[baprs]-[A-Za-z0-9-]{10,})");
/// A literal that one of the four formats above needs: a line without any
/// is none of them, which one search tells instead of four. Its guard's
/// needles are these prefixes (`ghp_`), as a guard reads small classes
/// and alternations whole.
static ANY_FORMAT: Pattern = pattern!(concat!(
    r"AKIA|ASIA|ghp_|gho_|ghu_|ghs_|ghr_|github_pat_",
    r"|xoxb-|xoxa-|xoxp-|xoxr-|xoxs-|(?i:aws_?secret)",
));
/// `name = "literal"` where the name ends in a credential word (an optional
/// type annotation between them, as in `const API_KEY: &str = "…"`).
static ASSIGNED: Pattern = pattern!(concat!(
        r#"(?i)\b([\w.-]*?(?:password|passwd|pwd|secret|api[_-]?key|apikey"#,
        r#"|access[_-]?token|auth[_-]?token|token|private[_-]?key))"#,
        r#"["']?\s*(?::[^=:"\n]{1,40}?)?\s*(?:=>|:=|=|:)\s*"#,
        r#"(?:[rbu]|r#)?["']([^"'\n]*)["']"#,
    ));
/// `NAME=value` in `.env`, YAML or INI files, unquoted.
static CONFIG_ASSIGNED: Pattern = pattern!(concat!(
        r#"(?i)^\s*(?:export\s+|ENV\s+|ARG\s+)?([\w.-]*?(?:password|passwd|secret|api[_-]?key|apikey"#,
        r#"|access[_-]?token|auth[_-]?token|token|private[_-]?key))"#,
        r#"\s*[=:]\s*([^\s"'#]+)\s*$"#,
    ));

/// The `hardcoded-credential` rule: [`META`].
#[derive(Debug, Clone, Copy, Default)]
pub struct HardcodedCredential;

/// The `hardcoded-credential` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-SEC-001",
    name: "hardcoded-credential",
    dimension: Dimension::Security,
    severity: Severity::Blocker,
    confidence: 85,
    languages: &["any text file"],
    catches: "Flags credentials written into the code: AWS access key ids and secret keys, \
              GitHub and Slack tokens, private key blocks, and string literals assigned to \
              names like `password`, `secret`, `api_key` or `token` (ignoring placeholders such \
              as `changeme`, `${VAR}` or `<token>`).\n\
              \n\
              The secret itself is masked in the finding.\n\
              \n\
              A private key block in test code or test data (`tests/`, `testdata/`, \
              `fixtures/`, `test_*.py`, `*_test.go`, `test-ca/`, `test_rsa.key`) is a \
              SUGGESTION, and one in documentation or an example (`docs/`, `examples/`, a \
              Markdown page) is IMPORTANT: test suites and docs carry keys generated for them \
              on purpose. Tokens of live services stay BLOCKERs wherever they are.",
    why: "Everyone with read access to the repository, its forks, CI logs and backups can use \
          the credential, and deleting it later does not remove it from the git history. It has \
          to be treated as leaked.",
    example: Example {
        path: "app/payments.py",
        code: "client = Client(api_key=\"sk_live_4eC39HqLyjWDarjtT1zdp7dc\")",
        context: "",
    },
    instead: "```python\n\
              client = Client(api_key=os.environ[\"PAYMENTS_API_KEY\"])\n\
              ```",
};

impl Rule for HardcodedCredential {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }
    fn reads(&self) -> Reads {
        Reads::Everything
    }

    fn check(&self, ctx: &RuleContext<'_>, out: &mut Vec<Finding>) {
        for patch in text_files(ctx) {
            let path = patch.path();
            // Name-based matches are noisy in tests, comments, docstrings and
            // translations, so they only count on production lines, read
            // without their comments; token formats are checked everywhere
            // (a real key in a test or a comment is just as leaked).
            let named = ctx.reading(Reads::CodeAndStrings);
            let (code, code_masks) = if has_dir(path, &["locales", "locale", "i18n", "docs"]) {
                (Cow::Borrowed(&[][..]), Cow::Borrowed(&[][..]))
            } else {
                (named.production_lines(patch), named.production_masks(patch))
            };
            let lang = Lang::of(path);
            let masks = ctx.added_masks(patch);
            for (i, &(line, text)) in ctx.added_lines(patch).iter().enumerate() {
                // Production lines come in line order.
                let by_name = code
                    .binary_search_by_key(&line, |&(n, _)| n)
                    .ok()
                    .and_then(|j| Some((code.get(j)?.1, mask_of(&code_masks, j))));
                let Some(hit) = detect(text, mask_of(&masks, i), lang, by_name) else {
                    continue;
                };
                let msg = Message {
                    summary: hit.summary,
                    why: "Anyone who can read the repository, its forks, CI logs or backups \
                          can use this credential, and removing the line later does not \
                          remove it from the git history. Checked: the value is no \
                          placeholder or variable reference, and the line is not test code."
                        .into(),
                    fix: "Revoke and rotate the credential now, then load it at runtime from \
                          the environment or a secret manager (e.g. `os.environ[...]`, \
                          `std::env::var`, a mounted secret) and keep it out of the repository."
                        .into(),
                };
                let f = finding(self, path, line, BlastRadius::System, msg);
                // Where a file sits matters only for a key block (rare):
                // it is not worked out for every file.
                let placement = hit.key_block.then(|| KeyPlacement::of(path));
                out.push(match placement {
                    Some(KeyPlacement::TestFixture) => {
                        let mut f = downgrade(f, Severity::Suggestion, TEST_FIXTURE);
                        f.fix = FIXTURE_FIX.into();
                        f
                    }
                    Some(KeyPlacement::Example) => {
                        let mut f = downgrade(f, Severity::Important, EXAMPLE);
                        f.fix = FIXTURE_FIX.into();
                        f
                    }
                    _ => f,
                });
            }
        }
    }
}

const TEST_FIXTURE: &str = "the key block is in the project's test code or test data \
                            (a `tests/`, `testdata/` or `fixtures/` directory, a test file, a \
                            key file named for tests), where keys are generated for the test \
                            suite and guard nothing. Confirm it is used by the tests only:";
const EXAMPLE: &str = "the key block is in documentation or an example (`docs/`, `examples/`, \
                       `demos/`, a Markdown or reStructuredText page), where keys are published \
                       on purpose. Confirm it is an example key that nothing trusts:";
const FIXTURE_FIX: &str = "Nothing to do if the key was generated for the tests or the \
                           documentation only. If it was ever used elsewhere, revoke it and \
                           commit a freshly generated one; prefer generating test keys when \
                           the tests run.";

/// A credential on a line.
struct Hit {
    /// What was found, with the secret masked.
    summary: String,
    /// A private key block (rather than a token or a named literal):
    /// what test suites and documentation carry on purpose.
    key_block: bool,
}

/// The first credential on `text`, whose [`LineMask`] is `bytes`; one
/// named as a credential only on `named` (the line without its comments,
/// and its mask), when names count there.
fn detect(text: &str, bytes: LineMask, lang: Lang, named: Option<(&str, LineMask)>) -> Option<Hit> {
    // A header that closes its string literal is a parser constant, not a key.
    if let Some(m) = PRIVATE_KEY.find_line(text, bytes)
        && !text[m.end()..].starts_with(['"', '\''])
    {
        return Some(Hit {
            summary: "Private key block committed to the repository.".into(),
            key_block: true,
        });
    }
    let formats: [(&Pattern, &str); 4] = [
        (&AWS_KEY_ID, "AWS access key id"),
        (&GITHUB, "GitHub token"),
        (&SLACK, "Slack token"),
        (&AWS_SECRET, "AWS secret access key"),
    ];
    let formats = if ANY_FORMAT.admits_line(text, bytes) {
        &formats[..]
    } else {
        &[]
    };
    for &(pattern, label) in formats {
        if let Some(c) = pattern.captures_line(text, bytes) {
            let secret = &c[1];
            if !secret.ends_with("EXAMPLE") && !secret.contains("EXAMPLEKEY") {
                return Some(Hit {
                    summary: format!("Hard-coded {label} `{}`.", mask(secret)),
                    key_block: false,
                });
            }
        }
    }
    let (text, bytes) = named?;
    let c = ASSIGNED.captures_line(text, bytes).or_else(|| {
        (lang == Lang::Config)
            .then(|| CONFIG_ASSIGNED.captures_line(text, bytes))
            .flatten()
    })?;
    let (name, value) = (&c[1], &c[2]);
    (!is_placeholder(value)).then(|| Hit {
        summary: format!(
            "Hard-coded secret assigned to `{name}` (`{}`).",
            mask(value)
        ),
        key_block: false,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::super::testing::{added_file, assert_well_formed, cited, run};
    use super::*;

    // Fake credentials are assembled at runtime so this file holds none.
    fn aws_id() -> String {
        format!("AKIA{}", "Z7Q3XK2M4PLRWT6N")
    }
    fn gh_token() -> String {
        format!("ghp_{}", "a1B2c3D4".repeat(4) + "e5F6")
    }

    #[test]
    fn flags_token_formats_key_blocks_and_named_literals_masked() {
        let key_line = format!("{}{}", "-----BEGIN RSA ", "PRIVATE KEY-----");
        let lines = [
            format!("AWS_ACCESS_KEY_ID = \"{}\"", aws_id()),
            format!("const token = '{}';", gh_token()),
            key_line,
            "db_password = \"s3cr3t-Pa55word!\"".to_string(),
            "API_KEY=q8Zt2LmN4vX9".to_string(),
        ];
        let change = [
            added_file(
                "src/settings.py",
                &lines[..4].iter().map(String::as_str).collect::<Vec<_>>(),
            ),
            added_file("deploy/.env", &[lines[4].as_str()]),
        ];
        let found = run(&HardcodedCredential, &change);
        assert_eq!(
            cited(&found),
            vec![
                ("src/settings.py", 1),
                ("src/settings.py", 2),
                ("src/settings.py", 3),
                ("src/settings.py", 4),
                ("deploy/.env", 1)
            ]
        );
        assert_eq!(
            found[0].summary,
            "Hard-coded AWS access key id `AKIA************WT6N`."
        );
        assert!(found[3].summary.contains("`db_password`"));
        assert_well_formed(&HardcodedCredential, &found);
        let json = serde_json::to_string(&found).unwrap();
        for secret in [
            aws_id(),
            gh_token(),
            "s3cr3t-Pa55word!".into(),
            "q8Zt2LmN4vX9".into(),
        ] {
            assert!(
                !json.contains(&secret),
                "raw secret leaked into the finding"
            );
        }
    }

    fn key_block() -> String {
        format!("{}{}", "-----BEGIN RSA ", "PRIVATE KEY-----")
    }

    #[test]
    fn a_test_fixture_key_is_a_suggestion_and_the_same_key_in_code_a_blocker() {
        let key = key_block();
        let change = [
            added_file("tests/fixtures/server.key", &[key.as_str(), "MIIEow=="]),
            added_file("src/config.py", &["KEY = \"\"\"", key.as_str(), "\"\"\""]),
            added_file("pkg/tls/handshake_test.go", &[key.as_str()]),
        ];
        let found = run(&HardcodedCredential, &change);
        assert_eq!(
            cited(&found),
            vec![
                ("tests/fixtures/server.key", 1),
                ("src/config.py", 2),
                ("pkg/tls/handshake_test.go", 1)
            ]
        );
        let severities: Vec<_> = found.iter().map(|f| f.severity).collect();
        assert_eq!(
            severities,
            vec![Severity::Suggestion, Severity::Blocker, Severity::Suggestion]
        );
        assert!(found[0].why.starts_with("Downgraded from BLOCKER: "));
        assert!(found[0].why.contains("test data"));
        assert!(found[0].fix.contains("generated for the tests"));
        assert!(found[1].fix.starts_with("Revoke and rotate"));
        assert_well_formed(&HardcodedCredential, &found);
    }

    #[test]
    fn a_documented_example_key_is_important() {
        let key = key_block();
        let change = [added_file(
            "docs/howto/tls.rst",
            &["Example key::", "", key.as_str()],
        )];
        let found = run(&HardcodedCredential, &change);
        assert_eq!(cited(&found), vec![("docs/howto/tls.rst", 3)]);
        assert_eq!(found[0].severity, Severity::Important);
        assert!(found[0].why.contains("documentation or an example"));
        assert_well_formed(&HardcodedCredential, &found);
    }

    #[test]
    fn service_tokens_in_tests_stay_blockers() {
        let line = format!("client = Client(key=\"{}\")", aws_id());
        let change = [added_file("tests/test_s3.py", &[line.as_str()])];
        let found = run(&HardcodedCredential, &change);
        assert_eq!(cited(&found), vec![("tests/test_s3.py", 1)]);
        assert_eq!(found[0].severity, Severity::Blocker);
    }

    #[test]
    fn ignores_placeholders_references_and_test_fixtures() {
        let change = [
            added_file(
                "src/settings.py",
                &[
                    "password = \"\"",
                    "password = \"changeme\"",
                    "api_key = os.environ[\"API_KEY\"]",
                    "token = \"${GITHUB_TOKEN}\"",
                    "secret = \"<your secret here>\"",
                    "if password == \"hunter2hunter2\":",
                    "password_hash = \"pbkdf2:sha256:600000\"",
                    "AWS_ACCESS_KEY_ID = \"AKIAIOSFODNN7EXAMPLE\"",
                    "# password = \"s3cr3t-Pa55word!\"",
                    "    \"\"\"Example: client(token=\"2YotnFZFEjr1zCsicMWpAA\")\"\"\"",
                    "_SK_START = b\"-----BEGIN OPENSSH PRIVATE KEY-----\"",
                ],
            ),
            added_file("tests/test_login.py", &["password = \"s3cr3t-Pa55word!\""]),
        ];
        assert!(run(&HardcodedCredential, &change).is_empty());
    }

    #[test]
    fn a_credential_inside_a_string_is_still_one_and_one_in_a_comment_is_not() {
        let token = gh_token();
        let in_comment = format!("x = 1  # was token = '{token}'");
        let change = [added_file(
            "app/settings.py",
            &[
                "CONFIG = \"\"\"",
                "password = \"s3cr3t-Pa55word!\"",
                "\"\"\"",
                "dsn = connect(\"db\")  # password = \"hunter2-Pa55word!\"",
                in_comment.as_str(),
            ],
        )];
        let found = run(&HardcodedCredential, &change);
        assert_eq!(
            cited(&found),
            vec![("app/settings.py", 2), ("app/settings.py", 5)]
        );
        assert!(found[0].summary.contains("`password`"));
        assert!(found[1].summary.contains("GitHub token"));
    }
}
