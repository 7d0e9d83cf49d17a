//! Regexes compiled once per process. A pattern that fails to compile
//! disables the part of the rule that uses it instead of panicking; the
//! fixture tests of every rule catch such a pattern before it ships.

use regex::{Captures, Regex};
use std::sync::LazyLock;

/// A lazily compiled regex; `None` if the pattern does not compile.
pub(crate) type Pattern = LazyLock<Option<Regex>>;

/// Compiles `pattern`, logging (not panicking) when it is invalid.
pub(crate) fn compile(pattern: &str) -> Option<Regex> {
    match Regex::new(pattern) {
        Ok(re) => Some(re),
        Err(err) => {
            tracing::error!(%err, pattern, "built-in rule pattern does not compile; check disabled");
            None
        }
    }
}

/// Whether `pattern` matches `text` (never, if it did not compile).
pub(crate) fn is_match(pattern: &Pattern, text: &str) -> bool {
    pattern.as_ref().is_some_and(|re| re.is_match(text))
}

/// The captures of the first match of `pattern` in `text`.
pub(crate) fn captures<'t>(pattern: &Pattern, text: &'t str) -> Option<Captures<'t>> {
    pattern.as_ref().and_then(|re| re.captures(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    static BROKEN: Pattern = LazyLock::new(|| compile("(unclosed"));
    static WORD: Pattern = LazyLock::new(|| compile(r"\bfoo\b"));

    #[test]
    fn an_invalid_pattern_never_matches() {
        assert!(!is_match(&BROKEN, "(unclosed"));
        assert!(is_match(&WORD, "a foo b"));
        assert!(captures(&WORD, "bar").is_none());
    }
}
