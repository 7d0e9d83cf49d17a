use super::lang::Lang;
use super::paths::{has_dir, is_generated_path, is_non_production_path, is_test_path};
use super::pattern::{Pattern, pattern};
use super::{Message, Rule, RuleContext, finding};
use revu_common::diff::{FilePatch, FileStatus};
use revu_common::finding::{BlastRadius, Dimension, Finding, Severity};

/// A Rust test being added inline (`#[test]`, `#[tokio::test]`, `#[cfg(test)]`).
static RUST_TEST: Pattern = pattern!(r"^\s*#\[(?:(?:\w+::)?test\b|cfg\((?:all\()?test\b)");

/// ## What it does
/// A change-wide check: flags a change that adds code to source files but
/// adds or edits no test anywhere (no file under a test directory or named
/// like a test, and no inline Rust `#[test]`). The finding cites the first
/// such source file as a whole.
///
/// ## Why is this bad?
/// Without a test, nothing shows that the new behaviour works, and nothing
/// stops the next change from breaking it. Reviewers have to verify it by
/// reading alone.
///
/// ## Example
/// A change that adds a discount rule to `billing/pricing.py` and touches no
/// file under `tests/`.
///
/// Use instead: add a test that fails without the change, e.g.
/// `tests/test_pricing.py::test_discount_applies_to_annual_plans`.
#[derive(Debug, Clone, Copy, Default)]
pub struct SourceWithoutTests;

impl Rule for SourceWithoutTests {
    fn code(&self) -> &'static str {
        "RV-TEST-001"
    }
    fn name(&self) -> &'static str {
        "source-without-tests"
    }
    fn dimension(&self) -> Dimension {
        Dimension::Testing
    }
    fn severity(&self) -> Severity {
        Severity::Important
    }
    fn confidence(&self) -> u8 {
        70
    }

    fn check(&self, ctx: &RuleContext<'_>, out: &mut Vec<Finding>) {
        // The finding cites the change's first source file: any other
        // lane has nothing to do, without reading the whole change.
        let Some(first) = ctx.change.iter().find(|p| adds_code(p)) else {
            return;
        };
        let path = first.path();
        if !ctx.files.iter().any(|f| f.path() == path) {
            return;
        }
        if ctx.change.iter().any(touches_tests) {
            return;
        }
        let sources = ctx.change.iter().filter(|p| adds_code(p)).count();
        let others = match sources - 1 {
            0 => String::new(),
            1 => " and 1 other source file".to_string(),
            n => format!(" and {n} other source files"),
        };
        let msg = Message {
            summary: format!("Source changed in `{path}`{others} without any test change."),
            why: "No test was added or updated, so nothing demonstrates that the new behaviour \
                  works or protects it from the next change; reviewers must verify it by reading."
                .into(),
            fix: "Add or update a test that fails without this change (a unit test next to the \
                  code or a case in the existing test suite)."
                .into(),
        };
        out.push(finding(self, path, first.anchor_line(), BlastRadius::Module, msg));
    }
}

/// Whether `patch` adds or changes a test.
fn touches_tests(patch: &FilePatch) -> bool {
    if patch.status == FileStatus::Deleted {
        return false;
    }
    let path = patch.path();
    is_test_path(path)
        || (Lang::of(path) == Lang::Rust
            && patch.added_lines().any(|(_, t)| RUST_TEST.is_match(t)))
}

/// Whether `patch` adds real code (not only comments or blank lines) to a
/// production source file.
fn adds_code(patch: &FilePatch) -> bool {
    let path = patch.path();
    let lang = Lang::of(path);
    !patch.binary
        && patch.status != FileStatus::Deleted
        && lang.is_source()
        && !is_non_production_path(path)
        && !is_generated_path(path)
        && !has_dir(path, &["docs", "scripts"])
        && patch
            .added_lines()
            .any(|(_, t)| !t.trim().is_empty() && !lang.is_comment(t))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::super::testing::{added_file, assert_well_formed, cited, modified};
    use super::*;

    fn run_lane(change: &[FilePatch], lane: &[usize]) -> Vec<Finding> {
        let files: Vec<&FilePatch> = lane.iter().map(|&i| &change[i]).collect();
        let mut out = Vec::new();
        SourceWithoutTests.check(
            &RuleContext::new(&files, change, None),
            &mut out,
        );
        out
    }

    fn change_without_tests() -> Vec<FilePatch> {
        vec![
            added_file("README.md", &["# Pricing"]),
            modified(
                "billing/pricing.py",
                10,
                &[
                    (' ', "def price(plan):"),
                    ('+', "    return plan.base * 0.9"),
                ],
            ),
            modified("billing/tax.py", 3, &[('+', "RATE = 0.21")]),
        ]
    }

    #[test]
    fn flags_the_first_source_file_in_its_lane_only() {
        let change = change_without_tests();
        let found = run_lane(&change, &[0, 1, 2]);
        assert_eq!(cited(&found), vec![("billing/pricing.py", 11)]);
        assert_eq!(
            found[0].summary,
            "Source changed in `billing/pricing.py` and 1 other source file without any test change."
        );
        assert_well_formed(&SourceWithoutTests, &found);
        assert!(
            run_lane(&change, &[2]).is_empty(),
            "another lane must not repeat it"
        );
    }

    #[test]
    fn quiet_when_a_test_changes_or_only_comments_change() {
        let mut change = change_without_tests();
        change.push(added_file(
            "tests/test_pricing.py",
            &["def test_discount(): ..."],
        ));
        assert!(run_lane(&change, &[0, 1, 2, 3]).is_empty());

        let inline = [modified(
            "src/price.rs",
            1,
            &[('+', "fn f() {}"), ('+', "#[test]"), ('+', "fn t() {}")],
        )];
        assert!(run_lane(&inline, &[0]).is_empty());

        let comments = [modified(
            "src/price.rs",
            1,
            &[('+', "// clarify rounding"), ('+', "")],
        )];
        assert!(run_lane(&comments, &[0]).is_empty());
    }
}
