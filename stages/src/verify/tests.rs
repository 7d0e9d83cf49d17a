#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::conventions::strategies::arb_review_md;
use proptest::prelude::*;
use revu_domain::diff::{Hunk, Line, LineKind, LineText};
use revu_domain::finding::BlastRadius;

fn patch(path: &str, status: FileStatus, lines: &[(LineKind, u32)]) -> FilePatch {
    let line = |&(kind, n): &(LineKind, u32)| {
        Line::new(
            kind,
            (kind != LineKind::Added).then_some(n),
            (kind != LineKind::Removed).then_some(n),
            LineText::default(),
        )
    };
    let deleted = status == FileStatus::Deleted;
    FilePatch {
        old_path: Some(path.into()),
        new_path: (!deleted).then(|| path.into()),
        status,
        old_mode: None,
        new_mode: None,
        similarity: None,
        binary: false,
        binary_size: None,
        hunks: vec![Hunk {
            old_start: 1,
            old_lines: 0,
            new_start: 1,
            new_lines: 0,
            section: LineText::default(),
            lines: lines.iter().map(line).collect(),
        }],
    }
}

/// `src/a.rs`: context 10, added 11-12, context 13 (hunks only).
/// `src/full.rs`: added 5, head contents of 30 lines sent.
/// `src/gone.rs`: deleted.
fn fixture() -> (Diff, ReviewBundle) {
    use LineKind::*;
    let diff = Diff {
        files: vec![
            patch(
                "src/a.rs",
                FileStatus::Modified,
                &[
                    (Context, 10),
                    (Added, 11),
                    (Added, 12),
                    (Removed, 12),
                    (Context, 13),
                ],
            ),
            patch(
                "src/full.rs",
                FileStatus::Modified,
                &[(Context, 4), (Added, 5)],
            ),
            patch(
                "src/gone.rs",
                FileStatus::Deleted,
                &[(Removed, 1), (Removed, 2)],
            ),
        ],
    };
    let mut bundle = ReviewBundle::default();
    bundle
        .head_files
        .insert("src/full.rs".into(), "x\n".repeat(30).into_bytes());
    (diff, bundle)
}

fn finding(rule: &str, severity: Severity, file: &str, line: u32, dimension: Dimension) -> Finding {
    Finding {
        rule: rule.into(),
        severity,
        file: file.into(),
        line,
        end_line: None,
        dimension,
        dimensions: vec![],
        summary: format!("{rule} summary"),
        why: "because".into(),
        fix: "fix it".into(),
        confidence: 90,
        blast_radius: BlastRadius::Local,
        pre_existing: false,
        pre_existing_line: false,
        downgraded_from: None,
        meta: false,
        owners: Vec::new(),
    }
}

fn run(raised: Vec<Finding>) -> Verified {
    let (diff, bundle) = fixture();
    verify(raised, &diff, &bundle)
}

use Dimension::{Correctness, Design, Security};
use Severity::{Blocker, Important, Suggestion};

#[test]
fn drops_finding_on_file_outside_the_change() {
    let out = run(vec![finding("R", Blocker, "src/other.rs", 11, Security)]);
    assert!(out.findings.is_empty());
    assert_eq!(out.stats.dropped_unknown_file, 1);
}

#[test]
fn line_zero_moves_to_the_first_changed_line_and_a_deleted_file_is_cited_at_line_1() {
    let out = run(vec![
        finding("R", Important, "src/gone.rs", 0, Design),
        finding("S", Blocker, "src/gone.rs", 2, Design),
        finding("T", Important, "src/a.rs", 0, Design),
    ]);
    let kept: Vec<(&str, u32)> = out
        .findings
        .iter()
        .map(|f| (f.rule.as_str(), f.line))
        .collect();
    // src/a.rs first adds line 11; a deleted file has only line 1.
    assert_eq!(kept, [("T", 11), ("R", 1)]);
    assert_eq!(out.stats.dropped_missing_line, 1);
    assert!(out.findings.iter().all(|f| f.line >= 1));
}

#[test]
fn line_must_exist_in_head_contents_or_hunks() {
    let out = run(vec![
        finding("A", Blocker, "src/full.rs", 30, Security),
        finding("B", Blocker, "src/full.rs", 31, Security),
        finding("C", Blocker, "src/a.rs", 13, Security),
        finding("D", Blocker, "src/a.rs", 14, Security),
    ]);
    let kept: Vec<&str> = out.findings.iter().map(|f| f.rule.as_str()).collect();
    assert_eq!(kept, ["C", "A"]);
    assert_eq!(out.stats.dropped_missing_line, 2);
}

