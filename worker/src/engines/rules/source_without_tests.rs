use super::behaviour::behaviour_lines;
use super::lang::Lang;
use super::paths::{has_dir, is_generated_path, is_non_production_path, is_test_path};
use super::pattern::{Pattern, pattern};
use super::meta::{Example, RuleMeta};
use super::{Message, Rule, RuleContext, finding};
use revu_domain::code_index::SymbolKind;
use revu_domain::diff::{FilePatch, FileStatus};
use revu_domain::finding::{BlastRadius, Dimension, Finding, Severity};
use std::collections::BTreeSet;

/// A Rust test being added inline (`#[test]`, `#[tokio::test]`, `#[cfg(test)]`).
static RUST_TEST: Pattern = pattern!(r"^\s*#\[(?:(?:\w+::)?test\b|cfg\((?:all\()?test\b)");

/// A line that defines a function, method or class, in the languages the
/// rule reads without the code index.
pub(crate) static DEFINES: Pattern = pattern!(
    r"^\s*(?:(?:async\s+)?def\s+\w+|class\s+\w+|(?:export\s+)?(?:default\s+)?(?:async\s+)?function\b|(?:export\s+)?(?:const|let)\s+\w+\s*=\s*(?:async\s*)?(?:\([^)]*\)|\w+)\s*(?::[^=]*)?=>|func\s|(?:pub(?:\([\w:]+\))?\s+)?(?:async\s+)?(?:const\s+)?(?:unsafe\s+)?fn\s+\w+|(?:(?:public|protected|private|static|final|synchronized|abstract)\s+)+[\w<>\[\],.? ]+\s+\w+\s*\([^;]*$|fun\s+\w+)"
);

/// The `source-without-tests` rule: [`META`].
#[derive(Debug, Clone, Copy, Default)]
pub struct SourceWithoutTests;

/// The `source-without-tests` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-TEST-001",
    name: "source-without-tests",
    dimension: Dimension::Testing,
    severity: Severity::Important,
    confidence: 70,
    languages: &["any source language"],
    catches: "A change-wide check: flags a change that adds new behaviour (a new function, \
              method or class whose body is code) to production source files but adds or edits \
              no test anywhere (no file under a test directory or named like a test, and no \
              inline Rust `#[test]`). Only lines that change behaviour count: comments, \
              docstrings, imports, version strings, re-formatting and type annotations alone do \
              not. With the code index, a new symbol that a test already names is covered, and \
              the finding says which tests were found for the rest. It cites the first new \
              definition; it is about the change as a whole, so the blast radius never raises \
              it, and it is never a BLOCKER.",
    why: "Without a test, nothing shows that the new behaviour works, and nothing stops the \
          next change from breaking it. Reviewers have to verify it by reading alone.",
    example: Example {
        path: "billing/pricing.py",
        code: concat!(
            "def apply_annual_discount(plan, price):\n",
            "    return price * 0.8 if plan.annual else price",
        ),
        context: "The change adds or edits no test: no file under `tests/`, none named like a \
                  test.",
    },
    instead: "add a test that fails without the change, e.g. \
              `tests/test_pricing.py::test_discount_applies_to_annual_plans`.",
};

/// Most symbols and test files named in the finding.
const NAMED: usize = 3;

impl Rule for SourceWithoutTests {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, ctx: &RuleContext<'_>, out: &mut Vec<Finding>) {
        // One finding for the whole change, worked out where the change's
        // first source file that changes behaviour is read: any other
        // file's or lane's run stops here, without reading the whole
        // change (the rules run once per file, so reading it in each
        // would cost the square of the change).
        let Some(first) = ctx.change.iter().find(|p| !changed_behaviour(p).is_empty()) else {
            return;
        };
        if !ctx.files.iter().any(|f| f.path() == first.path()) {
            return;
        }
        if ctx.change.iter().any(touches_tests) {
            return;
        }
        let new = new_definitions(ctx);
        let untested: Vec<&New> = new.iter().filter(|n| n.tests.is_empty()).collect();
        let Some(cite) = untested.first() else {
            return;
        };
        let names: Vec<String> = untested.iter().map(|n| n.name.clone()).collect();
        let covered: Vec<&New> = new.iter().filter(|n| !n.tests.is_empty()).collect();
        let mut why = format!(
            "No test was added or updated, so nothing demonstrates that the new behaviour works \
             or protects it from the next change; reviewers must verify it by reading. New \
             symbols no test names: {}.",
            named(&names)
        );
        if !covered.is_empty() {
            let tests: BTreeSet<String> =
                covered.iter().flat_map(|n| n.tests.iter().cloned()).collect();
            let tests: Vec<String> = tests.into_iter().collect();
            let symbols: Vec<String> = covered.iter().map(|n| n.name.clone()).collect();
            why.push_str(&format!(
                " Tests that name the other new symbols ({}) exist in {}.",
                named(&symbols),
                named(&tests)
            ));
        }
        let msg = Message {
            summary: format!(
                "New `{}` in `{}`{}.",
                cite.name,
                cite.path,
                match names.len() - 1 {
                    0 => " has no test".to_owned(),
                    1 => " and 1 other new symbol have no test".to_owned(),
                    n => format!(" and {n} other new symbols have no test"),
                }
            ),
            why,
            fix: "Add a test that fails without this change (a unit test next to the code or a \
                  case in the existing test suite)."
                .into(),
        };
        let mut f = finding(self, &cite.path, cite.line, BlastRadius::Module, msg);
        f.meta = true;
        out.push(f);
    }
}

