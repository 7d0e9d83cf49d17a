use super::*;
use crate::diff::model::Hunk;
use crate::diff::sink::DiffBuilder;
use crate::diff::{FilePatch, FileStatus};

fn header(s: &str) -> Result<HunkHeader<'_>, DiffErrorKind> {
    parse_header(s.as_bytes())
}

/// Reads one hunk body through the full builder; returns the hunk and
/// the number of the first line after it.
fn body(head: &str, text: &[u8]) -> Result<(Hunk, Option<usize>), DiffError> {
    let header = header(head).unwrap_or_else(|e| panic!("{e}"));
    let mut builder = DiffBuilder::default();
    let file = FilePatch {
        old_path: Some("f".into()),
        new_path: Some("f".into()),
        status: FileStatus::Modified,
        old_mode: None,
        new_mode: None,
        similarity: None,
        binary: false,
        binary_size: None,
        hunks: Vec::new(),
    };
    builder.file(file, false);
    builder.hunk(&header);
    let mut lines = Lines::new(text);
    read_body(&mut lines, &header, &mut builder)?;
    let hunk = builder
        .finish()
        .files
        .pop()
        .and_then(|mut f| f.hunks.pop())
        .unwrap_or_else(|| panic!("no hunk"));
    Ok((hunk, lines.next().map(|l| l.number)))
}

fn kind_of(head: &str, text: &[u8]) -> DiffErrorKind {
    match body(head, text) {
        Ok(h) => panic!("expected an error, got {h:?}"),
        Err(e) => e.kind,
    }
}

#[test]
fn header_shapes() {
    let h = header("@@ -1,3 +1,4 @@ fn main() {").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (h.old_start, h.old_lines, h.new_start, h.new_lines),
        (1, 3, 1, 4)
    );
    assert_eq!(h.section, b"fn main() {");
    let h = header("@@ -5 +6 @@").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (h.old_start, h.old_lines, h.new_start, h.new_lines),
        (5, 1, 6, 1)
    );
    assert_eq!(h.section, b"");
    let h = header("@@ -0,0 +1,2 @@\r").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((h.old_start, h.old_lines, h.new_lines), (0, 0, 2));
    assert_eq!(h.section, b"");
    let h = header("@@ -1 +0,0 @@  two spaces").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(h.section, b" two spaces");
    // Where the section starts: in its line, then in the diff.
    for line in [
        "@@ -1,3 +1,4 @@ fn main() {",
        "@@ -5 +6 @@",
        "@@ -2 +2 @@ x\r",
    ] {
        let h = header(line).unwrap_or_else(|e| panic!("{e}"));
        let at = h.section_at;
        assert_eq!(
            line.as_bytes().get(at..at + h.section.len()),
            Some(h.section)
        );
        assert_eq!(h.placed(100).section_at, at + 100);
    }
}

#[test]
fn header_errors() {
    for bad in [
        "@@ -1,3 +1,4",
        "@@ -1,3 +1,4 @",
        "@@ -a +1 @@",
        "@@ -1, +1 @@",
        "@@ -1 1 @@",
        "@@ 1 +1 @@",
        "@@ -0,2 +1 @@",
        "@@ -1 +0,1 @@",
        "@@@ -1 -1 +1 @@@",
    ] {
        assert_eq!(
            header(bad),
            Err(DiffErrorKind::MalformedHunkHeader),
            "{bad}"
        );
    }
    assert_eq!(
        header("@@ -4294967296 +1 @@"),
        Err(DiffErrorKind::CountOverflow)
    );
    assert_eq!(
        header("@@ -1 +4294967295,2 @@"),
        Err(DiffErrorKind::CountOverflow)
    );
    // A parsed line keeps its numbers in 31 bits: the last line a hunk
    // may reach is 2^31 - 1.
    assert!(header("@@ -1 +2147483646,1 @@").is_ok());
    assert_eq!(
        header("@@ -2147483647,1 +1 @@"),
        Err(DiffErrorKind::CountOverflow)
    );
}

#[test]
fn numbers_lines_and_keeps_following_line() {
    let (h, next) =
        body("@@ -10,3 +20,3 @@", b" a\n-b\n+B\n c\nnext\n").unwrap_or_else(|e| panic!("{e}"));
    let got: Vec<_> = h
        .lines
        .iter()
        .map(|l| (l.kind(), l.old_line(), l.new_line(), l.text.as_str()))
        .collect();
    assert_eq!(
        got,
        vec![
            (LineKind::Context, Some(10), Some(20), "a"),
            (LineKind::Removed, Some(11), None, "b"),
            (LineKind::Added, None, Some(21), "B"),
            (LineKind::Context, Some(12), Some(22), "c"),
        ]
    );
    assert_eq!(next, Some(5));
}

