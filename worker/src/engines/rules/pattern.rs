//! The rules' regexes ([`revu_common::pattern`]), and the two ways the
//! rules ask them.

use regex::Captures;
pub(crate) use revu_common::pattern::Pattern;

/// Whether `pattern` matches `text` (never, if it did not compile).
pub(crate) fn is_match(pattern: &Pattern, text: &str) -> bool {
    pattern.is_match(text)
}

/// The captures of the first match of `pattern` in `text`.
pub(crate) fn captures<'t>(pattern: &Pattern, text: &'t str) -> Option<Captures<'t>> {
    pattern.captures(text)
}
