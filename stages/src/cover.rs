//! The exact-cover gate: every changed file in exactly one slice.
//!
//! A refinement of the deterministic proposal (from configuration or a
//! model) is accepted only if it covers the change exactly: no file dropped,
//! none invented, none in two slices. Otherwise the proposal stands and the
//! report says why.

use super::grouping::Slice;
use std::collections::BTreeMap;

/// Why a set of slices is not an exact cover.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CoverViolation {
    #[error("{0} changed file(s) in no slice, first {1}")]
    Dropped(usize, String),
    #[error("{0} file(s) not in the change, first {1}")]
    Invented(usize, String),
    #[error("{0} file(s) in more than one slice, first {1}")]
    Duplicated(usize, String),
}

/// The slices the review runs with, and whether a refinement was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoverOutcome {
    pub slices: Vec<Slice>,
    pub fallback: Option<String>,
}

/// Checks that `slices` cover `files` exactly.
pub fn check(files: &[String], slices: &[Slice]) -> Result<(), CoverViolation> {
    let mut seen: BTreeMap<&str, usize> = files.iter().map(|f| (f.as_str(), 0)).collect();
    let mut invented = Vec::new();
    for file in slices.iter().flat_map(|s| &s.files) {
        match seen.get_mut(file.as_str()) {
            Some(n) => *n += 1,
            None => invented.push(file.as_str()),
        }
    }
    let first = |v: &[&str]| v.first().map(|s| (*s).to_owned()).unwrap_or_default();
    let dropped: Vec<&str> = seen
        .iter()
        .filter(|(_, n)| **n == 0)
        .map(|(f, _)| *f)
        .collect();
    if !dropped.is_empty() {
        return Err(CoverViolation::Dropped(dropped.len(), first(&dropped)));
    }
    if !invented.is_empty() {
        return Err(CoverViolation::Invented(invented.len(), first(&invented)));
    }
    let dup: Vec<&str> = seen
        .iter()
        .filter(|(_, n)| **n > 1)
        .map(|(f, _)| *f)
        .collect();
    if !dup.is_empty() {
        return Err(CoverViolation::Duplicated(dup.len(), first(&dup)));
    }
    Ok(())
}

/// Chooses the refinement when it is an exact cover, else the proposal.
pub fn settle(
    files: &[String],
    proposal: Vec<Slice>,
    refinement: Option<Vec<Slice>>,
) -> CoverOutcome {
    debug_assert!(
        check(files, &proposal).is_ok(),
        "the deterministic proposal must cover"
    );
    match refinement {
        None => CoverOutcome {
            slices: proposal,
            fallback: None,
        },
        Some(refined) => match check(files, &refined) {
            Ok(()) => CoverOutcome {
                slices: refined,
                fallback: None,
            },
            Err(why) => CoverOutcome {
                slices: proposal,
                fallback: Some(format!(
                    "refined grouping rejected ({why}); used the deterministic proposal"
                )),
            },
        },
    }
}

/// Longest slice name a refinement may give (it becomes a lane id).
pub const MAX_SLICE_NAME: usize = 64;

/// The slices a review runs with after its grouping lane: the lane's
/// refinement when it names its slices well and covers the change exactly,
/// else the proposal, with why. `refined` is `Err` with the lane's banner
/// when the lane failed.
pub fn after_grouping(
    files: &[String],
    proposal: Vec<Slice>,
    refined: Result<Vec<Slice>, String>,
) -> CoverOutcome {
    let refined = refined.and_then(|slices| {
        let slices: Vec<Slice> = slices
            .into_iter()
            .filter(|s| !s.files.is_empty())
            .map(|mut s| {
                s.name = s.name.trim().to_owned();
                if s.domain.trim().is_empty() {
                    s.domain.clone_from(&s.name);
                }
                s
            })
            .collect();
        named_well(&slices)
            .map(|()| slices)
            .map_err(|e| e.to_string())
    });
    match refined {
        Ok(slices) => settle(files, proposal, Some(slices)),
        Err(why) => CoverOutcome {
            slices: proposal,
            fallback: Some(format!(
                "refined grouping not used ({why}); used the deterministic proposal"
            )),
        },
    }
}

/// A refined slice whose name cannot be a lane id; the name as proposed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum SliceName {
    #[error("slice name {name:?} is not 1 to {MAX_SLICE_NAME} letters, digits or -_./#:")]
    Malformed { name: String },
    #[error("slice name {name:?} is used twice")]
    Twice { name: String },
}

