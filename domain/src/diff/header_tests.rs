use super::*;

/// Reads a `diff --git` header (first line included) and builds the file.
fn file(text: &str) -> Result<FilePatch, DiffErrorKind> {
    let mut lines = Lines::new(text.as_bytes());
    let first = lines.next().unwrap_or_else(|| panic!("no input"));
    let raw = read_git_header(&mut lines, &first).map_err(|e| e.kind)?;
    build_file(raw)
}

fn ok(text: &str) -> FilePatch {
    file(text).unwrap_or_else(|e| panic!("{e}"))
}

fn paths(f: &FilePatch) -> (Option<&str>, Option<&str>) {
    (f.old_path.as_deref(), f.new_path.as_deref())
}

#[test]
fn modified_with_index_mode() {
    let f =
        ok("diff --git a/x b/x\nindex 1234567..89abcde 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n");
    assert_eq!(f.status, FileStatus::Modified);
    assert_eq!(paths(&f), (Some("x"), Some("x")));
    assert_eq!(f.old_mode.as_deref(), Some("100644"));
    assert_eq!(f.new_mode.as_deref(), Some("100644"));
}

#[test]
fn added_and_deleted() {
    let f = ok("diff --git a/n b/n\nnew file mode 100755\nindex 0000000..e69de29\n");
    assert_eq!(f.status, FileStatus::Added);
    assert_eq!(paths(&f), (None, Some("n")));
    assert_eq!((f.old_mode, f.new_mode.as_deref()), (None, Some("100755")));
    let f = ok(
        "diff --git a/d b/d\ndeleted file mode 100644\nindex e69de29..0000000\n--- a/d\n+++ /dev/null\n",
    );
    assert_eq!(f.status, FileStatus::Deleted);
    assert_eq!(paths(&f), (Some("d"), None));
    assert_eq!(f.old_mode.as_deref(), Some("100644"));
}

#[test]
fn mode_change_and_type_change() {
    let f = ok("diff --git a/x b/x\nold mode 100644\nnew mode 100755\n");
    assert_eq!(f.status, FileStatus::Modified);
    assert_eq!(f.new_mode.as_deref(), Some("100755"));
    let f = ok("diff --git a/x b/x\nold mode 100644\nnew mode 120000\n");
    assert_eq!(f.status, FileStatus::TypeChanged);
    assert!(type_differs(Some("160000"), Some("100644")));
    assert!(!type_differs(Some("100755"), Some("100644")));
    assert!(!type_differs(None, Some("100644")));
}

#[test]
fn renames_and_copies() {
    let f = ok("diff --git a/o b/n\nsimilarity index 90%\nrename from o\nrename to n\n");
    assert_eq!((f.status, f.similarity), (FileStatus::Renamed, Some(90)));
    assert_eq!(paths(&f), (Some("o"), Some("n")));
    let f = ok("diff --git a/o b/n\nrename old o\nrename new n\n");
    assert_eq!((f.status, f.similarity), (FileStatus::Renamed, None));
    let f = ok("diff --git a/o b/c\nsimilarity index 100%\ncopy from o\ncopy to c\n");
    assert_eq!(f.status, FileStatus::Copied);
    assert_eq!(paths(&f), (Some("o"), Some("c")));
    let f = ok(
        "diff --git \"a/\\303\\251\" \"b/x\\ty\"\nrename from \"\\303\\251\"\nrename to \"x\\ty\"\n",
    );
    assert_eq!(paths(&f), (Some("é"), Some("x\ty")));
}

#[test]
fn dissimilarity_is_a_rewrite() {
    let f = ok("diff --git a/x b/x\ndissimilarity index 100%\nindex 1..2 100644\n");
    assert_eq!((f.status, f.similarity), (FileStatus::Modified, None));
}

