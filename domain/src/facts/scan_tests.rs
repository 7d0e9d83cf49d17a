use super::*;
use crate::diff::{parse, walk_in_segments};
use crate::facts::{RiskTier, Signal};
use proptest::prelude::*;

fn both(input: &[u8]) -> (Result<Facts, DiffError>, Result<Facts, DiffError>) {
    (
        Facts::scan(input),
        parse(input).map(|d| Facts::from_diff(&d)),
    )
}

const MIGRATION_AND_TYPE_CHANGE: &str = "\
diff --git a/db/migrations/0002_drop.sql b/db/migrations/0002_drop.sql
new file mode 100644
index 0000000..1111111
--- /dev/null
+++ b/db/migrations/0002_drop.sql
@@ -0,0 +1,2 @@
+-- cleanup
+Drop Table users;
diff --git a/link b/link
deleted file mode 100644
index 1111111..0000000
--- a/link
+++ /dev/null
@@ -1 +0,0 @@
-text
diff --git a/link b/link
new file mode 120000
index 0000000..2222222
--- /dev/null
+++ b/link
@@ -0,0 +1 @@
+target
\\ No newline at end of file
diff --git a/img.png b/img.png
index 3333333..4444444 100644
Binary files a/img.png and b/img.png differ
diff --git a/old.rs b/new.rs
similarity index 90%
rename from old.rs
rename to new.rs
index 5555555..6666666 100644
--- a/old.rs
+++ b/new.rs
@@ -3,3 +3,4 @@ fn f() {
 a
-b
+c
+d
 e
";

#[test]
fn scan_agrees_with_the_full_parse() {
    let (scanned, parsed) = both(MIGRATION_AND_TYPE_CHANGE.as_bytes());
    let scanned = scanned.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(Ok(&scanned), parsed.as_ref());
    let summary: Vec<_> = scanned
        .files
        .iter()
        .map(|f| {
            (
                f.path.as_str(),
                f.status.letter(),
                f.binary,
                f.added,
                f.removed,
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            ("db/migrations/0002_drop.sql", 'A', false, 2, 0),
            ("link", 'T', false, 1, 1),
            ("img.png", 'M', true, 0, 0),
            ("new.rs", 'R', false, 2, 1),
        ]
    );
    let renamed = scanned.files.last().unwrap_or_else(|| panic!("no file"));
    assert_eq!(renamed.old_path.as_deref(), Some("old.rs"));
    let added: Vec<_> = renamed
        .hunks
        .iter()
        .map(|h| h.added_lines.clone())
        .collect();
    assert_eq!(added, vec![vec![4, 5]]);
    assert!(scanned.signals.contains(&Signal::DestructiveMigration));
    assert_eq!(scanned.risk_tier, RiskTier::HighRisk);
}

#[test]
fn deleted_migration_drops_nothing() {
    let input = "diff --git a/migrations/1.sql b/migrations/1.sql\n\
                 deleted file mode 100644\n--- a/migrations/1.sql\n+++ /dev/null\n\
                 @@ -1 +0,0 @@\n-DROP TABLE x;\n";
    let (scanned, parsed) = both(input.as_bytes());
    assert_eq!(scanned, parsed);
    let signals = scanned.map(|f| f.signals).unwrap_or_default();
    assert!(!signals.contains(&Signal::DestructiveMigration));
}

#[test]
fn scan_fails_exactly_like_parse() {
    for bad in [
        &b""[..],
        b"hello\n",
        b"diff --cc f\n",
        b"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+b\n",
        b"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n+c\n",
        b"text\n@@ -1 +1 @@\n-a\n",
    ] {
        let (scanned, parsed) = both(bad);
        assert!(scanned.is_err(), "{bad:?}");
        assert_eq!(scanned, parsed, "{bad:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 512,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn scan_equals_parse_on_diffish_input(
        parts in proptest::collection::vec(
            prop_oneof![
                Just("diff --git a/m/migrations/x b/m/migrations/x\n"), Just("--- a/x\n"),
                Just("+++ b/x\n"), Just("@@ -1,2 +1 @@\n"), Just("@@ -0,0 +1 @@ f\n"),
                Just(" c\n"), Just("-r\n"), Just("+drop table t\n"), Just("+a\n"),
                Just("\\ No newline at end of file\n"), Just("\n"), Just("GIT binary patch\n"),
                Just("literal 3\n"), Just("HcmV?d00001\n"), Just("new file mode 120000\n"),
                Just("deleted file mode 100644\n"), Just("+++ /dev/null\n"),
                Just("--- /dev/null\n"), Just("rename from y\n"), Just("rename to z\n"),
                Just("Binary files a/x and b/x differ\n"), Just("-- \n"),
            ],
            0..40,
        ),
        min in 1usize..100,
    ) {
        let input: String = parts.concat();
        let (scanned, parsed) = both(input.as_bytes());
        prop_assert_eq!(&scanned, &parsed);
        let mut sink = FactsSink::default();
        let cut = walk_in_segments(input.as_bytes(), min, &mut sink).map(|()| sink.finish());
        prop_assert_eq!(cut, parsed);
    }
}
