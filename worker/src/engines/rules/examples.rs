//! Every rule's catalogue example ([`RuleMeta::example`]) is a change of
//! its own, run through every rule: its rule must flag it, and what all
//! the rules find is held to a snapshot (`snapshots/`), one block per
//! rule, so that a rule that stops flagging its example, or starts
//! flagging it at another line or severity, fails here.

use super::testing::{added_file, binary};
use super::{Rule, RuleContext, RuleMeta, all_rules};
use revu_domain::code_index::{CodeIndex, Omission, Site, SymbolChange, SymbolKind};
use revu_domain::diff::{FilePatch, FileStatus};
use revu_domain::finding::Finding;
use std::fmt::Write;

/// What a change is given besides an example's lines, for a rule that
/// does not fire from them alone.
#[derive(Debug, Clone, Copy)]
enum Besides {
    /// It reads the code index, which a diff does not carry: one that
    /// finds the stale use is given.
    CodeIndex,
    /// It counts a new file's lines: the example's lines are repeated past
    /// its limit.
    Length,
    /// It reads binary files, which have no lines: a binary at the
    /// example's path.
    Binary,
}

/// The rules whose example is exercised otherwise. Keep it short: an
/// example people read should be one its rule flags.
const EXERCISED_OTHERWISE: &[(&str, Besides)] = &[
    ("RV-COR-006", Besides::CodeIndex),
    ("RV-DES-003", Besides::Length),
    ("RV-OPS-003", Besides::Binary),
];

fn besides(meta: &RuleMeta) -> Option<Besides> {
    EXERCISED_OTHERWISE
        .iter()
        .find(|(code, _)| *code == meta.code)
        .map(|(_, b)| *b)
}

/// The change the example of `meta` stands for, with its code index.
fn change(meta: &RuleMeta) -> (Vec<FilePatch>, Option<CodeIndex>) {
    let example = meta.example;
    let lines: Vec<&str> = example.code.lines().collect();
    match besides(meta) {
        None => (vec![added_file(example.path, &lines)], None),
        Some(Besides::CodeIndex) => (
            vec![added_file(example.path, &lines)],
            Some(stale_use_index(example.path)),
        ),
        Some(Besides::Length) => {
            let long: Vec<&str> = lines.iter().copied().cycle().take(1_400).collect();
            (vec![added_file(example.path, &long)], None)
        }
        Some(Besides::Binary) => (vec![binary(example.path, FileStatus::Added, None)], None),
    }
}

/// The code index of the stale-reference example: the renamed attribute
/// still read in a file the change does not touch.
fn stale_use_index(defined_in: &str) -> CodeIndex {
    CodeIndex {
        omissions: vec![Omission {
            symbol: "user_name".into(),
            kind: SymbolKind::Property,
            change: SymbolChange::Renamed {
                to: "username".into(),
            },
            defined_in: defined_in.into(),
            defined_line: 1,
            site: Site::at("app/report.py", 12),
            text: "print(user.user_name)".into(),
            checked: String::new(),
            doubt: None,
        }],
        ..CodeIndex::default()
    }
}

/// What every rule finds on `change`, in rule order.
fn findings(
    rules: &[Box<dyn Rule>],
    change: &[FilePatch],
    index: Option<&CodeIndex>,
) -> Vec<Finding> {
    let files: Vec<&FilePatch> = change.iter().collect();
    let ctx = RuleContext::new(&files, change, index);
    let mut out = Vec::new();
    for rule in rules {
        super::run(rule.as_ref(), &ctx, &mut out);
    }
    out
}

#[test]
fn every_rules_example_is_flagged_by_it() {
    let rules = all_rules();
    let mut snapshot = String::new();
    let mut unflagged = Vec::new();
    for rule in &rules {
        let meta = rule.meta();
        let (change, index) = change(meta);
        let found = findings(&rules, &change, index.as_ref());
        if !found.iter().any(|f| f.rule == meta.code) {
            unflagged.push(meta.code);
        }
        let _ = writeln!(
            snapshot,
            "{} {} ({})",
            meta.code, meta.name, meta.example.path
        );
        for f in &found {
            let _ = writeln!(
                snapshot,
                "  {} {} {}:{} {}",
                f.rule, f.severity, f.file, f.line, f.summary
            );
        }
    }
    assert!(
        unflagged.is_empty(),
        "examples their rule does not flag: {unflagged:?}"
    );
    insta::assert_snapshot!("examples", snapshot);
}

#[test]
fn a_rule_exercised_otherwise_says_what_its_lines_do_not_show() {
    let rules = all_rules();
    for (code, besides) in EXERCISED_OTHERWISE {
        let rule = rules.iter().find(|r| r.code() == *code);
        let rule = rule.unwrap_or_else(|| panic!("{code} is no rule"));
        assert!(
            !rule.meta().example.context.is_empty(),
            "{code} ({besides:?}): the example's context must say what else it takes"
        );
    }
}
