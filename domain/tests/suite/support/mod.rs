//! Shared by the parser's integration tests: the checked-in fixtures
//! (`fixtures/diff/make-fixtures.sh`) and random edits of them.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

pub fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/diff")
}

/// Every `<name>.patch`, sorted by name.
pub fn patches() -> Vec<(String, Vec<u8>)> {
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

pub fn sibling(name: &str, ext: &str) -> Option<Vec<u8>> {
    fs::read(fixture_dir().join(format!("{name}.{ext}"))).ok()
}

/// The fixtures, read once per test binary.
pub fn all_patches() -> &'static [(String, Vec<u8>)] {
    static ALL: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();
    ALL.get_or_init(patches)
}

/// Small random edits that tend to hit parser decisions.
#[derive(Debug, Clone)]
pub enum Mutation {
    Set(usize, u8),
    Insert(usize, u8),
    Remove(usize, usize),
    Truncate(usize),
    DuplicateLine(usize),
}

pub fn mutation() -> impl Strategy<Value = Mutation> {
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

pub fn apply(mut bytes: Vec<u8>, muts: &[Mutation]) -> Vec<u8> {
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