/// A definition the change adds.
struct New {
    path: String,
    name: String,
    line: u32,
    /// Test files that name it (from the code index).
    tests: Vec<String>,
}

/// The functions, methods and classes the change adds to production
/// source files, each holding a line that changes behaviour: from the code
/// index when the review has one, else from the lines that define them.
fn new_definitions(ctx: &RuleContext<'_>) -> Vec<New> {
    let mut out = Vec::new();
    for p in ctx.change {
        let behaviour = changed_behaviour(p);
        if behaviour.is_empty() {
            continue;
        }
        let added: BTreeSet<u32> = p.added_lines().map(|(n, _)| n).collect();
        match ctx.index.and_then(|i| i.files.get(p.path())) {
            Some(file) => {
                for s in &file.symbols {
                    let callable = matches!(
                        s.kind,
                        SymbolKind::Function | SymbolKind::Method | SymbolKind::Class
                    );
                    let has_code = behaviour
                        .iter()
                        .any(|(n, _)| (s.line..=s.end_line).contains(n) && *n != s.line);
                    if callable && added.contains(&s.line) && has_code {
                        out.push(New {
                            path: p.path().to_owned(),
                            name: s.name.clone(),
                            line: s.line,
                            tests: s.tests.clone(),
                        });
                    }
                }
            }
            None => {
                for (line, text) in &behaviour {
                    if DEFINES.is_match(text) {
                        out.push(New {
                            path: p.path().to_owned(),
                            name: definition_name(text),
                            line: *line,
                            tests: Vec::new(),
                        });
                    }
                }
            }
        }
    }
    out.sort_by(|a, b| (&a.path, a.line).cmp(&(&b.path, b.line)));
    out
}

/// The name a definition line gives: the word before its first `(`, `=`,
/// `:` or `{`, else its last word.
fn definition_name(text: &str) -> String {
    let head = text
        .split(['(', '=', ':', '{', '<'])
        .next()
        .unwrap_or(text)
        .trim();
    head.rsplit(char::is_whitespace)
        .next()
        .unwrap_or(head)
        .to_owned()
}