#[test]
fn bad_end_line_is_cleared_without_dropping() {
    let mut backwards = finding("A", Important, "src/a.rs", 12, Correctness);
    backwards.end_line = Some(11);
    let mut missing = finding("B", Important, "src/a.rs", 11, Correctness);
    missing.end_line = Some(40);
    let mut good = finding("C", Important, "src/a.rs", 11, Correctness);
    good.end_line = Some(13);
    let out = run(vec![backwards, missing, good]);
    let ends: Vec<(&str, Option<u32>)> = out
        .findings
        .iter()
        .map(|f| (f.rule.as_str(), f.end_line))
        .collect();
    assert_eq!(ends, [("B", None), ("C", Some(13)), ("A", None)]);
    assert_eq!(out.stats.kept, 3);
}

#[test]
fn an_engine_that_marks_its_finding_pre_existing_on_an_added_line_is_believed() {
    // A model that says the problem predates the change (the code moved
    // unchanged): its own finding weighs less, never more.
    let mut moved = finding("llm:security", Important, "src/a.rs", 11, Security);
    moved.summary = "[pre-existing] webhook signature never checked".into();
    let mut blocker = finding("llm:correctness", Blocker, "src/a.rs", 11, Correctness);
    blocker.summary = "[pre-existing] data loss on retry".into();
    let out = run(vec![moved, blocker]);
    let got: Vec<(&str, bool, bool)> = out
        .findings
        .iter()
        .map(|f| (f.summary.as_str(), f.pre_existing_line, f.pre_existing))
        .collect();
    assert_eq!(
        got,
        [
            ("data loss on retry", true, false),
            ("webhook signature never checked", true, true),
        ]
    );
}

#[test]
fn untouched_lines_are_marked_pre_existing_once_and_only_blockers_count() {
    let mut marked = finding("B", Blocker, "src/a.rs", 13, Security);
    marked.summary = "[pre-existing] already".into();
    // An engine cannot mark its own finding pre-existing, nor downgraded.
    let mut claimed = finding("D", Important, "src/a.rs", 11, Design);
    claimed.pre_existing = true;
    claimed.pre_existing_line = true;
    claimed.downgraded_from = Some(Blocker);
    let out = run(vec![
        finding("A", Blocker, "src/a.rs", 10, Security),
        marked,
        finding("C", Important, "src/a.rs", 10, Design),
        claimed,
    ]);
    let got: Vec<(&str, &str, bool, bool)> = out
        .findings
        .iter()
        .map(|f| {
            (
                f.rule.as_str(),
                f.summary.as_str(),
                f.pre_existing_line,
                f.pre_existing,
            )
        })
        .collect();
    // The mark is a field, never prose: an engine's own is taken out.
    assert_eq!(
        got,
        [
            ("A", "A summary", true, false),
            ("B", "already", true, false),
            ("C", "C summary", true, true),
            ("D", "D summary", false, false),
        ]
    );
    let shown: Vec<String> = out
        .findings
        .iter()
        .map(|f| f.shown_summary().into_owned())
        .collect();
    assert_eq!(
        shown,
        [
            "[pre-existing] A summary",
            "[pre-existing] already",
            "[pre-existing] C summary",
            "D summary",
        ]
    );
    assert!(out.findings.iter().all(|f| f.downgraded_from.is_none()));
    assert_eq!(out.stats.dropped_untouched_line, 0);
    assert_eq!(out.stats.pre_existing, 1);
}

#[test]
fn confidence_floors_never_drop_a_blocker() {
    let with = |sev, c| Finding {
        confidence: c,
        ..finding("R", sev, "src/a.rs", 11, Design)
    };
    let out = run(vec![
        with(Suggestion, 79),
        with(Suggestion, 80),
        with(Important, 69),
        with(Important, 70),
        with(Blocker, 5),
    ]);
    assert_eq!(out.stats.dropped_low_confidence, 2);
    assert_eq!(
        out.stats.kept, 1,
        "survivors share (file, line, rule) and merge"
    );
    assert_eq!(out.stats.merged_duplicates, 2);
}

#[test]
fn same_rule_on_same_line_merges_into_the_worst_case() {
    let mut design = finding("RV-X", Important, "src/a.rs", 11, Design);
    design.confidence = 99;
    let out = run(vec![
        design,
        finding("RV-X", Blocker, "src/a.rs", 11, Security),
    ]);
    assert_eq!(out.stats.merged_duplicates, 1);
    let f = &out.findings[0];
    assert_eq!((f.severity, f.confidence), (Blocker, 99));
    assert_eq!(
        (f.dimension, f.dimensions.as_slice()),
        (Security, &[Security, Design][..])
    );
    assert_eq!(
        f.why,
        "because (Severity disagreement: security said BLOCKER, design said IMPORTANT; kept BLOCKER.)"
    );
}

#[test]
fn merge_within_one_dimension_leaves_dimensions_empty() {
    let out = run(vec![
        finding("RV-X", Important, "src/a.rs", 11, Design),
        finding("RV-X", Important, "src/a.rs", 11, Design),
    ]);
    assert_eq!(out.findings.len(), 1);
    assert!(out.findings[0].dimensions.is_empty());
    assert_eq!(out.findings[0].why, "because", "no disagreement, no note");
}