#[test]
fn no_newline_markers() {
    let text = b"-a\n\\ No newline at end of file\n+a\n\\ No newline at end of file\nx\n";
    let (h, next) = body("@@ -1 +1 @@", text).unwrap_or_else(|e| panic!("{e}"));
    assert!(h.lines.iter().all(|l| l.no_newline()));
    assert_eq!(next, Some(5));
    assert_eq!(
        kind_of("@@ -1 +1 @@", b"\\ No newline\n-a\n+b\n"),
        DiffErrorKind::StrayNoNewlineMarker
    );
    assert_eq!(
        kind_of("@@ -1 +1 @@", b"-a\n\\ x\n\\ y\n+b\n"),
        DiffErrorKind::StrayNoNewlineMarker
    );
}

#[test]
fn blank_line_is_context_only_while_expected() {
    let (h, next) = body("@@ -1,3 +1,3 @@", b" a\n\n\r\n\n").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(h.lines.len(), 3);
    assert!(h.lines.iter().all(|l| l.kind() == LineKind::Context));
    assert_eq!(h.lines.get(2).map(|l| l.text.as_str()), Some(""));
    assert_eq!(next, Some(4));
    // Only the new side still expects a line: a blank line ends the body.
    assert_eq!(
        kind_of("@@ -1 +1,2 @@", b"-a\n+b\n\n"),
        DiffErrorKind::HunkTruncated {
            old_seen: 1,
            old_expected: 1,
            new_seen: 1,
            new_expected: 2
        }
    );
}

#[test]
fn crlf_and_lone_cr_and_bad_utf8() {
    let (h, _) =
        body("@@ -1,2 +1,2 @@", b" a\r\n-b\rc\n+\xff\0z\r\r\n").unwrap_or_else(|e| panic!("{e}"));
    let texts: Vec<_> = h.lines.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(texts, vec!["a", "b\rc", "\u{fffd}\0z\r"]);
}

#[test]
fn header_lookalikes_are_content_while_expected() {
    let text = b"--- a/x\n+++ b/x\n-diff --git a/x b/x\n+@@ -1 +1 @@\n";
    let (h, next) = body("@@ -1,2 +1,2 @@", text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(h.removed(), 2);
    assert_eq!(h.added(), 2);
    assert_eq!(h.lines.first().map(|l| l.text.as_str()), Some("-- a/x"));
    assert_eq!(next, None);
}

#[test]
fn counts_disagreeing_with_body() {
    let e = body("@@ -1,2 +1,5 @@", b" a\n+b\n+c\n c\n")
        .err()
        .unwrap_or_else(|| panic!("expected error"));
    assert_eq!(
        e.to_string(),
        "line 5 (byte 12): hunk body ends after 4 of 5 new-side lines"
    );
    assert_eq!(
        kind_of("@@ -1 +1 @@", b"-a\n-b\n+c\n"),
        DiffErrorKind::HunkOverflow {
            side: HunkSide::Old,
            expected: 1
        }
    );
    assert_eq!(
        kind_of("@@ -1,2 +1 @@", b"+a\n c\n"),
        DiffErrorKind::HunkOverflow {
            side: HunkSide::New,
            expected: 1
        }
    );
    assert_eq!(
        kind_of("@@ -1,2 +1,2 @@", b" a\nnot a body line\n"),
        DiffErrorKind::HunkTruncated {
            old_seen: 1,
            old_expected: 2,
            new_seen: 1,
            new_expected: 2
        }
    );
}

#[test]
fn zero_length_hunk_is_empty() {
    let (h, next) = body("@@ -0,0 +0,0 @@", b"+x\n").unwrap_or_else(|e| panic!("{e}"));
    assert!(h.lines.is_empty());
    assert_eq!(next, Some(1));
}

#[test]
fn huge_counts_do_not_preallocate_or_loop() {
    let e = body("@@ -1,2147483646 +1,2147483646 @@", b" a\n").err();
    assert!(matches!(
        e.map(|e| e.kind),
        Some(DiffErrorKind::HunkTruncated { old_seen: 1, .. })
    ));
}
