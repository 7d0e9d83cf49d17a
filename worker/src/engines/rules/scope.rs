//! Where a line sits: the head-side lines of a hunk, indentation, and which
//! added lines of a Rust file are production code rather than tests.

use super::lang::Lang;
use super::paths::is_non_production_path;
use super::pattern::{Pattern, compile, is_match};
use revu_common::diff::{FilePatch, Hunk, LineKind};
use std::sync::LazyLock;

/// One line of the head side of a hunk (an added or a context line).
#[derive(Debug, Clone, Copy)]
pub(crate) struct HeadLine<'a> {
    pub line: u32,
    pub added: bool,
    pub text: &'a str,
}

/// The head-side lines of `hunk`, in order.
pub(crate) fn head_lines(hunk: &Hunk) -> Vec<HeadLine<'_>> {
    hunk.lines
        .iter()
        .filter(|l| l.kind != LineKind::Removed)
        .filter_map(|l| {
            Some(HeadLine {
                line: l.new_line?,
                added: l.kind == LineKind::Added,
                text: &l.text,
            })
        })
        .collect()
}

/// Leading whitespace width (a tab counts as four columns).
pub(crate) fn indent(text: &str) -> usize {
    text.chars()
        .take_while(|c| c.is_whitespace())
        .map(|c| if c == '\t' { 4 } else { 1 })
        .sum()
}

static RUST_TEST_START: Pattern = LazyLock::new(|| {
    compile(
        r"^\s*#\[cfg\((?:all\()?test\b|^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+tests?\b|^\s*#\[(?:\w+::)?test\b",
    )
});

/// The added, non-comment lines of a Rust production file that come before
/// any test code in the patch (`#[cfg(test)]`, `mod tests`, `#[test]`, or a
/// hunk whose function context is `mod tests`). Empty for other files.
pub(crate) fn production_rust_lines(patch: &FilePatch) -> Vec<(u32, &str)> {
    let path = patch.path();
    if Lang::of(path) != Lang::Rust || is_non_production_path(path) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for hunk in &patch.hunks {
        if is_match(&RUST_TEST_START, &hunk.section) {
            break;
        }
        for l in head_lines(hunk) {
            if is_match(&RUST_TEST_START, l.text) {
                return out;
            }
            if l.added && !Lang::Rust.is_comment(l.text) {
                out.push((l.line, l.text));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::testing::{added_file, modified};
    use super::*;

    #[test]
    fn stops_at_the_first_test_marker() {
        let p = added_file(
            "src/lib.rs",
            &[
                "fn a() {}",
                "// note",
                "#[cfg(test)]",
                "mod tests {",
                "fn b() {}",
            ],
        );
        let got: Vec<u32> = production_rust_lines(&p).iter().map(|l| l.0).collect();
        assert_eq!(got, vec![1]);
    }

    #[test]
    fn cfg_not_test_is_production_and_test_files_are_skipped() {
        let p = modified(
            "src/lib.rs",
            10,
            &[(' ', "#[cfg(not(test))]"), ('+', "fn a() {}")],
        );
        assert_eq!(production_rust_lines(&p).len(), 1);
        assert!(production_rust_lines(&added_file("tests/it.rs", &["fn a() {}"])).is_empty());
        assert_eq!(indent("\t  x"), 6);
    }
}
