//! Checks the diff parser against patches written by real git (see
//! `fixtures/diff/make-fixtures.sh`): per file, the status, paths and
//! line counts must match what `git diff --name-status -z` and
//! `git diff --numstat -z` said about the same change.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use proptest::prelude::*;
use revu_common::diff::{Diff, FilePatch, FileStatus, LineKind, parse};

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/diff")
}

/// Every `<name>.patch`, sorted by name.
fn patches() -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<_> = fs::read_dir(fixture_dir())
        .expect("fixture dir")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "patch"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, fs::read(&p).unwrap())
        })
        .collect();
    out.sort();
    out
}

fn sibling(name: &str, ext: &str) -> Option<Vec<u8>> {
    fs::read(fixture_dir().join(format!("{name}.{ext}"))).ok()
}

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
        let old = h.lines.iter().filter(|l| l.kind != LineKind::Added);
        let new = h.lines.iter().filter(|l| l.kind != LineKind::Removed);
        let old_nos: Vec<_> = old.filter_map(|l| l.old_line).collect();
        let new_nos: Vec<_> = new.filter_map(|l| l.new_line).collect();
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
        .map(|l| l.no_newline)
        .collect();
    assert_eq!(marks, vec![true, false]);
    let r = fixture("rename");
    assert_eq!(file(&r, "moved-away.txt").similarity, Some(100));
}

/// Small random edits that tend to hit parser decisions.
#[derive(Debug, Clone)]
enum Mutation {
    Set(usize, u8),
    Insert(usize, u8),
    Remove(usize, usize),
    Truncate(usize),
    DuplicateLine(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let special = prop_oneof![
        any::<u8>(),
        Just(b'\n'),
        Just(b' '),
        Just(b'+'),
        Just(b'-'),
        Just(b'@'),
        Just(b'\\'),
        Just(b'"'),
        Just(b'0'),
        Just(b'9'),
    ];
    prop_oneof![
        (any::<usize>(), special.clone()).prop_map(|(p, b)| Mutation::Set(p, b)),
        (any::<usize>(), special).prop_map(|(p, b)| Mutation::Insert(p, b)),
        (any::<usize>(), 1usize..40).prop_map(|(p, n)| Mutation::Remove(p, n)),
        any::<usize>().prop_map(Mutation::Truncate),
        any::<usize>().prop_map(Mutation::DuplicateLine),
    ]
}

fn apply(mut bytes: Vec<u8>, muts: &[Mutation]) -> Vec<u8> {
    for m in muts {
        let len = bytes.len().max(1);
        match *m {
            Mutation::Set(p, b) => {
                if let Some(x) = bytes.get_mut(p % len) {
                    *x = b;
                }
            }
            Mutation::Insert(p, b) => bytes.insert(p % (bytes.len() + 1), b),
            Mutation::Remove(p, n) => {
                let start = p % len;
                let end = (start + n).min(bytes.len());
                if start < end {
                    bytes.drain(start..end);
                }
            }
            Mutation::Truncate(p) => bytes.truncate(p % len),
            Mutation::DuplicateLine(p) => {
                let pos = p % (bytes.len() + 1);
                let start = bytes[..pos]
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map_or(0, |i| i + 1);
                let end = bytes[start..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(bytes.len(), |i| start + i + 1);
                let line = bytes[start..end].to_vec();
                bytes.splice(start..start, line);
            }
        }
    }
    bytes
}

proptest! {
    // No failure files: a failing case is printed, and shrinks quickly.
    #![proptest_config(ProptestConfig {
        cases: 512,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn diff_mutated_fixtures_never_panic(
        pick in any::<usize>(),
        muts in proptest::collection::vec(mutation(), 1..8),
    ) {
        static ALL: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();
        let all = ALL.get_or_init(patches);
        let (_, patch) = &all[pick % all.len()];
        let mutated = apply(patch.clone(), &muts);
        // Ok or Err are both fine; panicking or hanging is not.
        if let Ok(d) = parse(&mutated) {
            for f in &d.files {
                prop_assert!(!f.path().is_empty());
                prop_assert!(check_hunks(f).is_ok());
            }
        }
    }
}