#[test]
fn distinct_rules_on_one_line_stay_apart_and_are_noted() {
    let out = run(vec![
        finding("RV-SEC-004", Important, "src/a.rs", 12, Security),
        finding("RV-COR-001", Important, "src/a.rs", 12, Correctness),
        // Two findings on a deleted file, both at its line 1: no line of
        // code to share, so no note.
        finding("RV-A", Important, "src/gone.rs", 0, Design),
        finding("RV-B", Important, "src/gone.rs", 0, Design),
    ]);
    assert_eq!(out.stats.kept, 4);
    assert_eq!(
        out.cross_cutting,
        ["src/a.rs:12: 2 distinct issues (RV-COR-001, RV-SEC-004)"]
    );
}

#[test]
fn output_is_sorted_by_severity_then_citation_then_rule() {
    let out = run(vec![
        finding("B", Suggestion, "src/a.rs", 11, Design),
        finding("A", Important, "src/a.rs", 12, Design),
        finding("Z", Important, "src/a.rs", 11, Design),
        finding("Y", Blocker, "src/full.rs", 5, Design),
        finding("X", Important, "src/a.rs", 11, Design),
    ]);
    let order: Vec<&str> = out.findings.iter().map(|f| f.rule.as_str()).collect();
    assert_eq!(order, ["Y", "X", "Z", "A", "B"]);
}

const RULES: [&str; 3] = ["RV-A-1", "RV-B-2", "RV-C-3"];
const GLOBS: [&str; 5] = ["**", "src/*.rs", "src/a.rs", "src/full.rs", "src/gone.rs"];

fn arb_finding() -> impl Strategy<Value = Finding> {
    let files = prop::sample::select(vec![
        "src/a.rs",
        "src/full.rs",
        "src/gone.rs",
        "src/other.rs",
    ]);
    let sev = prop::sample::select(vec![Blocker, Important, Suggestion]);
    let dim = prop::sample::select(Dimension::ALL.to_vec());
    let rule = prop::sample::select(RULES.to_vec());
    (
        files,
        0u32..35,
        prop::option::of(0u32..35),
        sev,
        dim,
        rule,
        0u8..=100,
        "[ab]{0,2}",
    )
        .prop_map(
            |(file, line, end_line, sev, dim, rule, confidence, summary)| Finding {
                end_line,
                confidence,
                summary,
                ..finding(rule, sev, file, line, dim)
            },
        )
}

proptest! {
    #[test]
    fn counts_balance_files_exist_and_order_does_not_matter(
        (raised, shuffled) in prop::collection::vec(arb_finding(), 0..24)
            .prop_flat_map(|v| (Just(v.clone()), Just(v).prop_shuffle()))
    ) {
        let out = run(raised.clone());
        let s = &out.stats;
        prop_assert_eq!(s.raised, raised.len());
        prop_assert_eq!(s.kept, out.findings.len());
        prop_assert_eq!(
            s.kept + s.dropped_unknown_file + s.dropped_missing_line + s.dropped_low_confidence
                + s.dropped_untouched_line + s.merged_duplicates,
            s.raised
        );
        let (diff, _) = fixture();
        prop_assert!(out.findings.iter().all(|f| diff.files.iter().any(|p| p.path() == f.file)));
        prop_assert_eq!(run(shuffled), out);
    }

    /// Whatever `REVIEW.md` says, every BLOCKER verification keeps without
    /// conventions is kept, as a BLOCKER, with them; and every finding is
    /// still accounted for.
    #[test]
    fn conventions_never_drop_or_lower_a_blocker(
        raised in prop::collection::vec(arb_finding(), 0..24),
        text in arb_review_md(&RULES, &GLOBS),
    ) {
        let plain = run(raised.clone());
        let (diff, bundle) = fixture();
        let conventions = ReviewMd::parse(&text);
        let with = verify_with(raised.clone(), &diff, &bundle, &conventions);
        let mut reversed = raised;
        reversed.reverse();
        prop_assert_eq!(&verify_with(reversed, &diff, &bundle, &conventions), &with);
        let blockers = |v: &Verified| -> BTreeSet<(String, u32, String)> {
            v.findings
                .iter()
                .filter(|f| f.severity == Blocker)
                .map(|f| (f.file.clone(), f.line, f.rule.clone()))
                .collect()
        };
        prop_assert!(blockers(&plain).is_subset(&blockers(&with)));
        let s = &with.stats;
        prop_assert_eq!(
            s.kept + s.dropped_unknown_file + s.dropped_missing_line + s.dropped_low_confidence
                + s.dropped_untouched_line + s.merged_duplicates + s.dropped_allowed_nit,
            s.raised
        );
        prop_assert!(s.dropped_allowed_nit >= with.conventions.nits.len());
    }
}