#[test]
fn ambiguous_names_use_other_lines() {
    // A file named "x b/y": the `---`/`+++` lines settle it.
    let f = ok("diff --git a/x b/y b/x b/y\nindex 1..2 100644\n--- a/x b/y\n+++ b/x b/y\n");
    assert_eq!(paths(&f), (Some("x b/y"), Some("x b/y")));
    // Header-only: the halves that match win.
    let f = ok("diff --git a/x b/y b/x b/y\nold mode 100644\nnew mode 100755\n");
    assert_eq!(paths(&f), (Some("x b/y"), Some("x b/y")));
    // Added: the known `+++` name fixes the split.
    let f = ok("diff --git a/x b/y b/x b/y\nnew file mode 100644\n--- /dev/null\n+++ b/x b/y\n");
    assert_eq!(paths(&f), (None, Some("x b/y")));
    // Name with a space and git's trailing tab.
    let f = ok("diff --git a/s p b/s p\n--- a/s p\t\n+++ b/s p\t\n");
    assert_eq!(paths(&f), (Some("s p"), Some("s p")));
}

#[test]
fn prefixes() {
    let f = ok("diff --git x y\n--- x\n+++ y\n");
    assert_eq!(paths(&f), (Some("x"), Some("y")));
    let f = ok("diff --git d/x d/x\n--- d/x\n+++ d/x\n");
    assert_eq!(paths(&f), (Some("d/x"), Some("d/x")));
    let f = ok("diff --git src/d/x dst/d/x\nnew file mode 100644\n--- /dev/null\n+++ dst/d/x\n");
    assert_eq!(paths(&f), (None, Some("d/x")));
    let f = ok("diff --git n n\nnew file mode 100644\n");
    assert_eq!(paths(&f), (None, Some("n")));
    let f = ok("diff --git \"a/q\\\"\" \"b/q\\\"\"\nnew file mode 100644\n");
    assert_eq!(paths(&f), (None, Some("q\"")));
}

#[test]
fn header_stops_at_first_foreign_line() {
    let mut lines =
        Lines::new(b"diff --git a/x b/x\nold mode 100644\nnew mode 100755\ndiff --git a/y b/y\n");
    let first = lines.next().unwrap_or_else(|| panic!("no input"));
    let raw = read_git_header(&mut lines, &first).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(raw.old_mode.as_deref(), Some("100644"));
    assert_eq!(lines.next().map(|l| l.number), Some(4));
}

#[test]
fn header_errors() {
    let conflict = |s: &str| matches!(file(s), Err(DiffErrorKind::ConflictingHeaders(_)));
    assert!(conflict(
        "diff --git a/x b/x\nnew file mode 100644\ndeleted file mode 100644\n"
    ));
    assert!(conflict("diff --git a/x b/y\nrename from x\ncopy to y\n"));
    assert!(conflict(
        "diff --git a/x b/x\nnew file mode 100644\n--- a/x\n+++ b/x\n"
    ));
    assert!(conflict(
        "diff --git a/x b/x\n--- /dev/null\n+++ /dev/null\n"
    ));
    assert_eq!(
        file("diff --git a/x b/x\nold mode 10064x\n"),
        Err(DiffErrorKind::InvalidMode)
    );
    assert_eq!(
        file("diff --git a/x b/x\nnew mode 1006440\n"),
        Err(DiffErrorKind::InvalidMode)
    );
    assert_eq!(
        file("diff --git a/x b/y\nsimilarity index 101%\n"),
        Err(DiffErrorKind::InvalidSimilarity)
    );
    assert_eq!(
        file("diff --git a/x b/y\nsimilarity index 5\n"),
        Err(DiffErrorKind::InvalidSimilarity)
    );
    assert_eq!(
        file("diff --git a/x b/y\nrename from x\n"),
        Err(DiffErrorKind::MissingPath)
    );
    assert_eq!(
        file("diff --git a/x b/y\n"),
        Err(DiffErrorKind::MissingPath)
    );
    assert_eq!(file("diff --git \n"), Err(DiffErrorKind::MissingPath));
    assert_eq!(
        file("diff --git \"a/x b/x\n"),
        Err(DiffErrorKind::InvalidQuotedPath)
    );
}

#[test]
fn index_line_without_mode_or_garbled_is_ignored() {
    let f = ok("diff --git a/x b/x\nindex zz\n--- a/x\n+++ b/x\n");
    assert_eq!(f.old_mode, None);
}
