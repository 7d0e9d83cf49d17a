use super::pattern::{Pattern, pattern};
use super::meta::{Example, RuleMeta};
use super::{Message, Reads, Rule, RuleContext, finding, text_files};
use revu_domain::finding::{BlastRadius, Dimension, Finding, Severity};

static UNWRAP: Pattern = pattern!(r"\.(unwrap\(\)|expect\()");
static LOCK: Pattern = pattern!(r"\.lock\(\)\s*\.(?:unwrap\(\)|expect\()");
/// An `expect` message that states why the value is always there: the
/// invariant the rule's own fix asks to document.
static INVARIANT: Pattern = pattern!(
    r#"(?i)\.expect\(\s*"[^"]*\b(?:can ?not|can't|cannot|never|always|infallible|invariant|guaranteed|checked|validated|by construction|must be|is valid|are valid|just (?:set|inserted|created))\b[^"]*"\s*\)"#
);

/// The `unwrap-in-production` rule: [`META`].
#[derive(Debug, Clone, Copy, Default)]
pub struct UnwrapInProduction;

/// The `unwrap-in-production` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-COR-001",
    name: "unwrap-in-production",
    dimension: Dimension::Correctness,
    severity: Severity::Important,
    confidence: 75,
    languages: &["Rust"],
    catches: "Flags `.unwrap()` and `.expect(…)` added to non-test Rust code.\n\
              \n\
              Test code, examples, benchmarks, build scripts, `.lock().unwrap()` (a poisoned \
              mutex is already a bug) and an `expect` whose message states the invariant that \
              makes it safe (`.expect(\"validated above, cannot fail\")`) are not flagged.",
    why: "Both panic when the value is `None` or `Err`, turning a recoverable error into a \
          crash of the task or process. In a service, one malformed input can take down every \
          request the process is serving.",
    example: Example {
        path: "src/config.rs",
        code: "let port: u16 = env::var(\"PORT\").unwrap().parse().unwrap();",
        context: "",
    },
    instead: "```rust\n\
              let port: u16 = env::var(\"PORT\")?.parse().map_err(ConfigError::Port)?;\n\
              ```",
};

impl Rule for UnwrapInProduction {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }
    /// Strings too, for an `expect` message; the calls are matched in code.
    fn reads(&self) -> Reads {
        Reads::CodeAndStrings
    }

    fn check(&self, ctx: &RuleContext<'_>, out: &mut Vec<Finding>) {
        let as_code = ctx.reading(Reads::Code);
        for patch in text_files(ctx) {
            // Read as code: comments and string contents are not there.
            for &(line, code) in as_code.production_rust_lines(patch).iter() {
                let Some(c) = UNWRAP.captures(code) else {
                    continue;
                };
                // The `expect` message is a string: read in the view with
                // strings, it may state the invariant.
                let invariant = ctx
                    .production_text(patch, line)
                    .is_some_and(|text| INVARIANT.is_match(text));
                if LOCK.captures(code).is_some() || invariant {
                    continue;
                }
                let call = if &c[1] == "unwrap()" {
                    ".unwrap()"
                } else {
                    ".expect(…)"
                };
                let msg = Message {
                    summary: format!("`{call}` added to non-test code can panic at runtime."),
                    why: format!(
                        "`{call}` panics on `None`/`Err`, so an unexpected input or I/O error \
                         crashes the task instead of being reported to the caller."
                    ),
                    fix: "Propagate the error with `?` (adding context with `map_err` or \
                          `ok_or_else`), or handle the `None`/`Err` case explicitly; if it truly \
                          cannot fail, document the invariant in an `expect` message and allow \
                          the lint locally."
                        .into(),
                };
                out.push(finding(self, patch.path(), line, BlastRadius::Service, msg));
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
    fn an_expect_that_states_its_invariant_is_the_documented_idiom() {
        let change = [added_file(
            "src/attachment.rs",
            &[
                "let s = name.to_str().expect(\"This was a HeaderValue so this can not fail\");",
                "let v = HeaderValue::try_from(s).expect(\"validated above\");",
                "let p = raw.parse::<u16>().expect(\"port\");",
            ],
        )];
        assert_eq!(cited(&run(&UnwrapInProduction, &change)), vec![("src/attachment.rs", 3)]);
    }

    #[test]
    fn flags_unwrap_and_expect_in_production_code() {
        let change = [modified(
            "src/config.rs",
            40,
            &[
                (' ', "fn port() -> u16 {"),
                ('+', "    let raw = std::env::var(\"PORT\").unwrap();"),
                ('+', "    raw.parse().expect(\"port\")"),
                (' ', "}"),
            ],
        )];
        let found = run(&UnwrapInProduction, &change);
        assert_eq!(
            cited(&found),
            vec![("src/config.rs", 41), ("src/config.rs", 42)]
        );
        assert!(found[0].summary.contains(".unwrap()"));
        assert!(found[1].summary.contains(".expect(…)"));
        assert_well_formed(&UnwrapInProduction, &found);
    }

    #[test]
    fn ignores_tests_comments_safe_variants_and_mutex_locks() {
        let change = [
            added_file("tests/api.rs", &["let v = call().unwrap();"]),
            added_file(
                "src/lib.rs",
                &[
                    "// call().unwrap() would panic here",
                    "let hint = \"call .unwrap() only in tests\";",
                    "let n = s.parse().unwrap_or(0);",
                    "let guard = state.lock().unwrap();",
                    "#[cfg(test)]",
                    "mod tests {",
                    "    fn t() { call().unwrap(); }",
                    "}",
                ],
            ),
        ];
        assert!(run(&UnwrapInProduction, &change).is_empty());
    }

    #[test]
    fn an_unwrap_in_a_doc_comment_or_a_string_is_not_one() {
        let change = [added_file(
            "src/lib.rs",
            &[
                "/// let v = parse(s).unwrap();",
                "/*! Crate docs:",
                "    config().unwrap();",
                "*/",
                "let usage = \"call",
                "    .unwrap() only in tests\";",
                "let raw = r#\"x.expect(\"y\")\"#;",
                "/* still a comment",
                "   x.unwrap() */ let n = parse(s).unwrap();",
            ],
        )];
        let found = run(&UnwrapInProduction, &change);
        assert_eq!(cited(&found), vec![("src/lib.rs", 9)]);
    }
}
