//! Regexes compiled once per process, on the first text that gets past
//! their literal guard ([`Guard`]): a run compiles only the patterns its
//! text could match, and a line that holds none of a pattern's literals
//! never reaches the regex. A line read by many patterns (a rule file's
//! production lines) has its [`LineMask`] worked out once: the `_line`
//! methods read it first, and most patterns' guards turn the line away
//! there without searching it. A pattern that fails to compile disables
//! what uses it instead of panicking (the error is logged).
//!
//! The program's own patterns are written [`pattern!`]: their guards'
//! needles are worked out, and the patterns checked, when it is built.
//! [`Pattern::owned`] (a pattern made at run time) reads its needles on
//! first use.

mod guard;
mod mask;

pub use guard::Guard;
pub use mask::LineMask;
use regex::{Captures, Match, Regex};
pub use revu_macros::pattern;
use revu_needles::ascii_classes;
use std::borrow::Cow;
use std::sync::OnceLock;

/// A guard's needles as [`pattern!`] worked them out: each its bytes and
/// whether ASCII case is ignored; `None` when the pattern has none.
pub type Needles = Option<&'static [(&'static [u8], bool)]>;

/// A regex, guarded and compiled on first use.
#[derive(Debug)]
pub struct Pattern {
    source: Cow<'static, str>,
    /// The guard's needles, when the build worked them out.
    needles: Option<Needles>,
    guard: OnceLock<Guard>,
    compiled: OnceLock<Option<Regex>>,
}

impl Pattern {
    /// A pattern whose guard is read off `source` on first use (the
    /// program's own are written [`pattern!`], which does that at build).
    pub const fn new(source: &'static str) -> Pattern {
        Pattern {
            source: Cow::Borrowed(source),
            needles: None,
            guard: OnceLock::new(),
            compiled: OnceLock::new(),
        }
    }

    /// What [`pattern!`] makes: `source` with its guard's needles.
    #[doc(hidden)]
    pub const fn prepared(source: &'static str, needles: Needles) -> Pattern {
        Pattern {
            source: Cow::Borrowed(source),
            needles: Some(needles),
            guard: OnceLock::new(),
            compiled: OnceLock::new(),
        }
    }

    /// A pattern whose source is made at run time.
    pub fn owned(source: &str) -> Pattern {
        Pattern {
            source: Cow::Owned(source.to_owned()),
            needles: None,
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
            .get_or_init(|| match self.needles {
                Some(needles) => Guard::prepared(needles),
                None => Guard::of(&ascii_classes(&self.source)),
            })
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

#[cfg(test)]
mod tests {
    use super::*;

    static BROKEN: Pattern = Pattern::new("(unclosed");
    static WORD: Pattern = Pattern::new(r"\bfoo\b");

    #[test]
    fn word_classes_are_ascii_and_other_escapes_stay() {
        let re = compile(r"[\w.-]+\d").unwrap_or_else(|| panic!("compiles"));
        assert!(re.is_match("a.b-c1"));
        assert!(!re.is_match("é"));
    }

    /// Each source twice: its guard worked out at build, and read at run.
    macro_rules! both {
        ($($source:tt),* $(,)?) => {
            ([$(pattern!($source)),*], [$(Pattern::new($source)),*])
        };
    }

    static BOTH: ([Pattern; 5], [Pattern; 5]) = both!(
        r"\b(todo|unimplemented)!\(",
        r"(?i)\bselect\s+(?:distinct\s+)?\*",
        r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}",
        r"[A-Z]{3}\d+",
        r"(?i)to\wen = \d",
    );

    #[test]
    fn a_guard_worked_out_at_build_is_the_one_read_at_run() {
        let lines = [
            "todo!()",
            "unimplemented!(x)",
            "todo (",
            "SELECT DISTINCT * FROM t",
            "selec * from",
            "rk_test_0123456789abcdef",
            "no test was added",
            "ABC123",
            "to\u{212A}en = 1",
            "TOKEN = 2",
            "",
        ];
        let (prepared, read) = &BOTH;
        for (built, run) in prepared.iter().zip(read) {
            assert!(built.needles.is_some() && run.needles.is_none());
            for line in lines {
                let mask = LineMask::of(line);
                assert_eq!(
                    built.admits_line(line, mask),
                    run.admits_line(line, mask),
                    "{} on {line:?}",
                    run.source
                );
                assert_eq!(built.is_match(line), run.is_match(line));
            }
        }
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
