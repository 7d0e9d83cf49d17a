#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::apply::{Decision, Guarded, Outcome, Source, decide};
use super::strategies::arb_review_md;
use super::*;
use proptest::prelude::*;
use revu_domain::finding::{BlastRadius, Dimension, Finding, Severity};

fn finding(rule: &str, severity: Severity, file: &str) -> Finding {
    Finding {
        rule: rule.into(),
        severity,
        file: file.into(),
        line: 3,
        end_line: None,
        dimension: Dimension::Correctness,
        dimensions: vec![],
        summary: format!("{rule} summary"),
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

fn md(text: &str) -> ReviewMd {
    let md = ReviewMd::parse(text);
    assert!(md.warnings.is_empty(), "{:?}", md.warnings);
    md
}

#[test]
fn load_states_both_sources_by_content_hash() {
    let repo = RepoContext::load(Some("abc"), None).unwrap();
    let report = repo.report();
    let review_md = report.review_md.unwrap();
    assert_eq!((review_md.name.as_str(), review_md.bytes), ("REVIEW.md", 3));
    assert_eq!(
        review_md.sha256,
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert_eq!(report.repo_config, None);
    assert!(RepoContext::load(None, Some("rigr = 1")).is_err());
}

#[test]
fn guidance_goes_to_lanes_with_a_matching_file() {
    let repo = RepoContext::load(
        Some("## Path Guidance\n- `pay/**`: cents only\n- `**/*.sql`: needs a rollback\n"),
        None,
    )
    .unwrap();
    let files = |f: &[&str]| f.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        repo.guidance_for(&files(&["pay/a.rs", "db/1.sql"])),
        ["pay/**: cents only", "**/*.sql: needs a rollback"]
    );
    assert!(repo.guidance_for(&files(&["src/lib.rs"])).is_empty());
}

#[test]
fn a_floor_raises_an_important_to_blocker_for_its_rule_and_path_only() {
    let m = md("## Severity Overrides\n- `RV-COR-001` in `pay/**`: BLOCKER\n");
    let Outcome::Overridden(f, e) = m.apply(finding("RV-COR-001", Severity::Important, "pay/a.rs"))
    else {
        panic!("expected an override");
    };
    assert_eq!(f.severity, Severity::Blocker);
    assert_eq!(
        (e.convention.as_str(), e.to),
        ("REVIEW.md:2", Some(Severity::Blocker))
    );
    let other_path = finding("RV-COR-001", Severity::Important, "src/a.rs");
    assert!(matches!(m.apply(other_path), Outcome::Kept(_)));
    let other_rule = finding("RV-COR-002", Severity::Important, "pay/a.rs");
    assert!(matches!(m.apply(other_rule), Outcome::Kept(_)));
}

#[test]
fn a_cap_lowers_and_a_floor_beats_a_cap() {
    let m =
        md("## Severity Overrides\n- `docs/**`: at most SUGGESTION\n- `RV-SEC-001`: IMPORTANT\n");
    let Outcome::Overridden(f, _) =
        m.apply(finding("RV-COR-001", Severity::Important, "docs/a.md"))
    else {
        panic!("expected the cap to apply");
    };
    assert_eq!(f.severity, Severity::Suggestion);
    let kept = m.apply(finding("RV-SEC-001", Severity::Important, "docs/a.md"));
    assert!(matches!(kept, Outcome::Kept(ref f) if f.severity == Severity::Important));
}

#[test]
fn an_allowed_nit_suppresses_suggestions_only() {
    let m = md("## Allowed Nits\n- `RV-DES-002`: we print on purpose\n");
    let Outcome::Suppressed(e) = m.apply(finding("RV-DES-002", Severity::Suggestion, "a.rs"))
    else {
        panic!("expected suppression");
    };
    assert_eq!((e.convention.as_str(), e.to), ("REVIEW.md:2", None));
    let important = finding("RV-DES-002", Severity::Important, "a.rs");
    assert!(matches!(m.apply(important), Outcome::Kept(_)));
}

#[test]
fn a_blocker_is_never_capped_or_suppressed_and_the_refusal_is_reported() {
    let m =
        md("## Severity Overrides\n- `**`: at most SUGGESTION\n## Allowed Nits\n- `RV-SEC-001`\n");
    let blocker = finding("RV-SEC-001", Severity::Blocker, "src/a.rs");
    let Outcome::Protected(f, e) = m.apply(blocker.clone()) else {
        panic!("expected protection");
    };
    assert_eq!(f, blocker);
    assert_eq!((e.from, e.to), (Severity::Blocker, Some(Severity::Blocker)));
}

#[test]
fn decide_allows_everything_but_lowering_a_blocker() {
    let at = || Source("REVIEW.md:1".into());
    let set = |severity| Decision::Set { severity, at: at() };
    for proposed in [
        set(Severity::Suggestion),
        set(Severity::Important),
        Decision::Suppress { at: at() },
    ] {
        assert_eq!(
            decide(Severity::Blocker, proposed.clone()),
            Guarded::Refused(at())
        );
        assert_eq!(
            decide(Severity::Important, proposed.clone()),
            Guarded::Allowed(proposed)
        );
    }
    assert_eq!(
        decide(Severity::Blocker, set(Severity::Blocker)),
        Guarded::Allowed(Decision::Keep)
    );
}

const RULES: [&str; 3] = ["RV-COR-001", "RV-SEC-001", "MISS-012"];
const GLOBS: [&str; 4] = ["**", "src/**", "docs/*.md", "*.rs"];
const PATHS: [&str; 4] = ["src/a.rs", "docs/b.md", "c.rs", "pay/d.py"];

fn arb_finding() -> impl Strategy<Value = Finding> {
    (
        prop::sample::select(RULES.to_vec()),
        prop::sample::select(vec![
            Severity::Suggestion,
            Severity::Important,
            Severity::Blocker,
        ]),
        prop::sample::select(PATHS.to_vec()),
    )
        .prop_map(|(r, s, p)| finding(r, s, p))
}

proptest! {
    /// The contract's invariant: whatever `REVIEW.md` says, well-formed or
    /// not, a BLOCKER leaves as the same BLOCKER.
    #[test]
    fn no_convention_drops_or_lowers_a_blocker(
        text in arb_review_md(&RULES, &GLOBS),
        findings in prop::collection::vec(arb_finding(), 0..12),
    ) {
        let md = ReviewMd::parse(&text);
        for f in findings {
            let was_blocker = f.severity == Severity::Blocker;
            match md.apply(f.clone()) {
                Outcome::Kept(out) | Outcome::Protected(out, _) => prop_assert_eq!(out, f),
                Outcome::Overridden(out, e) => {
                    prop_assert!(!was_blocker, "a BLOCKER was changed by {}", e.convention);
                    prop_assert_ne!(out.severity, f.severity);
                }
                Outcome::Suppressed(e) => {
                    prop_assert!(!was_blocker, "a BLOCKER was suppressed by {}", e.convention);
                }
            }
        }
    }
}

#[test]
fn a_nested_review_md_applies_below_its_directory_only() {
    let nested = std::collections::BTreeMap::from([(
        "pkg".to_owned(),
        "## Severity Overrides\n- `RV-SEC-008` in `experimental/**`: at most SUGGESTION\n\
         ## Path Guidance\n- `experimental/**`: may break\n"
            .to_owned(),
    )]);
    let repo = RepoContext::load(None, None).unwrap().with_nested(&nested);
    assert!(
        repo.conventions.warnings.is_empty(),
        "{:?}",
        repo.conventions.warnings
    );
    let severity =
        |file: &str| match repo
            .conventions
            .apply(finding("RV-SEC-008", Severity::Important, file))
        {
            Outcome::Kept(f) | Outcome::Overridden(f, _) | Outcome::Protected(f, _) => f.severity,
            Outcome::Suppressed(_) => panic!("{file}: suppressed"),
        };
    assert_eq!(severity("pkg/experimental/x.py"), Severity::Suggestion);
    assert_eq!(severity("other/x.py"), Severity::Important);
    assert_eq!(severity("experimental/x.py"), Severity::Important);
    assert_eq!(severity("pkgs/experimental/x.py"), Severity::Important);
    // Its guidance reads from the root, and names where it is written.
    let files = vec!["pkg/experimental/a.py".to_owned()];
    assert_eq!(
        repo.guidance_for(&files),
        ["pkg/experimental/**: may break"]
    );
    assert_eq!(repo.conventions.guidance[0].convention(), "pkg/REVIEW.md:4");
    let report = repo.report();
    assert_eq!(report.nested_review_md[0].name, "pkg/REVIEW.md");
}

#[test]
fn the_nearer_review_md_wins_and_none_silences_a_blocker() {
    let root = "## Severity Overrides\n- in `**/*.py`: at most SUGGESTION\n";
    let nested = std::collections::BTreeMap::from([
        (
            "pkg".to_owned(),
            "## Severity Overrides\n- in `**/*.py`: at most IMPORTANT\n".to_owned(),
        ),
        (
            "pkg/core".to_owned(),
            "## Severity Overrides\n- `RV-SEC-001`: at most SUGGESTION\n".to_owned(),
        ),
    ]);
    let repo = RepoContext::load(Some(root), None)
        .unwrap()
        .with_nested(&nested);
    let outcome =
        |rule: &str, severity, file: &str| repo.conventions.apply(finding(rule, severity, file));
    // The root caps every Python finding; pkg's own cap is nearer, and higher.
    match outcome("RV-COR-004", Severity::Important, "pkg/a.py") {
        Outcome::Kept(f) => assert_eq!(f.severity, Severity::Important),
        other => panic!("{other:?}"),
    }
    match outcome("RV-COR-004", Severity::Important, "lib/a.py") {
        Outcome::Overridden(f, e) => {
            assert_eq!(f.severity, Severity::Suggestion);
            assert_eq!(e.convention, "REVIEW.md:2");
        }
        other => panic!("{other:?}"),
    }
    // No file, however near, lowers a BLOCKER; the refusal names it.
    match outcome("RV-SEC-001", Severity::Blocker, "pkg/core/keys.py") {
        Outcome::Protected(f, e) => {
            assert_eq!(f.severity, Severity::Blocker);
            assert_eq!(e.convention, "pkg/core/REVIEW.md:2");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn codeowners_name_the_owners_of_blockers_and_always_human_files() {
    let owners = revu_domain::bundle::OwnersFile {
        path: ".github/CODEOWNERS".into(),
        text: "* @acme/all\n/auth/ @acme/security\npkg/ @pkg-team\n".into(),
    };
    let repo = RepoContext::load(None, None)
        .unwrap()
        .with_codeowners(Some(&owners));
    let diff = revu_domain::diff::parse(
        b"diff --git a/auth/login.py b/auth/login.py\n--- a/auth/login.py\n+++ b/auth/login.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n",
    )
    .unwrap();
    let mut findings = vec![
        finding("RV-SEC-001", Severity::Blocker, "pkg/keys.py"),
        finding("RV-COR-004", Severity::Important, "pkg/keys.py"),
    ];
    let named = repo.owners(&diff, &mut findings);
    assert_eq!(findings[0].owners, ["@pkg-team"]);
    assert!(findings[1].owners.is_empty(), "only a BLOCKER names owners");
    let summary: Vec<(&str, &[String], &[String])> = named
        .iter()
        .map(|o| (o.file.as_str(), o.owners.as_slice(), o.because.as_slice()))
        .collect();
    assert_eq!(
        summary,
        [
            (
                "auth/login.py",
                &["@acme/security".to_owned()][..],
                &["auth_surface".to_owned()][..]
            ),
            (
                "pkg/keys.py",
                &["@pkg-team".to_owned()][..],
                &["blocker".to_owned()][..]
            ),
        ]
    );
    assert_eq!(
        repo.report().codeowners.map(|f| f.name),
        Some(".github/CODEOWNERS".to_owned())
    );
}
