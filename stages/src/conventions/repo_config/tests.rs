#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;

const GOOD: &str = r#"
rigor = "prototype"

[grouping]
max_slice_files = 2

[[grouping.domain]]
name = "payments"
globs = ["services/payments/**"]

[[grouping.domain]]
name = "auth"
globs = ["services/identity/**"]

[[ledger]]
id = "MISS-012"
pattern = '\.unwrap_or\(0\)'
paths = ["services/payments/**"]
severity = "IMPORTANT"
dimension = "correctness"
summary = "balance read defaults to zero"
"#;

fn err(text: &str) -> RepoConfigError {
    RepoConfig::parse(text).expect_err("should be rejected")
}

fn service() -> Grouper {
    Grouper::new(&default_domains(), 40).unwrap()
}

#[test]
fn parses_rigor_grouping_and_ledger() {
    let c = RepoConfig::parse(GOOD).unwrap();
    assert_eq!(c.rigor, Some(Rigor::Prototype));
    assert_eq!(c.ledger.ids(), ["MISS-012"]);
    let e = &c.ledger.entries[0];
    assert_eq!((e.severity, e.confidence), (Severity::Important, 90));
    let service = service();
    let g = c.grouper(&service);
    assert_eq!(g.max_files(), 2);
    assert_eq!(g.domain_of("services/payments/api.rs"), "payments");
    // A repo domain named like a default extends it; the defaults stay.
    assert_eq!(g.domain_of("services/identity/token.rs"), "auth");
    assert_eq!(g.domain_of("src/auth/login.rs"), "auth");
    assert_eq!(g.domain_of("docs/guide.md"), "docs");
}

#[test]
fn repo_domains_come_first_and_a_shared_name_is_one_slice() {
    let c = RepoConfig::parse(GOOD).unwrap();
    let service = service();
    let files: Vec<String> = [
        "src/auth/a.rs",
        "services/identity/b.rs",
        "services/payments/c.rs",
    ]
    .map(String::from)
    .into();
    let slices = c.grouper(&service).propose(&files);
    let names: Vec<(&str, usize)> = slices
        .iter()
        .map(|s| (s.name.as_str(), s.files.len()))
        .collect();
    assert_eq!(names, [("payments", 1), ("auth", 2)]);
}

#[test]
fn replace_defaults_keeps_only_the_repo_domains() {
    let c = RepoConfig::parse(
        "[grouping]\nreplace_defaults = true\n[[grouping.domain]]\nname = \"web\"\nglobs = [\"web/**\"]\n",
    )
    .unwrap();
    let service = service();
    let g = c.grouper(&service);
    assert_eq!(g.domain_of("web/app.ts"), "web");
    assert_eq!(g.domain_of("docs/guide.md"), "core");
    assert_eq!(g.max_files(), 40, "the service's slice size when unset");
}

#[test]
fn an_empty_file_changes_nothing() {
    let c = RepoConfig::parse("").unwrap();
    let service = service();
    assert!(matches!(c.grouper(&service), Cow::Borrowed(_)));
    assert_eq!(c.rigor, None);
    assert!(c.ledger.entries.is_empty());
}

#[test]
fn unknown_keys_are_errors_naming_key_and_line() {
    let e = err("rigor = \"poc\"\nrigr = \"poc\"\n");
    assert_eq!(e.line, 2);
    assert!(e.to_string().contains("unknown field `rigr`"), "{e}");
    let e = err("[grouping]\nmax_files = 3\n");
    assert!(e.to_string().contains("`max_files`"), "{e}");
    assert_eq!(e.line, 2);
    let e = err(&format!("{GOOD}why_not = 1\n"));
    assert!(e.to_string().contains("`why_not`"), "{e}");
}

#[test]
fn bad_values_are_errors_naming_their_line() {
    let cases: &[(&str, usize, &str)] = &[
        ("rigor = \"strict\"\n", 1, "unknown variant `strict`"),
        ("[grouping]\nmax_slice_files = 0\n", 2, "at least 1"),
        (
            "[[grouping.domain]]\nname = \"a b\"\nglobs = [\"x/**\"]\n",
            2,
            "letters, digits",
        ),
        (
            "[[grouping.domain]]\nname = \"core\"\nglobs = [\"x/**\"]\n",
            2,
            "fallback domain",
        ),
        (
            "[[grouping.domain]]\nname = \"a\"\nglobs = []\n",
            3,
            "no globs",
        ),
        (
            "[[grouping.domain]]\nname = \"a\"\nglobs = [\"x/[\"]\n",
            3,
            "grouping.domain \"a\"",
        ),
        (
            "[[grouping.domain]]\nname = \"a\"\nglobs = [\"x\"]\n[[grouping.domain]]\nname = \"a\"\nglobs = [\"y\"]\n",
            5,
            "appears twice",
        ),
    ];
    for (text, line, needle) in cases {
        let e = err(text);
        assert_eq!(e.line, *line, "{text}: {e}");
        assert!(e.to_string().contains(needle), "{text}: {e}");
    }
}

fn ledger(fields: &str) -> String {
    format!(
        "[[ledger]]\nid = \"MISS-001\"\npattern = 'x'\nseverity = \"IMPORTANT\"\n\
         dimension = \"correctness\"\nsummary = \"s\"\n{fields}"
    )
}

#[test]
fn bad_ledger_entries_are_errors_naming_their_line() {
    let cases: &[(String, usize, &str)] = &[
        (ledger("pattern = 'y'\n"), 7, "duplicate key: `pattern`"),
        (
            ledger("").replace("'x'", "'('"),
            3,
            "ledger MISS-001: pattern: unclosed group",
        ),
        (
            ledger("").replace("MISS-001", "miss-1"),
            2,
            "must look like MISS-012",
        ),
        (ledger("").replace("MISS-001", "RV-COR-001"), 2, "reserved"),
        (ledger("confidence = 101\n"), 7, "confidence is 0-100"),
        (ledger("paths = [\"[\"]\n"), 7, "ledger MISS-001: paths"),
        (
            ledger("").replace("IMPORTANT", "important"),
            4,
            "unknown variant `important`",
        ),
        (
            format!("{}\n{}", ledger(""), ledger("")),
            9,
            "appears twice",
        ),
    ];
    for (text, line, needle) in cases {
        let e = err(text);
        assert!(e.to_string().contains(needle), "{text}: {e}");
        assert_eq!(e.line, *line, "{text}: {e}");
    }
}

#[test]
fn a_rejection_says_what_it_names_in_its_type_on_one_line() {
    assert_eq!(
        err("[grouping]\nmax_slice_files = 0\n").problem,
        Problem::NoSliceFiles
    );
    let e = err("[[grouping.domain]]\nname = \"core\"\nglobs = [\"x/**\"]\n");
    assert_eq!(
        e.problem,
        Problem::DomainName {
            name: "core".into(),
            why: DomainName::Fallback
        }
    );
    let e = err(&ledger("").replace("'x'", "'('"));
    assert!(
        matches!(&e.problem, Problem::Pattern { id, .. } if id == "MISS-001"),
        "{e:?}"
    );
    let e = err(&ledger("paths = [\"[\"]\n"));
    assert!(
        matches!(&e.problem, Problem::Paths { error: PathsError::Glob { glob, .. }, .. } if glob == "["),
        "{e:?}"
    );
    for e in [e, err("rigor = \"poc\"\nrigr = \"poc\"\n")] {
        assert_eq!(e.to_string().lines().count(), 1, "{e}");
    }
}
