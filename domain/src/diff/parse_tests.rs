use super::*;
use crate::diff::LineKind;
use proptest::prelude::*;

fn ok(input: &str) -> Diff {
    parse(input.as_bytes()).unwrap_or_else(|e| panic!("{e}"))
}

fn err(input: &[u8]) -> DiffError {
    match parse(input) {
        Ok(d) => panic!("expected an error, got {d:?}"),
        Err(e) => e,
    }
}

fn summary(d: &Diff) -> Vec<(char, String, u32, u32)> {
    d.files
        .iter()
        .map(|f| {
            (
                f.status.letter(),
                f.path().to_owned(),
                f.added(),
                f.removed(),
            )
        })
        .collect()
}

const TWO_FILES: &str = "\
diff --git a/one b/one
index 1111111..2222222 100644
--- a/one
+++ b/one
@@ -1,2 +1,2 @@ ctx
 keep
-old
+new
@@ -10 +10,2 @@
 x
+y
diff --git a/two b/two
deleted file mode 100644
index 3333333..0000000
--- a/two
+++ /dev/null
@@ -1 +0,0 @@
-gone
";

#[test]
fn plain_git_diff() {
    let d = ok(TWO_FILES);
    assert_eq!(
        summary(&d),
        vec![('M', "one".into(), 2, 1), ('D', "two".into(), 0, 1)]
    );
    let one = d.files.first().unwrap_or_else(|| panic!("no file"));
    assert_eq!(one.hunks.len(), 2);
    assert_eq!(one.hunks.first().map(|h| h.section.as_str()), Some("ctx"));
    assert!(one.is_added_line(11));
    assert!(one.has_head_line(10));
}

#[test]
fn format_patch_mails_with_preamble_and_signatures() {
    let mail = |n: u32| {
        format!(
            "From 0123 Mon Sep 17 00:00:00 2001\nFrom: A <a@b>\nSubject: [PATCH {n}/2] x\n\n\
             body line\n--- not a header\n---\n f{n} | 2 +-\n 1 file changed\n\n\
             diff --git a/f{n} b/f{n}\nindex 1..2 100644\n--- a/f{n}\n+++ b/f{n}\n\
             @@ -1 +1 @@\n--- old\n+++ new\n-- \n2.47.3\n\n"
        )
    };
    let d = ok(&(mail(1) + &mail(2)));
    assert_eq!(
        summary(&d),
        vec![('M', "f1".into(), 1, 1), ('M', "f2".into(), 1, 1)]
    );
    let texts: Vec<_> = d
        .files
        .iter()
        .flat_map(|f| &f.hunks)
        .flat_map(|h| &h.lines)
        .map(|l| l.text.as_str())
        .collect();
    assert_eq!(texts, vec!["-- old", "++ new", "-- old", "++ new"]);
}

#[test]
fn traditional_unified_diffs() {
    let d = ok(
        "--- a/x\t2024-01-01\n+++ b/x\t2024-01-02\n@@ -1 +1 @@\n-a\n+b\n\
                --- /dev/null\n+++ b/new\n@@ -0,0 +1 @@\n+n\n\
                --- old.txt\n+++ new.txt\n@@ -1 +1 @@\n-a\n+b\n",
    );
    assert_eq!(
        summary(&d),
        vec![
            ('M', "x".into(), 1, 1),
            ('A', "new".into(), 1, 0),
            ('M', "new.txt".into(), 1, 1)
        ]
    );
    assert_eq!(
        d.files.get(2).and_then(|f| f.old_path.as_deref()),
        Some("old.txt")
    );
}

#[test]
fn binary_shapes() {
    let d = ok(
        "diff --git a/b b/b\nindex 1..2 100644\nBinary files a/b and b/b differ\n\
                diff --git a/c b/c\nnew file mode 100644\nindex 0..3\nGIT binary patch\n\
                literal 12\nPcmZ?wa&WKO4Gqa}1Xckn\n\nliteral 0\nHcmV?d00001\n\n\
                diff --git a/d b/d\nindex 1..2 100644\n--- a/d\n+++ b/d\n@@ -1 +1 @@\n-a\n+b\n",
    );
    let got: Vec<_> = d
        .files
        .iter()
        .map(|f| (f.path(), f.binary, f.binary_size, f.hunks.len()))
        .collect();
    assert_eq!(
        got,
        vec![
            ("b", true, None, 0),
            ("c", true, Some(12), 0),
            ("d", false, None, 1)
        ]
    );
}

#[test]
fn type_change_pair_is_folded() {
    let d = ok(
        "diff --git a/l b/l\ndeleted file mode 100644\nindex 1..0\n--- a/l\n+++ /dev/null\n\
                @@ -1 +0,0 @@\n-text\n\
                diff --git a/l b/l\nnew file mode 120000\nindex 0..2\n--- /dev/null\n+++ b/l\n\
                @@ -0,0 +1 @@\n+target\n\\ No newline at end of file\n",
    );
    assert_eq!(summary(&d), vec![('T', "l".into(), 1, 1)]);
    let f = d.files.first().unwrap_or_else(|| panic!("no file"));
    assert_eq!(
        (f.old_mode.as_deref(), f.new_mode.as_deref()),
        (Some("100644"), Some("120000"))
    );
    assert_eq!(f.old_path.as_deref(), Some("l"));
    // Halves separated by other text (two mails) stay apart.
    let d = ok(
        "diff --git a/l b/l\ndeleted file mode 100644\n-- \n2.47.3\n\n\
                diff --git a/l b/l\nnew file mode 120000\n",
    );
    assert_eq!(d.files.len(), 2);
    // Same type: a real deletion and re-creation stays two entries.
    let d = ok("diff --git a/l b/l\ndeleted file mode 100644\n\
                diff --git a/l b/l\nnew file mode 100755\n");
    assert_eq!(d.files.len(), 2);
}

