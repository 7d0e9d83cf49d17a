//! Fixture builders for the rule tests: file patches built directly, so the
//! tests do not depend on the diff parser.

use super::{Reads, Rule, RuleContext, RuleMeta, all_rules};
use revu_domain::diff::{FilePatch, FileStatus, Hunk, Line, LineKind, LineText};
use revu_domain::finding::Finding;

fn patch(path: &str, status: FileStatus, hunks: Vec<Hunk>) -> FilePatch {
    let deleted = status == FileStatus::Deleted;
    FilePatch {
        old_path: (status != FileStatus::Added).then(|| path.to_string()),
        new_path: (!deleted).then(|| path.to_string()),
        status,
        old_mode: None,
        new_mode: None,
        similarity: None,
        binary: false,
        binary_size: None,
        hunks,
    }
}

/// A hunk starting at `start` on both sides; `'+'` adds, `'-'` removes and
/// `' '` keeps a line.
fn hunk(start: u32, lines: &[(char, &str)]) -> Hunk {
    let (mut old, mut new) = (start, start);
    let mut body = Vec::new();
    for &(kind, text) in lines {
        let (kind, old_line, new_line) = match kind {
            '+' => (LineKind::Added, None, Some(new)),
            '-' => (LineKind::Removed, Some(old), None),
            _ => (LineKind::Context, Some(old), Some(new)),
        };
        old += u32::from(old_line.is_some());
        new += u32::from(new_line.is_some());
        body.push(Line::new(kind, old_line, new_line, text));
    }
    Hunk {
        old_start: start,
        old_lines: old - start,
        new_start: start,
        new_lines: new - start,
        section: LineText::default(),
        lines: body,
    }
}

/// A new file whose lines are numbered from 1.
pub(crate) fn added_file(path: &str, lines: &[&str]) -> FilePatch {
    let body: Vec<(char, &str)> = lines.iter().map(|l| ('+', *l)).collect();
    patch(path, FileStatus::Added, vec![hunk(1, &body)])
}

/// A modified file with one hunk starting at head line `start`.
pub(crate) fn modified(path: &str, start: u32, lines: &[(char, &str)]) -> FilePatch {
    patch(path, FileStatus::Modified, vec![hunk(start, lines)])
}

/// A deleted file whose removed lines are `lines`.
pub(crate) fn deleted(path: &str, lines: &[&str]) -> FilePatch {
    let body: Vec<(char, &str)> = lines.iter().map(|l| ('-', *l)).collect();
    patch(path, FileStatus::Deleted, vec![hunk(1, &body)])
}

/// A binary file of `size` bytes (if known).
pub(crate) fn binary(path: &str, status: FileStatus, size: Option<u64>) -> FilePatch {
    let mut p = patch(path, status, Vec::new());
    p.binary = true;
    p.binary_size = size;
    p
}

/// Runs `rule` with every file of `change` in its lane.
pub(crate) fn run(rule: &dyn Rule, change: &[FilePatch]) -> Vec<Finding> {
    let files: Vec<&FilePatch> = change.iter().collect();
    let mut out = Vec::new();
    super::run(rule, &RuleContext::new(&files, change, None), &mut out);
    out
}

/// The `(file, line)` citations of `findings`.
pub(crate) fn cited(findings: &[Finding]) -> Vec<(&str, u32)> {
    findings.iter().map(|f| (f.file.as_str(), f.line)).collect()
}

/// Asserts what every finding of `rule` must satisfy.
pub(crate) fn assert_well_formed(rule: &dyn Rule, findings: &[Finding]) {
    for f in findings {
        assert_eq!(f.rule, rule.code());
        assert_eq!(f.dimension, rule.dimension());
        // A rule may lower its severity for a hit, saying why first.
        assert!(f.severity <= rule.severity());
        if f.severity < rule.severity() {
            let lead = format!("Downgraded from {}: ", rule.severity());
            assert!(f.why.starts_with(&lead), "no reason: {}", f.why);
        }
        assert_eq!(f.confidence, rule.confidence());
        assert!(f.dimensions.is_empty());
        assert!(
            f.summary.ends_with('.'),
            "summary is a sentence: {}",
            f.summary
        );
        assert!(!f.why.is_empty() && !f.fix.is_empty());
    }
}

/// A rule as another catalogue entry describes it: what it finds is the
/// rule's, what it is said to be is the entry's.
struct Described {
    rule: Box<dyn Rule>,
    meta: &'static RuleMeta,
}

impl Rule for Described {
    fn meta(&self) -> &'static RuleMeta {
        self.meta
    }
    fn reads(&self) -> Reads {
        self.rule.reads()
    }
    fn check(&self, ctx: &RuleContext<'_>, out: &mut Vec<Finding>) {
        self.rule.check(ctx, out);
    }
}

/// Every built-in rule, the `at`th described by `alter` of its entry (a
/// catalogue of the tests' own, one entry changed).
pub(crate) fn altered(at: usize, alter: impl Fn(RuleMeta) -> RuleMeta) -> Vec<Box<dyn Rule>> {
    let mut rules = all_rules();
    let rule = rules.remove(at);
    // Leaked: a test's catalogue lives as long as the test.
    let meta: &'static RuleMeta = Box::leak(Box::new(alter(*rule.meta())));
    rules.insert(at, Box::new(Described { rule, meta }));
    rules
}
