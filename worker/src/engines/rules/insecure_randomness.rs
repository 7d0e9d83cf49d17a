use super::meta::{Example, RuleMeta};
use revu_domain::finding::{Dimension, Severity};
use super::table::{Check, Files, Wording, table_rule};
use super::lang::Lang;
use std::sync::LazyLock;

/// A name that says the value must not be guessed, then `=` or `:=`.
const SECRET_NAME: &str = r"(?i)\b\w*(?:token|secret|passw(?:or)?d|nonce|salt|otp|session_?id|sessionid|api_?key|csrf)\w*\b\s*(?::=|=)";

static CHECKS: LazyLock<Vec<Check>> = LazyLock::new(|| {
    let at = |call: &str| format!("{SECRET_NAME}.*{call}");
    vec![
        Check::new("random", Files::Lang(Lang::Python), &at(r"\brandom\.(?:random|randint|randrange|choice|choices|getrandbits|sample)\(")),
        Check::new("math/rand", Files::Lang(Lang::Go), &at(r"\brand\.(?:Int|Intn|Int31|Int31n|Int63|Int63n|Uint32|Uint64|Float64)\("))
            .unless(r"rand\.Reader"),
        Check::new("Math.random()", Files::Lang(Lang::JavaScript), &at(r"\bMath\.random\(\)")),
        Check::new("java.util.Random", Files::Lang(Lang::Java), &at(r"\bnew\s+Random\(|\bMath\.random\(\)|\bThreadLocalRandom\.current\(\)")),
    ]
});

fn summary(label: &str) -> String {
    format!("A secret value drawn from `{label}`, which is predictable.")
}

static WORDING: Wording = Wording {
    summary,
    why: "This generator is not cryptographic: a few of its outputs reveal its state, \
          and with it every token or password it makes afterwards.",
    fix: "Draw secrets from a cryptographic source: `secrets.token_urlsafe()`, \
          `crypto/rand`, `crypto.randomBytes`, `SecureRandom`.",
};

/// The `insecure-randomness` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-SEC-009",
    name: "insecure-randomness",
    dimension: Dimension::Security,
    severity: Severity::Important,
    confidence: 80,
    languages: &["Python", "Go", "JavaScript/TypeScript", "Java"],
    catches: "Flags a value named as a secret (a token, password, nonce, salt, OTP, session id, \
              API key or CSRF token) drawn from a random generator that is not cryptographic: \
              Python's `random`, Go's `math/rand`, `Math.random()`, `java.util.Random`. The \
              class of bandit's B311, gosec's G404 and semgrep's `insecure-random` rules.",
    why: "These generators are predictable: a few outputs reveal their state, and every later \
          \"secret\" with it. A reset token from `random.randint` can be guessed.",
    example: Example {
        path: "app/accounts.py",
        code: "reset_token = str(random.randint(100000, 999999))",
        context: "",
    },
    instead: "`secrets.token_urlsafe()`, `crypto/rand`, `crypto.randomBytes` / \
              `crypto.getRandomValues`, `SecureRandom`.",
};

table_rule! {
    /// The `insecure-randomness` rule: [`META`].
    InsecureRandomness {
        meta: META,
        checks: CHECKS,
        wording: WORDING,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{added_file, assert_well_formed, cited, run};
    use super::*;

    #[test]
    fn flags_secrets_from_predictable_generators() {
        let change = [
            added_file(
                "app/reset.py",
                &["reset_token = str(random.randint(0, 10**6))", "delay = random.random()"],
            ),
            added_file("web/s.js", &["const sessionId = Math.random().toString(36);"]),
            added_file("pkg/t.go", &["nonce := rand.Int63()", "n, _ := rand.Int(rand.Reader, max)"]),
        ];
        let found = run(&InsecureRandomness, &change);
        assert_eq!(
            cited(&found),
            vec![("app/reset.py", 1), ("web/s.js", 1), ("pkg/t.go", 1)]
        );
        assert_well_formed(&InsecureRandomness, &found);
        assert!(CHECKS.iter().all(Check::compiles));
    }
}