#[test]
fn header_only_files_and_crlf_headers() {
    let d = ok(
        "diff --git a/m b/m\r\nold mode 100644\r\nnew mode 100755\r\n\
                diff --git a/e b/e\nnew file mode 100644\nindex 0000000..e69de29\n",
    );
    assert_eq!(
        summary(&d),
        vec![('M', "m".into(), 0, 0), ('A', "e".into(), 0, 0)]
    );
}

#[test]
fn error_kinds_and_positions() {
    assert_eq!(err(b"").kind, DiffErrorKind::Empty);
    assert_eq!(err(b" \n\t\r\n").kind, DiffErrorKind::Empty);
    let e = err(b"hello\nworld\n");
    assert_eq!((e.kind, e.line, e.offset), (DiffErrorKind::NotADiff, 1, 0));
    assert_eq!(err(b"\x00\xff\xfe\n\x01").kind, DiffErrorKind::NotADiff);
    let e = err(b"intro\ndiff --cc f\nindex 1,2..3\n");
    assert_eq!((e.line, e.offset), (2, 6));
    assert_eq!(
        e.to_string(),
        "line 2 (byte 6): combined diff (`diff --cc`) is not supported"
    );
    assert_eq!(
        err(b"diff --combined f\n").kind,
        DiffErrorKind::CombinedDiff("diff --combined")
    );
    let e = err(b"text\n@@ -1 +1 @@\n-a\n+b\n");
    assert_eq!((e.kind, e.line), (DiffErrorKind::HunkWithoutHeader, 2));
    let e = err(b"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+b\n");
    assert_eq!(
        e.to_string(),
        "line 7 (byte 57): hunk body ends after 1 of 2 old-side and 1 of 2 new-side lines"
    );
    let e = err(b"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n+c\n");
    assert_eq!(
        (e.kind, e.line),
        (
            DiffErrorKind::HunkOverflow {
                side: HunkSide::New,
                expected: 1
            },
            7
        )
    );
    let e = err(b"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @ x\n-a\n+b\n");
    assert_eq!((e.kind, e.line), (DiffErrorKind::MalformedHunkHeader, 4));
}

#[test]
fn garbage_after_a_complete_hunk_is_skipped() {
    let d =
        ok("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n\ncommit 2\n\n    msg\n");
    assert_eq!(summary(&d), vec![('M', "x".into(), 1, 1)]);
}

#[test]
fn very_long_line_and_nul_bytes() {
    let long = "x".repeat(1 << 20);
    let input = format!("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-{long}\n+\0{long}\n");
    let d = ok(&input);
    let lens: Vec<_> = d
        .files
        .iter()
        .flat_map(|f| &f.hunks)
        .flat_map(|h| &h.lines)
        .map(|l| l.text.len())
        .collect();
    assert_eq!(lens, vec![1 << 20, (1 << 20) + 1]);
}

proptest! {
    // No failure files: a failing case is printed, and shrinks quickly.
    #![proptest_config(ProptestConfig {
        cases: 1024,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn never_panics_on_arbitrary_bytes(input in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = parse(&input);
    }

    #[test]
    fn never_panics_on_diffish_lines(
        parts in proptest::collection::vec(
            prop_oneof![
                Just("diff --git a/x b/x\n"), Just("--- a/x\n"), Just("+++ b/x\n"),
                Just("@@ -1,2 +1 @@\n"), Just("@@ -0,0 +1 @@ f\n"), Just(" c\n"), Just("-r\n"),
                Just("+a\n"), Just("\\ No newline at end of file\n"), Just("\n"),
                Just("GIT binary patch\n"), Just("literal 3\n"), Just("HcmV?d00001\n"),
                Just("new file mode 100644\n"), Just("rename from \"q\\\n"), Just("-- \n"),
                Just("Binary files a/x and b/x differ\n"), Just("similarity index 50%\n"),
            ],
            0..40,
        )
    ) {
        let input: String = parts.concat();
        let _ = parse(input.as_bytes());
    }
}

#[test]
fn lines_read_the_same_whether_the_diff_is_text_or_not() {
    // One invalid byte makes the whole diff bytes: its lines are decoded
    // on their own, every other line is as the text diff reads it.
    let text = TWO_FILES.replace("+new", "+n\u{e9}w");
    let bytes = TWO_FILES.replace("+new", "+nXw").into_bytes();
    let bytes: Vec<u8> = bytes
        .iter()
        .map(|&b| if b == b'X' { 0xff } else { b })
        .collect();
    let shared = ok(&text);
    let decoded = parse(&bytes).unwrap_or_else(|e| panic!("{e}"));
    let lines = |d: &Diff| -> Vec<(LineKind, Option<u32>, Option<u32>, String)> {
        d.files
            .iter()
            .flat_map(|f| &f.hunks)
            .flat_map(|h| &h.lines)
            .map(|l| (l.kind(), l.old_line(), l.new_line(), l.text.to_string()))
            .collect()
    };
    let (a, b) = (lines(&shared), lines(&decoded));
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        match x.3.as_str() {
            "n\u{e9}w" => assert_eq!(y.3, "n\u{fffd}w"),
            _ => assert_eq!(x, y),
        }
    }
    assert!(a.iter().any(|l| l.3 == "y"), "{a:?}");
    // A text diff's lines are views of the text it was parsed from.
    let diff = Arc::new(text);
    let parsed = parse_text(&diff).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(parsed, shared);
}
