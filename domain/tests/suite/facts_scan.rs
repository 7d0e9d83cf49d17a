//! The facts document: golden snapshots on fixtures, and the lean scanner
//! (`Facts::scan`, `Facts::read`) against the full parse on real and
//! mutated diffs and on shapes built to make a reader loop or blow up.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use proptest::prelude::*;
use revu_domain::diff::{DiffError, ReadError, parse};
use revu_domain::facts::Facts;
use support::{all_patches, apply, mutation, sibling};

fn full(input: &[u8]) -> Result<Facts, DiffError> {
    parse(input).map(|d| Facts::from_diff(&d))
}

fn streamed(input: &[u8]) -> Result<Facts, DiffError> {
    match Facts::read(std::io::Cursor::new(input.to_vec())) {
        Ok(f) => Ok(f),
        Err(ReadError::Diff(e)) => Err(e),
        Err(ReadError::Io(e)) => panic!("in-memory read failed: {e}"),
    }
}

#[test]
fn facts_golden_snapshots() {
    for name in [
        "rename",
        "copy-harder",
        "modes",
        "binary-patch",
        "hunks-u0",
        "content",
        "names-edited-quoted",
        "submodule-change",
        "format-patch",
    ] {
        let patch = sibling(name, "patch").unwrap_or_else(|| panic!("no fixture {name}"));
        let facts = Facts::scan(&patch).unwrap_or_else(|e| panic!("{name}: {e}"));
        insta::assert_json_snapshot!(format!("facts-{name}"), facts);
    }
}

#[test]
fn scan_and_read_equal_the_full_parse_on_every_fixture() {
    for (name, patch) in all_patches() {
        let want = full(patch);
        assert_eq!(Facts::scan(patch), want, "{name}");
        assert_eq!(streamed(patch), want, "{name}");
    }
    let all: Vec<u8> = all_patches().iter().flat_map(|(_, p)| p.clone()).collect();
    assert_eq!(streamed(&all), full(&all));
}

/// Inputs shaped to make a reader spin, recurse or reserve memory: each
/// must finish (one pass, bounded work per line) with facts or an error.
#[test]
fn pathological_shapes_finish() {
    let header = b"diff --git a/x b/x\n--- a/x\n+++ b/x\n";
    let mut cases: Vec<Vec<u8>> = Vec::new();
    let huge_counts = [&header[..], b"@@ -1,4294967294 +1,4294967294 @@\n"].concat();
    cases.push([huge_counts, b" x\n".repeat(100_000)].concat());
    cases.push(b"diff --git a/x b/x\n".repeat(50_000));
    cases.push(
        [
            &header[..],
            b"@@ -1 +1 @@\n-a\n+b\n",
            &b"\\ x\n".repeat(10_000),
        ]
        .concat(),
    );
    cases.push(b"@@ -1 +1 @@\n".repeat(10_000));
    cases.push(b"--- a\n+++ b\n".repeat(50_000));
    cases.push(
        [
            &header[..],
            b"@@ -1 +1 @@\n-",
            &vec![b'x'; 4 << 20],
            b"\n+\n",
        ]
        .concat(),
    );
    cases.push(vec![b'\n'; 1 << 20]);
    cases.push(b"GIT binary patch\nliteral 1\n".repeat(20_000));
    for input in &cases {
        let want = full(input);
        assert_eq!(Facts::scan(input), want);
        assert_eq!(streamed(input), want);
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// `Facts::scan(x) == Facts::from_diff(&parse(x)?)`, errors included,
    /// on mutated real diffs.
    #[test]
    fn scan_equals_full_parse_on_mutated_fixtures(
        pick in any::<usize>(),
        muts in proptest::collection::vec(mutation(), 1..8),
    ) {
        let all = all_patches();
        let (_, patch) = &all[pick % all.len()];
        let mutated = apply(patch.clone(), &muts);
        let want = full(&mutated);
        prop_assert_eq!(Facts::scan(&mutated), want.clone());
        prop_assert_eq!(streamed(&mutated), want);
    }
}

/// One file per signal, plus a migration whose drop only a deleted file
/// carries (no signal), so the tier and signal rules show in one place.
#[test]
fn facts_golden_signals_and_tier() {
    let file = |path: &str, body: &str| {
        format!(
            "diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n--- a/{path}\n\
             +++ b/{path}\n@@ -1 +1,2 @@\n keep\n+{body}\n"
        )
    };
    let diff = [
        file("src/auth/session.rs", "let token = issue();"),
        file(
            "db/migrations/0042_drop.sql",
            "ALTER TABLE t DROP COLUMN c;",
        ),
        file("proto/revu/v1/review.proto", "string id = 1;"),
        file(".github/workflows/ci.yml", "run: cargo test"),
        file("Cargo.toml", "serde = \"1\""),
        file("vendor/lib/x.js", "x();"),
        "diff --git a/migrations/old.sql b/migrations/old.sql\ndeleted file mode 100644\n\
         --- a/migrations/old.sql\n+++ /dev/null\n@@ -1 +0,0 @@\n-DROP TABLE t;\n"
            .to_owned(),
    ]
    .concat();
    let facts = Facts::scan(diff.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(Ok(&facts), full(diff.as_bytes()).as_ref());
    insta::assert_json_snapshot!("facts-signals", facts);
}