/// Slice names become lane ids (`domain:{name}`): each must be short,
/// printable without spaces, and unique.
fn named_well(slices: &[Slice]) -> Result<(), SliceName> {
    let mut seen = std::collections::BTreeSet::new();
    for s in slices {
        let printable = s
            .name
            .chars()
            .all(|c| c.is_alphanumeric() || "-_./#:".contains(c));
        if s.name.is_empty() || s.name.len() > MAX_SLICE_NAME || !printable {
            return Err(SliceName::Malformed {
                name: s.name.clone(),
            });
        }
        if !seen.insert(s.name.as_str()) {
            return Err(SliceName::Twice {
                name: s.name.clone(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::super::grouping::{Grouper, default_domains};
    use super::*;
    use proptest::prelude::*;

    fn slice(name: &str, files: &[&str]) -> Slice {
        Slice {
            name: name.into(),
            domain: name.into(),
            files: files.iter().map(|f| (*f).to_owned()).collect(),
        }
    }

    #[test]
    fn a_grouping_lane_moves_renames_and_splits_within_the_cover() {
        let files: Vec<String> = ["a/x.rs", "a/y.rs", "b/z.rs"].map(String::from).to_vec();
        let proposal = vec![slice("a", &["a/x.rs", "a/y.rs"]), slice("b", &["b/z.rs"])];
        let refined = vec![
            Slice {
                domain: String::new(),
                ..slice(" parser ", &["a/x.rs", "b/z.rs"])
            },
            slice("cli", &["a/y.rs"]),
            slice("empty", &[]),
        ];
        let out = after_grouping(&files, proposal.clone(), Ok(refined));
        assert_eq!(out.fallback, None);
        let names: Vec<(&str, &str)> = out
            .slices
            .iter()
            .map(|s| (s.name.as_str(), s.domain.as_str()))
            .collect();
        assert_eq!(names, [("parser", "parser"), ("cli", "cli")]);

        let twice = vec![slice("a", &["a/x.rs"]), slice("a", &["a/y.rs", "b/z.rs"])];
        let out = after_grouping(&files, proposal.clone(), Ok(twice));
        assert_eq!(out.slices, proposal);
        assert!(out.fallback.unwrap().contains("used twice"));

        let spaced = vec![slice("two words", &["a/x.rs", "a/y.rs", "b/z.rs"])];
        let out = after_grouping(&files, proposal.clone(), Ok(spaced));
        assert!(out.fallback.unwrap().contains("two words"));

        let failed = after_grouping(&files, proposal.clone(), Err("lane faulted".into()));
        assert_eq!(failed.slices, proposal);
        assert!(failed.fallback.unwrap().contains("lane faulted"));
    }

    #[test]
    fn broken_refinement_falls_back_and_says_why() {
        let files = vec!["a.rs".to_owned(), "b.rs".to_owned()];
        let proposal = vec![slice("core", &["a.rs", "b.rs"])];
        let bad = vec![slice("x", &["a.rs"]), slice("y", &["a.rs", "c.rs"])];
        let out = settle(&files, proposal.clone(), Some(bad));
        assert_eq!(out.slices, proposal);
        assert!(out.fallback.unwrap().contains("in no slice"));
    }

    #[test]
    fn violations_are_named() {
        let files = vec!["a.rs".to_owned()];
        assert!(matches!(
            check(&files, &[slice("x", &["a.rs", "z.rs"])]),
            Err(CoverViolation::Invented(1, _))
        ));
        assert!(matches!(
            check(&files, &[slice("x", &["a.rs"]), slice("y", &["a.rs"])]),
            Err(CoverViolation::Duplicated(1, _))
        ));
    }

    proptest! {
        #[test]
        fn proposal_is_always_an_exact_cover(
            paths in proptest::collection::btree_set("[a-z]{1,3}(/[a-z_]{1,4}){0,3}\\.(rs|md|sql|tsx|py|proto)", 0..60),
            max in 1usize..8,
        ) {
            let files: Vec<String> = paths.into_iter().collect();
            let g = Grouper::new(&default_domains(), max).unwrap();
            let proposal = g.propose(&files);
            prop_assert!(check(&files, &proposal).is_ok());
            prop_assert!(proposal.iter().all(|s| !s.files.is_empty() && s.files.len() <= max));
        }

        #[test]
        fn settle_always_returns_an_exact_cover(
            paths in proptest::collection::btree_set("[a-e]{1,2}\\.rs", 1..10),
            moves in proptest::collection::vec((0usize..12, 0usize..3), 0..12),
        ) {
            let files: Vec<String> = paths.into_iter().collect();
            let proposal = vec![Slice { name: "core".into(), domain: "core".into(), files: files.clone() }];
            // An arbitrary refinement: files scattered, some duplicated or invented.
            let mut refined = vec![slice("x", &[]), slice("y", &[]), slice("z", &[])];
            for (i, to) in moves {
                let f = files.get(i).cloned().unwrap_or_else(|| format!("new{i}.rs"));
                refined[to].files.push(f);
            }
            let out = settle(&files, proposal, Some(refined));
            prop_assert!(check(&files, &out.slices).is_ok());
        }
    }
}
