use super::*;
use revu_domain::finding::{BlastRadius, Dimension, Finding};

fn finding(rule: &str, severity: Severity, file: &str, summary: &str) -> Finding {
    Finding {
        rule: rule.into(),
        severity,
        file: file.into(),
        line: 1,
        end_line: None,
        dimension: Dimension::Design,
        dimensions: vec![],
        summary: summary.into(),
        why: String::new(),
        fix: String::new(),
        confidence: 90,
        blast_radius: BlastRadius::Local,
        pre_existing: false,
        pre_existing_line: false,
        downgraded_from: None,
        meta: false,
        owners: Vec::new(),
    }
}

const GOOD: &str = "\
# Review conventions

Prose before the sections is for people.

## Path Guidance

- `services/payments/**`: amounts are integer cents; never floats.
- `migrations/**`, `db/**`: every migration needs a rollback
  and a note in the changelog.

## Severity Overrides

- `RV-COR-001` in `services/payments/**`: BLOCKER — a panic drops a payment
- `RV-SEC-003`: at least IMPORTANT
- `docs/**`: at most SUGGESTION
- `RV-DES-004` in `tests/**`: at most suggestion

## Allowed Nits

- `RV-DES-002`
- `RV-DES-003` in `examples/**`: examples print on purpose
- `scripts/**`
- matching \"wildcard import\": our preludes are meant to be glob-imported

