//! Credentials masked out of free text: what an engine wrote in a finding,
//! a failure reason with a command's stderr in it, a log line. A value
//! shaped like a well-known credential keeps its first and last four
//! characters (enough to tell which one it was), the rest becomes `*`.
//!
//! The shapes: AWS access key ids, GitHub, GitLab, Slack, Stripe, OpenAI-
//! and Anthropic-style API keys, Google API keys, JSON Web Tokens, the
//! body of a PEM private key, the password of a URL's user info, a bearer
//! token after `Bearer`, and the value of `password=`, `secret:`,
//! `token=`-style assignments.

use crate::pattern::{LineMask, Pattern, pattern};
use regex::Captures;
use std::borrow::Cow;

/// `secret` with all but its first and last four characters replaced by
/// `*` (at most 12 of them); shorter than 16 characters, all of it.
pub fn mask(secret: &str) -> String {
    let chars: Vec<char> = secret.chars().collect();
    let n = chars.len();
    if n < 16 {
        return "*".repeat(n.max(8));
    }
    let head: String = chars.iter().take(4).collect();
    let tail: String = chars.iter().skip(n - 4).collect();
    format!("{head}{}{tail}", "*".repeat((n - 8).min(12)))
}

// Word boundaries and classes are ASCII (`(?-u:\b)`): credentials are
// ASCII, and the Unicode tables would cost more to compile than a small
// review takes.

/// Whole tokens of a known shape; group 1 is the secret.
static TOKENS: Pattern = pattern!(concat!(
    r"(?-u:\b)(",
    r"(?:AKIA|ASIA)[0-9A-Z]{16}",
    r"|(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36}",
    r"|github_pat_[A-Za-z0-9_]{22,}",
    r"|glpat-[A-Za-z0-9_-]{20,}",
    r"|xox[abprs]-[A-Za-z0-9-]{10,}",
    r"|(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}",
    r"|sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}",
    r"|AIza[0-9A-Za-z_-]{35}",
    r"|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    r")",
));

/// The body of a PEM private key block.
static PRIVATE_KEY: Pattern = pattern!(
    r"(-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----)[\s\S]*?(-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|\z)",
);

/// `scheme://USERINFO@host`: `user:PASSWORD`, or a password alone.
static URL_PASSWORD: Pattern = pattern!(r"([a-z][a-z0-9+.-]*://)([^/@\s]+)(@)");

/// A URL's user info with its password masked: `user:***` for
/// `user:PASSWORD`, `***` for a password alone (`redis://PASSWORD@host`).
/// The one mask of URL passwords, in free text and in `--dump-config`.
pub fn masked_userinfo(userinfo: &str) -> String {
    match userinfo.split_once(':') {
        Some((user, _)) => format!("{user}:***"),
        None => "***".to_owned(),
    }
}

/// `Bearer TOKEN` and `NAME=VALUE` / `NAME: VALUE` for credential names.
static ASSIGNED: Pattern = pattern!(concat!(
    r#"(?i)((?-u:\b)bearer\s+|(?-u:\b)[0-9A-Za-z_.-]*(?:password|passwd|secret|api[_-]?key|apikey"#,
    r#"|access[_-]?token|auth[_-]?token|token)["']?\s*[=:]\s*["']?)"#,
    r#"([A-Za-z0-9+/_.~-]{8,}=*)"#,
));

/// How a match is masked.
#[derive(Clone, Copy)]
enum Mask {
    /// The whole match (group 1) is the secret.
    Whole,
    /// Group 2 is a URL's user info: its password masked, as
    /// `--dump-config` shows it.
    UrlPassword,
    /// Group 2 is the value assigned to group 1.
    Value,
}

/// `text` with every credential-shaped value masked; borrowed when there
/// is none.
pub fn redact(text: &str) -> Cow<'_, str> {
    let mut out = Cow::Borrowed(text);
    // Worked out once for the four patterns (again after a replacement):
    // most texts are short and hold none of their literals, which the
    // mask tells without a search.
    let mut pairs = LineMask::of(&out);
    if PRIVATE_KEY.is_match_line(&out, pairs)
        && let Some(re) = PRIVATE_KEY.regex()
    {
        let replaced = re
            .replace_all(&out, |c: &Captures| {
                format!(
                    "{}\n[private key masked]\n{}",
                    &c[1],
                    c.get(2).map_or("", |m| m.as_str())
                )
            })
            .into_owned();
        out = Cow::Owned(replaced);
        pairs = LineMask::of(&out);
    }
    for (re, how) in [
        (&TOKENS, Mask::Whole),
        (&URL_PASSWORD, Mask::UrlPassword),
        (&ASSIGNED, Mask::Value),
    ] {
        if !re.is_match_line(&out, pairs) {
            continue;
        }
        let Some(re) = re.regex() else { continue };
        let replaced = re
            .replace_all(&out, |c: &Captures| match how {
                Mask::Whole => mask(&c[1]),
                Mask::UrlPassword => format!("{}{}{}", &c[1], masked_userinfo(&c[2]), &c[3]),
                Mask::Value if c[2].contains('*') => c[0].to_owned(),
                Mask::Value => format!("{}{}", &c[1], mask(&c[2])),
            })
            .into_owned();
        out = Cow::Owned(replaced);
        pairs = LineMask::of(&out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{mask, redact};

    #[test]
    fn credentials_of_known_shapes_are_masked_and_the_rest_kept() {
        for (text, shown) in [
            (
                "key AKIAIOSFODNN7EXAMPLE leaked",
                "key AKIA************MPLE leaked",
            ),
            (
                "curl -H 'Authorization: Bearer abcdefgh12345678zz' x",
                "curl -H 'Authorization: Bearer abcd**********78zz' x",
            ),
            (
                "redis://ci:hunter2-very-long@redis:6379",
                "redis://ci:***@redis:6379",
            ),
            // A password alone, as `--dump-config` masks it too.
            (
                "connect rediss://hunter2-very-long@redis:6380/0 failed",
                "connect rediss://***@redis:6380/0 failed",
            ),
            ("see https://example.com/a@b", "see https://example.com/a@b"),
            (
                "failed: password=S3cr3tPassw0rd!x",
                "failed: password=**************!x",
            ),
            (
                "token ghp_abcdefghijklmnopqrstuvwxyz0123456789 in log",
                "token ghp_************6789 in log",
            ),
            (
                "nothing to see: password is required",
                "nothing to see: password is required",
            ),
        ] {
            assert_eq!(redact(text), shown, "{text}");
        }
        let pem =
            "a\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nAAAA\n-----END RSA PRIVATE KEY-----\nb";
        let masked = redact(pem);
        assert!(!masked.contains("MIIEow"), "{masked}");
        assert!(masked.contains("[private key masked]"), "{masked}");
        // Idempotent: masking twice changes nothing more.
        let once = redact("password=S3cr3tPassw0rd!x and AKIAIOSFODNN7EXAMPLE");
        assert_eq!(redact(&once), once);
        assert_eq!(mask("short"), "********");
    }
}
