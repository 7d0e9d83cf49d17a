//! Where a line sits: the head-side lines of a hunk, indentation, and which
//! added lines of a Rust file are production code rather than tests.

use super::lang::Lang;
use super::paths::{is_non_production_path, is_test_path};
use super::pattern::{Pattern, pattern};
use super::{FileLines, Reads, RuleContext};
use revu_domain::diff::{FilePatch, Hunk, LineKind};
use std::cell::OnceCell;

/// One line of the head side of a hunk (an added or a context line).
#[derive(Debug, Clone, Copy)]
pub(crate) struct HeadLine<'a> {
    pub line: u32,
    pub added: bool,
    pub text: &'a str,
}

/// The head-side lines of `hunk`, in order.
pub(crate) fn head_lines(hunk: &Hunk) -> Vec<HeadLine<'_>> {
    each_head_line(hunk).collect()
}

/// [`head_lines`] as they come, collecting nothing.
pub(crate) fn each_head_line(hunk: &Hunk) -> impl Iterator<Item = HeadLine<'_>> {
    head_lines_at(hunk).map(|(_, l)| l)
}

/// [`each_head_line`], each with its place in the hunk's lines.
pub(crate) fn head_lines_at(hunk: &Hunk) -> impl Iterator<Item = (usize, HeadLine<'_>)> {
    hunk.lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.kind() != LineKind::Removed)
        .filter_map(|(at, l)| {
            Some((
                at,
                HeadLine {
                    line: l.new_line()?,
                    added: l.kind() == LineKind::Added,
                    text: &l.text,
                },
            ))
        })
}

/// A hunk's head-side lines for a rule that reads a line's neighbours
/// once the line itself matched: they are collected the first time they
/// are asked for, and most hunks have no such line.
pub(crate) struct HunkLines<'a> {
    hunk: &'a Hunk,
    all: OnceCell<Vec<HeadLine<'a>>>,
}

impl<'a> HunkLines<'a> {
    pub(crate) fn new(hunk: &'a Hunk) -> Self {
        HunkLines {
            hunk,
            all: OnceCell::new(),
        }
    }

    /// The lines in order; the `i`-th is `self.all()[i]`.
    pub(crate) fn each(&self) -> impl Iterator<Item = HeadLine<'a>> + use<'a> {
        each_head_line(self.hunk)
    }

    /// Every line, collected on first use.
    pub(crate) fn all(&self) -> &[HeadLine<'a>] {
        self.all.get_or_init(|| head_lines(self.hunk))
    }
}

/// Leading whitespace width (a tab counts as four columns).
pub(crate) fn indent(text: &str) -> usize {
    text.chars()
        .take_while(|c| c.is_whitespace())
        .map(|c| if c == '\t' { 4 } else { 1 })
        .sum()
}

static RUST_TEST_START: Pattern = pattern!(
    r"^\s*#\[cfg\((?:all\()?test\b|^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+tests?\b|^\s*#\[(?:\w+::)?test\b",
);

/// The head line from which `patch` is test code: `0` for a test file, the
/// first inline test marker of a Rust file (`#[cfg(test)]`, `mod tests`,
/// `#[test]`, or a hunk whose function context is `mod tests`), otherwise
/// `u32::MAX`. Best effort: everything after the marker counts as test code.
pub(crate) fn test_code_start(patch: &FilePatch) -> u32 {
    let path = patch.path();
    if is_test_path(path) {
        return 0;
    }
    if Lang::of(path) != Lang::Rust {
        return u32::MAX;
    }
    for hunk in &patch.hunks {
        if RUST_TEST_START.is_match(&hunk.section) {
            return hunk.new_start;
        }
        if let Some(l) = each_head_line(hunk).find(|l| RUST_TEST_START.is_match(l.text)) {
            return l.line;
        }
    }
    u32::MAX
}

