use super::*;

fn name(v: &[u8]) -> Name {
    patch_line_name(v).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn patch_line_names() {
    assert_eq!(name(b"a/x.rs"), Name::Path(b"a/x.rs".to_vec()));
    assert_eq!(name(b"/dev/null"), Name::DevNull);
    assert_eq!(name(b"/dev/null\t1970-01-01 00:00:00"), Name::DevNull);
    // git's trailing tab after a name with a space
    assert_eq!(
        name(b"a/with space\t"),
        Name::Path(b"a/with space".to_vec())
    );
    // GNU diff timestamp
    assert_eq!(
        name(b"a/x\t2024-01-01 10:00:00.000000000 +0000"),
        Name::Path(b"a/x".to_vec())
    );
    assert_eq!(
        name(br#""a/tab\there""#),
        Name::Path(b"a/tab\there".to_vec())
    );
    assert_eq!(patch_line_name(b""), Err(DiffErrorKind::MissingPath));
    assert_eq!(
        patch_line_name(b"\"a/x"),
        Err(DiffErrorKind::InvalidQuotedPath)
    );
}

#[test]
fn header_values() {
    assert_eq!(header_value_name(b"dir/a b"), Ok(b"dir/a b".to_vec()));
    assert_eq!(header_value_name(b"\"q\\\"\""), Ok(b"q\"".to_vec()));
    assert_eq!(header_value_name(b""), Err(DiffErrorKind::MissingPath));
}

#[test]
fn git_line_quoting_shapes() {
    let exact = |a: &[u8], b: &[u8]| Ok(GitNames::Exact(a.to_vec(), b.to_vec()));
    assert_eq!(
        git_line_names(br#""a/x y" "b/x y""#),
        exact(b"a/x y", b"b/x y")
    );
    assert_eq!(git_line_names(br#""a/\t" b/z"#), exact(b"a/\t", b"b/z"));
    assert_eq!(git_line_names(br#"a/z "b/\t""#), exact(b"a/z", b"b/\t"));
    assert_eq!(
        git_line_names(b"a/x b/x"),
        Ok(GitNames::Unquoted(b"a/x b/x".to_vec()))
    );
    assert_eq!(git_line_names(br#""a/x""#), Err(DiffErrorKind::MissingPath));
    assert_eq!(
        git_line_names(b"\"\" \"\""),
        Err(DiffErrorKind::MissingPath)
    );
    assert_eq!(git_line_names(b"a/x \"\""), Err(DiffErrorKind::MissingPath));
    assert_eq!(
        git_line_names(br#""a/x"#),
        Err(DiffErrorKind::InvalidQuotedPath)
    );
}

#[test]
fn same_file_prefix_shapes() {
    assert_eq!(same_file(b"a/x", b"b/x"), Some(&b"x"[..]));
    assert_eq!(same_file(b"a/a/x", b"b/a/x"), Some(&b"a/x"[..]));
    assert_eq!(same_file(b"x", b"x"), Some(&b"x"[..]));
    assert_eq!(same_file(b"dir/x", b"dir/x"), Some(&b"dir/x"[..]));
    assert_eq!(same_file(b"old/d/x", b"new/d/x"), Some(&b"d/x"[..]));
    assert_eq!(same_file(b"s/x", b"dst/deep/x"), Some(&b"x"[..]));
    assert_eq!(same_file(b"a/x", b"b/y"), None);
    assert_eq!(same_file(b"old-x", b"new-x"), None);
    assert_eq!(same_file(b"", b""), None);
}

#[test]
fn unquoted_split_prefers_git_rule() {
    assert_eq!(split_unquoted(b"a/x b/x"), Some(&b"x"[..]));
    // a name holding " b/"
    assert_eq!(split_unquoted(b"a/x b/y b/x b/y"), Some(&b"x b/y"[..]));
    assert_eq!(split_unquoted(b"a/a b/a b/a b/a"), Some(&b"a b/a"[..]));
    // --no-prefix with a space
    assert_eq!(split_unquoted(b"x y x y"), Some(&b"x y"[..]));
    // custom prefixes of different lengths
    assert_eq!(
        split_unquoted(b"old/f b new-version/f b"),
        Some(&b"f b"[..])
    );
    assert_eq!(split_unquoted(b"a/x b/y"), None);
    assert_eq!(split_unquoted(b"single"), None);
    assert_eq!(split_unquoted(b""), None);
}

#[test]
fn split_with_one_known_side() {
    assert_eq!(
        split_with_known(b"a/n b/n", b"b/n", false),
        Some(b"n".to_vec())
    );
    assert_eq!(
        split_with_known(b"a/x b/y b/x b/y", b"a/x b/y", true),
        Some(b"x b/y".to_vec())
    );
    assert_eq!(
        split_with_known(b"b/x b/x", b"b/x", false),
        Some(b"b/x".to_vec())
    );
    assert_eq!(split_with_known(b"a/n b/n", b"b/m", false), None);
}

#[test]
fn strip_helpers() {
    assert_eq!(strip_pair(b"a/x", b"b/y"), (b"x".to_vec(), b"y".to_vec()));
    assert_eq!(
        strip_pair(b"x.orig", b"x"),
        (b"x.orig".to_vec(), b"x".to_vec())
    );
    assert_eq!(strip_one(b"b/x", b"b/"), b"x");
    assert_eq!(strip_one(b"b/", b"b/"), b"b/");
    assert_eq!(strip_one(b"x", b"b/"), b"x");
}
