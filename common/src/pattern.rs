//! Regexes compiled once per process, on the first text that gets past
//! their literal guard ([`guard`]): a run compiles only the patterns its
//! text could match, and a line that holds none of a pattern's literals
//! never reaches the regex. A line read by many patterns (a rule file's
//! production lines) has its [`LineMask`] worked out once: the `_line`
//! methods read it first, and most patterns' guards turn the line away
//! there without searching it. A pattern that fails to compile disables
//! what uses it instead of panicking (the error is logged).

mod guard;
mod mask;

pub use guard::Guard;
pub use mask::LineMask;
use regex::{Captures, Match, Regex};
use std::borrow::Cow;
use std::sync::OnceLock;

/// A regex, guarded and compiled on first use.
#[derive(Debug)]
pub struct Pattern {
    source: Cow<'static, str>,
    guard: OnceLock<Guard>,
    compiled: OnceLock<Option<Regex>>,
}

impl Pattern {
    pub const fn new(source: &'static str) -> Pattern {
        Pattern {
            source: Cow::Borrowed(source),
            guard: OnceLock::new(),
            compiled: OnceLock::new(),
        }
    }

    /// A pattern whose source is made at run time.
    pub fn owned(source: &str) -> Pattern {
        Pattern {
            source: Cow::Owned(source.to_owned()),
            guard: OnceLock::new(),
            compiled: OnceLock::new(),
        }
    }

    /// The compiled regex (`None` if it does not compile), compiled now if
    /// it was not yet.
    pub fn regex(&self) -> Option<&Regex> {
        self.compiled.get_or_init(|| compile(&self.source)).as_ref()
    }

    /// Whether `text` holds a literal every match needs: `false` means
    /// the pattern cannot match it.
    pub fn admits(&self, text: &str) -> bool {
        self.admits_line(text, LineMask::ALL)
    }

    /// Whether the pattern matches `text` (never, if it did not compile).
    pub fn is_match(&self, text: &str) -> bool {
        self.is_match_line(text, LineMask::ALL)
    }

    /// The captures of the first match in `text`.
    pub fn captures<'t>(&self, text: &'t str) -> Option<Captures<'t>> {
        self.captures_line(text, LineMask::ALL)
    }

    /// The first match in `text`.
    pub fn find<'t>(&self, text: &'t str) -> Option<Match<'t>> {
        self.find_line(text, LineMask::ALL)
    }

    /// [`Pattern::admits`] on a line whose [`LineMask`] is known (that of
    /// `text`, or one that holds more: [`LineMask::with`]).
    pub fn admits_line(&self, text: &str, mask: LineMask) -> bool {
        self.guard
            .get_or_init(|| Guard::of(&ascii_classes(&self.source)))
            .admits_line(text, mask)
    }

    /// [`Pattern::is_match`] on a line whose [`LineMask`] is known.
    pub fn is_match_line(&self, text: &str, mask: LineMask) -> bool {
        self.admits_line(text, mask) && self.regex().is_some_and(|re| re.is_match(text))
    }

    /// [`Pattern::captures`] on a line whose [`LineMask`] is known.
    pub fn captures_line<'t>(&self, text: &'t str, mask: LineMask) -> Option<Captures<'t>> {
        if !self.admits_line(text, mask) {
            return None;
        }
        self.regex().and_then(|re| re.captures(text))
    }

    /// [`Pattern::find`] on a line whose [`LineMask`] is known.
    pub fn find_line<'t>(&self, text: &'t str, mask: LineMask) -> Option<Match<'t>> {
        if !self.admits_line(text, mask) {
            return None;
        }
        self.regex().and_then(|re| re.find(text))
    }
}

/// Compiles `pattern`, logging (not panicking) when it is invalid.
///
/// Word classes and boundaries are ASCII (`\w`, `\b`, `\d` as in
/// [`ascii_classes`]): the patterns read code, whose names are ASCII, and the
/// Unicode tables make a pattern many times slower to compile, which is
/// most of what a small review costs.
pub fn compile(pattern: &str) -> Option<Regex> {
    match Regex::new(&ascii_classes(pattern)) {
        Ok(re) => Some(re),
        Err(err) => {
            tracing::error!(%err, pattern, "pattern does not compile; what uses it is disabled");
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

#[cfg(test)]
mod tests {
    use super::*;

    static BROKEN: Pattern = Pattern::new("(unclosed");
    static WORD: Pattern = Pattern::new(r"\bfoo\b");

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
        assert!(!BROKEN.is_match("(unclosed"));
        assert!(WORD.is_match("a foo b"));
        assert!(WORD.captures("bar").is_none());
        let lazy = Pattern::new(r"\bnever_seen_literal\(");
        assert!(!lazy.is_match("no such call here"));
        assert!(
            lazy.compiled.get().is_none(),
            "turned away by its guard, never compiled"
        );
        assert!(lazy.is_match("never_seen_literal(1)"));
    }
}