/// The added lines of `patch` before test code that hold code or strings
/// (no comment or docstring alone), as written, read without the head
/// file: for what works on a file outside a rule's run.
pub(crate) fn production_lines(patch: &FilePatch) -> Vec<(u32, &str)> {
    let lines = FileLines::lazy(patch, None);
    let files = [patch];
    let ctx = RuleContext {
        reads: Reads::CodeAndStrings,
        lines: std::slice::from_ref(&lines),
        ..RuleContext::new(&files, &[], None)
    };
    let kept = ctx.production_lines(patch);
    patch
        .added_lines()
        .filter(|&(n, _)| kept.binary_search_by_key(&n, |&(k, _)| k).is_ok())
        .collect()
}

/// Where an added line is: its head line number, and its hunk and place
/// in that hunk's lines (kept apart from the diff, so that lanes in other
/// threads can share it).
#[derive(Debug, Clone, Copy)]
pub(crate) struct LineRef {
    pub line: u32,
    hunk: u32,
    at: u32,
}

impl LineRef {
    /// Line `line`, the `at`th of hunk `hunk`.
    pub(crate) fn new(line: u32, hunk: usize, at: usize) -> Self {
        LineRef {
            line,
            hunk: u32::try_from(hunk).unwrap_or(u32::MAX),
            at: u32::try_from(at).unwrap_or(u32::MAX),
        }
    }

    /// The line's text in `patch`, the file it was read from.
    pub(crate) fn text(self, patch: &FilePatch) -> &str {
        patch
            .hunks
            .get(self.hunk as usize)
            .and_then(|h| h.lines.get(self.at as usize))
            .map_or("", |l| &*l.text)
    }
}

/// Whether `path` is a Rust file outside tests, examples, benchmarks and
/// build scripts.
pub(crate) fn is_production_rust(path: &str) -> bool {
    Lang::of(path) == Lang::Rust && !is_non_production_path(path)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{added_file, modified};
    use super::*;

    /// The numbers of `patch`'s production lines, as a rule reading Rust
    /// code gets them.
    fn production_rust_lines(patch: &FilePatch) -> Vec<u32> {
        let lines = FileLines::lazy(patch, None);
        let files = [patch];
        let ctx = RuleContext {
            lines: std::slice::from_ref(&lines),
            ..RuleContext::new(&files, &[], None)
        };
        let got = ctx.production_rust_lines(patch);
        got.iter().map(|l| l.0).collect()
    }

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
        assert_eq!(production_rust_lines(&p), vec![1]);
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

    #[test]
    fn test_code_starts_at_a_marker_or_a_test_path() {
        let mut p = modified("src/lib.rs", 30, &[(' ', "fn a() {}"), ('+', "fn b() {}")]);
        assert_eq!(test_code_start(&p), u32::MAX);
        p.hunks[0].section = "mod tests {".into();
        assert_eq!(test_code_start(&p), 30);
        assert_eq!(test_code_start(&added_file("app/test_x.py", &["x"])), 0);
        let py = added_file("app/x.py", &["# note", "mod tests = 1", "y = 2"]);
        assert_eq!(
            production_lines(&py),
            vec![(2, "mod tests = 1"), (3, "y = 2")]
        );
    }

    #[test]
    fn python_docstrings_are_not_code_but_assigned_strings_and_doc_assignments_are() {
        let py = added_file(
            "app/x.py",
            &[
                "def f():",
                "    \"\"\"Example:",
                "    eval(x)",
                "    \"\"\"",
                "    q = \"\"\"",
                "    SELECT * FROM t",
                "    \"\"\"",
                "    \"\"\"One-line docstring.\"\"\"",
                "    return 1",
                "    \"\"\"Doc with a nested",
                "    html = '''<div>'''",
                "    print(html)",
                "    \"\"\"",
                "__doc__ = \"\"\"",
                "print(x)",
                "\"\"\"",
            ],
        );
        let lines: Vec<u32> = production_lines(&py).iter().map(|l| l.0).collect();
        assert_eq!(lines, vec![1, 5, 6, 7, 9, 14]);
    }
}