/// `names` in backquotes, the first few, and how many more.
fn named(names: &[String]) -> String {
    let mut list: Vec<String> = names.iter().take(NAMED).map(|n| format!("`{n}`")).collect();
    if names.len() > NAMED {
        list.push(format!("{} more", names.len() - NAMED));
    }
    list.join(", ")
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

/// The lines of `patch` that change what a production source file does
/// ([`behaviour_lines`]); none for other files.
fn changed_behaviour(patch: &FilePatch) -> Vec<(u32, &str)> {
    let path = patch.path();
    let lang = Lang::of(path);
    let source = !patch.binary
        && patch.status != FileStatus::Deleted
        && lang.is_source()
        && !is_non_production_path(path)
        && !is_generated_path(path)
        && !is_type_stub(path)
        && !has_dir(path, &["docs", "scripts", "tools", "bench", "benches", "benchmarks"]);
    if !source {
        return Vec::new();
    }
    behaviour_lines(patch)
}

/// A file of type declarations only: it holds no behaviour to test.
fn is_type_stub(path: &str) -> bool {
    path.ends_with(".pyi") || path.ends_with(".d.ts") || path.ends_with(".d.mts")
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::super::testing::{added_file, assert_well_formed, cited, modified};
    use super::*;
    use revu_domain::code_index::{CodeIndex, IndexedFile, Symbol};

    fn run_with(change: &[FilePatch], lane: &[usize], index: Option<&CodeIndex>) -> Vec<Finding> {
        let files: Vec<&FilePatch> = lane.iter().map(|&i| &change[i]).collect();
        let mut out = Vec::new();
        SourceWithoutTests.check(&RuleContext::new(&files, change, index), &mut out);
        out
    }

    fn run_lane(change: &[FilePatch], lane: &[usize]) -> Vec<Finding> {
        run_with(change, lane, None)
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
                    ('+', ""),
                    ('+', "def annual(plan):"),
                    ('+', "    return price(plan) * 12"),
                ],
            ),
            modified("billing/tax.py", 3, &[('+', "def rate():"), ('+', "    return 0.21")]),
        ]
    }

    #[test]
    fn flags_the_first_new_definition_in_its_lane_only() {
        let change = change_without_tests();
        let found = run_lane(&change, &[0, 1, 2]);
        assert_eq!(cited(&found), vec![("billing/pricing.py", 13)]);
        assert_eq!(
            found[0].summary,
            "New `annual` in `billing/pricing.py` and 1 other new symbol have no test."
        );
        assert!(found[0].meta);
        assert_well_formed(&SourceWithoutTests, &found);
        assert!(
            run_lane(&change, &[2]).is_empty(),
            "another lane must not repeat it"
        );
    }

    #[test]
    fn quiet_when_a_test_changes_or_nothing_new_is_defined() {
        let mut change = change_without_tests();
        change.push(added_file(
            "tests/test_pricing.py",
            &["def test_discount(): ..."],
        ));
        assert!(run_lane(&change, &[0, 1, 2, 3]).is_empty());

        let inline = [modified(
            "src/price.rs",
            1,
            &[('+', "fn f() {"), ('+', "    g()"), ('+', "}"), ('+', "#[test]"), ('+', "fn t() {}")],
        )];
        assert!(run_lane(&inline, &[0]).is_empty());

        let comments = [modified(
            "src/price.rs",
            1,
            &[('+', "// clarify rounding"), ('+', "")],
        )];
        assert!(run_lane(&comments, &[0]).is_empty());
        // A changed body with no new definition: existing code, tested or
        // not, is no new behaviour to name.
        let body = [modified(
            "src/pkg/api.py",
            20,
            &[('-', "    return self._impl.run(x)"), ('+', "    return self._impl.run(x, retry=True)")],
        )];
        assert!(run_lane(&body, &[0]).is_empty());
    }

    #[test]
    fn tooling_changes_are_no_behaviour() {
        let tooling = [
            modified(
                "src/pkg/api.py",
                20,
                &[
                    ('-', "    return self._impl.run(x)"),
                    ('+', "    return self._impl.run(x)  # pyright: ignore[reportAttributeAccessIssue]"),
                    ('-', "def fetch(url, timeout=None):"),
                    ('+', "def fetch(url: str, timeout: float | None = None) -> bytes:"),
                    ('+', "    \"\"\"Fetch `url`.\"\"\""),
                ],
            ),
            modified("src/pkg/__init__.py", 1, &[('-', "__version__ = \"2.3.0\""), ('+', "__version__ = \"2.3.1\"")]),
            modified("src/types.d.ts", 1, &[('+', "export declare function f(x: number): string;")]),
        ];
        assert!(run_lane(&tooling, &[0, 1, 2]).is_empty());
    }

    #[test]
    fn with_the_index_a_new_symbol_a_test_names_is_covered() {
        let change = [modified(
            "src/pkg/api.py",
            3,
            &[
                ('+', "def fetch(url):"),
                ('+', "    return get(url, retry=True)"),
                ('+', "def store(x):"),
                ('+', "    return put(x)"),
            ],
        )];
        let symbol = |name: &str, line, tests: Vec<String>| Symbol {
            name: name.into(),
            kind: SymbolKind::Function,
            line,
            end_line: line + 1,
            changed: true,
            callers: 1,
            sites: Vec::new(),
            tests,
            test_sites: Vec::new(),
        };
        let index = |fetch_tests: Vec<String>, store_tests: Vec<String>| {
            let mut i = CodeIndex::default();
            i.files.insert(
                "src/pkg/api.py".into(),
                IndexedFile {
                    symbols: vec![symbol("fetch", 3, fetch_tests), symbol("store", 5, store_tests)],
                    ..IndexedFile::default()
                },
            );
            i
        };
        let t = |s: &str| vec![s.to_owned()];
        let both = index(t("tests/test_api.py"), t("tests/test_store.py"));
        assert!(run_with(&change, &[0], Some(&both)).is_empty());
        let one = index(t("tests/test_api.py"), Vec::new());
        let found = run_with(&change, &[0], Some(&one));
        assert_eq!(cited(&found), vec![("src/pkg/api.py", 5)]);
        assert!(
            found[0].why.contains("New symbols no test names: `store`")
                && found[0].why.contains("(`fetch`) exist in `tests/test_api.py`"),
            "{}",
            found[0].why
        );
    }
}
