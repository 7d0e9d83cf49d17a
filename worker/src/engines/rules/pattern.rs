//! Regexes compiled once per process. A pattern that fails to compile
//! disables the part of the rule that uses it instead of panicking; the
//! fixture tests of every rule catch such a pattern before it ships.

use regex::{Captures, Regex};
use std::sync::LazyLock;

/// A lazily compiled regex; `None` if the pattern does not compile.
pub(crate) type Pattern = LazyLock<Option<Regex>>;

/// Compiles `pattern`, logging (not panicking) when it is invalid.
///
/// Word classes and boundaries are ASCII (`\w`, `\b`, `\d` as in
/// [`ascii_classes`]): the rules read code, whose names are ASCII, and the
/// Unicode tables make a pattern many times slower to compile, which is
/// most of what a small review costs.
pub(crate) fn compile(pattern: &str) -> Option<Regex> {
    match Regex::new(&ascii_classes(pattern)) {
        Ok(re) => Some(re),
        Err(err) => {
            tracing::error!(%err, pattern, "built-in rule pattern does not compile; check disabled");
            None
        }
    }
}

/// `pattern` with `\w`, `\W`, `\d`, `\D`, `\b` and `\B` made ASCII-only;
/// every other escape (`\\w` is a backslash and a `w`) left as written.
fn ascii_classes(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('w') => out.push_str("[0-9A-Za-z_]"),
            Some('W') => out.push_str("[^0-9A-Za-z_]"),
            Some('d') => out.push_str("[0-9]"),
            Some('D') => out.push_str("[^0-9]"),
            Some('b') => out.push_str("(?-u:\\b)"),
            Some('B') => out.push_str("(?-u:\\B)"),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
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
    fn word_classes_are_ascii_and_other_escapes_stay() {
        assert_eq!(ascii_classes(r"\bfoo\w+"), r"(?-u:\b)foo[0-9A-Za-z_]+");
        assert_eq!(ascii_classes(r"a\\w\.b"), r"a\\w\.b");
        let re = compile(r"[\w.-]+\d").unwrap_or_else(|| panic!("compiles"));
        assert!(re.is_match("a.b-c1"));
        assert!(!re.is_match("é"));
    }

    #[test]
    fn an_invalid_pattern_never_matches() {
        assert!(!is_match(&BROKEN, "(unclosed"));
        assert!(is_match(&WORD, "a foo b"));
        assert!(captures(&WORD, "bar").is_none());
    }
}