```markdown
- `this/**`: is an example, not a bullet
```

## Something Else

- `ignored/**`: not a convention section
";

#[test]
fn parses_every_section_of_a_good_file() {
    let md = ReviewMd::parse(GOOD);
    assert!(md.warnings.is_empty(), "{:?}", md.warnings);
    assert_eq!(md.guidance.len(), 2);
    assert_eq!(md.guidance[0].line, 7);
    assert_eq!(
        md.guidance[1].render(),
        "migrations/**, db/**: every migration needs a rollback and a note in the changelog."
    );
    let bounds: Vec<(usize, Bound)> = md.overrides.iter().map(|o| (o.line, o.bound)).collect();
    assert_eq!(
        bounds,
        [
            (13, Bound::Floor(Severity::Blocker)),
            (14, Bound::Floor(Severity::Important)),
            (15, Bound::Cap(Severity::Suggestion)),
            (16, Bound::Cap(Severity::Suggestion)),
        ]
    );
    assert_eq!(md.overrides[0].scope.rule.as_deref(), Some("RV-COR-001"));
    assert_eq!(md.nits.len(), 4);
    assert_eq!(md.nits[1].reason, "examples print on purpose");
}

#[test]
fn scopes_match_rule_path_and_summary_text() {
    let md = ReviewMd::parse(GOOD);
    let nit = |i: usize, f: &Finding| md.nits[i].scope.matches(f);
    let s = Severity::Suggestion;
    assert!(nit(0, &finding("RV-DES-002", s, "src/a.rs", "")));
    assert!(!nit(0, &finding("RV-DES-003", s, "src/a.rs", "")));
    assert!(nit(1, &finding("RV-DES-003", s, "examples/x.rs", "")));
    assert!(!nit(1, &finding("RV-DES-003", s, "src/x.rs", "")));
    assert!(nit(2, &finding("RV-ANY-001", s, "scripts/deploy.sh", "")));
    assert!(nit(
        3,
        &finding("RV-DES-001", s, "src/a.rs", "Wildcard import of a module")
    ));
    assert!(!nit(
        3,
        &finding("RV-DES-001", s, "src/a.rs", "unused import")
    ));
}

#[test]
fn guidance_applies_to_matching_paths_only() {
    let md = ReviewMd::parse(GOOD);
    assert!(md.guidance[0].applies_to("services/payments/ledger.rs"));
    assert!(!md.guidance[0].applies_to("services/users/api.rs"));
    assert!(md.guidance[1].applies_to("db/schema.sql"));
}

#[test]
fn malformed_bullets_become_warnings_naming_their_line() {
    let text = "\
## Path Guidance
- `src/**` with no colon
- `src/[`: a glob that does not compile
- src/**: a glob without backticks

## Severity Overrides
- `RV-COR-001`: CRITICAL
- `docs/**`: SUGGESTION
- `RV-COR-001`: at most BLOCKER
- `RV-COR-001`: SUGGESTION
- `RV-COR-001` in: BLOCKER
- `RV-COR-001`
- `RV-COR-001` in `a/**` in `b/**`: at most IMPORTANT

## Allowed Nits
- `unterminated
- :
- `RV-DES-002` because
- `RV-DES-002` matching nothing
- `RV-DES-002`: fine
";
    let md = ReviewMd::parse(text);
    let lines: Vec<&str> = md
        .warnings
        .iter()
        .map(|w| w.split(':').nth(1).unwrap_or_default())
        .collect();
    assert_eq!(
        lines,
        [
            "2", "3", "4", "7", "8", "9", "10", "11", "12", "13", "16", "17", "18", "19"
        ],
        "{:#?}",
        md.warnings
    );
    assert!(
        md.warnings[3].contains("\"CRITICAL\" is not BLOCKER"),
        "{}",
        md.warnings[3]
    );
    assert!(
        md.warnings[4].contains("floor of SUGGESTION"),
        "{}",
        md.warnings[4]
    );
    assert!(
        md.warnings[6].contains("a floor of SUGGESTION"),
        "{}",
        md.warnings[6]
    );
    assert!(
        md.warnings[10].contains("unterminated"),
        "{}",
        md.warnings[10]
    );
    assert!(md.guidance.is_empty() && md.overrides.is_empty());
    assert_eq!(md.nits.len(), 1, "the one good nit still applies");
}

#[test]
fn a_path_floor_is_refused_because_floors_name_an_invariant() {
    let md = ReviewMd::parse("## Severity Overrides\n- `src/**`: at least IMPORTANT\n");
    assert!(md.overrides.is_empty());
    assert!(
        md.warnings[0].contains("a floor must name a rule id"),
        "{:?}",
        md.warnings
    );
}

#[test]
fn headings_match_case_insensitively_and_in_the_singular() {
    let md =
        ReviewMd::parse("## severity override\n- `RV-X-1`: BLOCKER\n## ALLOWED NIT:\n- `RV-X-2`\n");
    assert!(md.warnings.is_empty(), "{:?}", md.warnings);
    assert_eq!((md.overrides.len(), md.nits.len()), (1, 1));
}

#[test]
fn a_file_without_convention_sections_says_so() {
    let md = ReviewMd::parse("# Reviewing here\n\nBe kind.\n");
    assert_eq!(md.warnings.len(), 1);
    assert!(md.warnings[0].contains("no `## Path Guidance`"));
    assert!(ReviewMd::parse("").warnings.is_empty());
}

#[test]
fn unindented_prose_ends_a_bullet_and_level_three_headings_stay_in_the_section() {
    let text = "## Path Guidance\n- `a/**`: first\nnot a continuation\n### Sub\n- `b/**`: second\n";
    let md = ReviewMd::parse(text);
    let rendered: Vec<String> = md.guidance.iter().map(PathGuidance::render).collect();
    assert_eq!(rendered, ["a/**: first", "b/**: second"]);
}

#[test]
fn a_malformed_bullet_is_told_by_what_the_grammar_missed() {
    let refused = |text: &str| parse_override(text).err();
    assert_eq!(
        refused("`RV-COR-001`: CRITICAL"),
        Some(BulletError::NotSeverity {
            word: "CRITICAL".into()
        })
    );
    assert_eq!(
        refused("`RV-COR-001`: at most BLOCKER"),
        Some(BulletError::CapOfBlocker)
    );
    assert_eq!(
        refused("`src/**`: at least IMPORTANT"),
        Some(BulletError::FloorWithoutRule)
    );
    assert_eq!(
        refused("`RV-COR-001` in: BLOCKER"),
        Some(BulletError::InWithoutGlob)
    );
    assert_eq!(
        parse_nit("`unterminated").err(),
        Some(BulletError::Unterminated { quote: '`' })
    );
    assert!(matches!(
        parse_guidance("`src/[`: text").err(),
        Some(BulletError::Glob { pattern, .. }) if pattern == "src/["
    ));
}
