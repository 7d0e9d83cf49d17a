//! Checks the diff parser against patches written by real git (see
//! `fixtures/diff/make-fixtures.sh`): per file, the status, paths and
//! line counts must match what `git diff --name-status -z` and
//! `git diff --numstat -z` said about the same change.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use proptest::prelude::*;
use revu_domain::diff::{Diff, DiffError, DiffErrorKind, FilePatch, FileStatus, LineKind, parse};
use support::{all_patches, apply, mutation, patches, sibling};

/// One file as git's oracles describe it.
#[derive(Debug, PartialEq)]
struct Expected {
    status: char,
    old: Option<String>,
    new: Option<String>,
    /// `None` for binary (`-\t-`).
    counts: Option<(u32, u32)>,
}

fn tokens(raw: &[u8]) -> Vec<String> {
    let mut t: Vec<_> = raw
        .split(|&b| b == 0)
        .map(|s| String::from_utf8_lossy(s).into_owned())
        .collect();
    if t.last().is_some_and(String::is_empty) {
        t.pop();
    }
    t
}

fn expected(name: &str) -> Vec<Expected> {
    let status = tokens(&sibling(name, "name-status").expect("name-status oracle"));
    let numstat = tokens(&sibling(name, "numstat").expect("numstat oracle"));
    let mut out = Vec::new();
    let mut s = status.into_iter();
    let mut n = numstat.into_iter();
    while let Some(code) = s.next() {
        let letter = code.chars().next().expect("status letter");
        let (old, new) = match letter {
            'R' | 'C' => (s.next(), s.next()),
            'A' => (None, s.next()),
            'D' => (s.next(), None),
            _ => {
                let p = s.next();
                (p.clone(), p)
            }
        };
        let stat = n.next().expect("numstat entry");
        let mut parts = stat.splitn(3, '\t');
        let (a, r, path) = (parts.next(), parts.next(), parts.next().unwrap_or(""));
        if path.is_empty() {
            // rename/copy: the two names follow as separate tokens
            n.next();
            n.next();
        }
        let counts = match (a, r) {
            (Some("-"), Some("-")) => None,
            (Some(a), Some(r)) => Some((a.parse().unwrap(), r.parse().unwrap())),
            _ => panic!("bad numstat entry {stat:?}"),
        };
        out.push(Expected {
            status: letter,
            old,
            new,
            counts,
        });
    }
    out
}

fn actual(f: &FilePatch) -> Expected {
    Expected {
        status: f.status.letter(),
        old: f.old_path.clone(),
        new: f.new_path.clone(),
        counts: (!f.binary).then(|| (f.added(), f.removed())),
    }
}

/// Hunk bodies agree with their headers, and line numbers run in order.
fn check_hunks(f: &FilePatch) -> Result<(), String> {
    if f.binary && !f.hunks.is_empty() {
        return Err(format!("{}: binary file with hunks", f.path()));
    }
    for h in &f.hunks {
        let old = h.lines.iter().filter(|l| l.kind() != LineKind::Added);
        let new = h.lines.iter().filter(|l| l.kind() != LineKind::Removed);
        let old_nos: Vec<_> = old.filter_map(|l| l.old_line()).collect();
        let new_nos: Vec<_> = new.filter_map(|l| l.new_line()).collect();
        let want_old: Vec<_> = (h.old_start..h.old_start + h.old_lines).collect();
        let want_new: Vec<_> = (h.new_start..h.new_start + h.new_lines).collect();
        if old_nos != want_old || new_nos != want_new {
            return Err(format!(
                "{}: hunk line numbers disagree with header",
                f.path()
            ));
        }
    }
    Ok(())
}

fn check_fixture(name: &str, patch: &[u8]) -> Result<Diff, String> {
    let parsed = parse(patch);
    if let Some(kind) = sibling(name, "error") {
        let kind = String::from_utf8_lossy(&kind).trim().to_owned();
        return match parsed {
            Err(e) if e.kind.name() == kind => Err(String::new()),
            Err(e) => Err(format!("expected {kind}, got {e}")),
            Ok(d) => Err(format!("expected {kind}, parsed {} files", d.files.len())),
        };
    }
    let diff = parsed.map_err(|e| e.to_string())?;
    let want = expected(name);
    let got: Vec<_> = diff.files.iter().map(actual).collect();
    if got != want {
        return Err(format!("mismatch\n  git:    {want:?}\n  parsed: {got:?}"));
    }
    diff.files.iter().try_for_each(check_hunks)?;
    Ok(diff)
}

#[test]
fn diff_fixtures_match_git() {
    let all = patches();
    assert!(all.len() >= 40, "fixtures missing: run make-fixtures.sh");
    let mut failures = Vec::new();
    for (name, patch) in &all {
        match check_fixture(name, patch) {
            Ok(_) => {}
            Err(e) if e.is_empty() => {}
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failing:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn fixture(name: &str) -> Diff {
    let patch = sibling(name, "patch").expect("fixture");
    parse(&patch).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn file<'d>(d: &'d Diff, path: &str) -> &'d FilePatch {
    d.files
        .iter()
        .find(|f| f.path() == path)
        .unwrap_or_else(|| panic!("no {path:?} in {:?}", d.files))
}

#[test]
fn diff_fixture_details_beyond_numstat() {
    let d = fixture("binary-patch");
    assert_eq!(file(&d, "deleted.bin").binary_size, Some(0));
    assert_eq!(file(&d, "added.bin").binary_size, Some(7));
    let m = fixture("modes");
    let link = file(&m, "becomes-link");
    assert_eq!(link.status, FileStatus::TypeChanged);
    assert_eq!(
        (link.old_mode.as_deref(), link.new_mode.as_deref()),
        (Some("100644"), Some("120000"))
    );
    let exec = file(&m, "mode-only.sh");
    assert!(exec.hunks.is_empty());
    assert_eq!(exec.new_mode.as_deref(), Some("100755"));
    let c = fixture("content");
    let texts: Vec<_> = file(&c, "crlf.txt")
        .hunks
        .iter()
        .flat_map(|h| &h.lines)
        .map(|l| l.text.as_str())
        .collect();
    assert_eq!(texts, vec!["one", "two", "TWO", "three"]);
    let gains = file(&c, "eof-gains.txt");
    let marks: Vec<_> = gains
        .hunks
        .iter()
        .flat_map(|h| &h.lines)
        .map(|l| l.no_newline())
        .collect();
    assert_eq!(marks, vec![true, false]);
    let r = fixture("rename");
    assert_eq!(file(&r, "moved-away.txt").similarity, Some(100));
}

/// An error names a real place: `line` is the line that starts at
/// `offset`, or one past the last line when the input ended too early.
fn check_position(input: &[u8], e: &DiffError) -> Result<(), String> {
    if matches!(e.kind, DiffErrorKind::Empty | DiffErrorKind::NotADiff) {
        return ((e.line, e.offset) == (1, 0))
            .then_some(())
            .ok_or_else(|| format!("{e}: whole-input errors point at the start"));
    }
    let Some(before) = input.get(..e.offset) else {
        return Err(format!(
            "{e}: offset past the input ({} bytes)",
            input.len()
        ));
    };
    let bom = input.starts_with(b"\xef\xbb\xbf") && e.offset == 3;
    let at_line_start = e.offset == 0 || before.last() == Some(&b'\n') || bom;
    let unterminated_end = e.offset == input.len() && !at_line_start;
    let newlines = before.iter().filter(|&&b| b == b'\n').count();
    let line = newlines + 1 + usize::from(unterminated_end);
    if (at_line_start || unterminated_end) && e.line == line {
        Ok(())
    } else {
        Err(format!("{e}: expected line {line} at that offset"))
    }
}

proptest! {
    // No failure files: a failing case is printed, and shrinks quickly.
    #![proptest_config(ProptestConfig {
        cases: 512,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Mutated real diffs: no panic, no hang (inputs stay fixture-sized
    /// and the reader makes one pass), and either well-formed files or an
    /// error that points at the offending line.
    #[test]
    fn diff_mutated_fixtures_never_panic_and_errors_point_at_a_line(
        pick in any::<usize>(),
        muts in proptest::collection::vec(mutation(), 1..8),
    ) {
        let all = all_patches();
        let (_, patch) = &all[pick % all.len()];
        let mutated = apply(patch.clone(), &muts);
        match parse(&mutated) {
            Ok(d) => {
                for f in &d.files {
                    prop_assert!(!f.path().is_empty());
                    prop_assert!(check_hunks(f).is_ok());
                }
            }
            Err(e) => prop_assert!(check_position(&mutated, &e).is_ok(), "{:?}", check_position(&mutated, &e)),
        }
    }

    /// Arbitrary bytes (up to 16 KiB): the same guarantees.
    #[test]
    fn diff_arbitrary_bytes_never_panic(input in proptest::collection::vec(any::<u8>(), 0..16384)) {
        if let Err(e) = parse(&input) {
            prop_assert!(check_position(&input, &e).is_ok(), "{:?}", check_position(&input, &e));
        }
    }
}
