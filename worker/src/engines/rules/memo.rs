//! The rules' findings on each file of a review, worked out once per
//! process and shared by its lanes.
//!
//! A domain lane runs every rule on its slice and a specialist lane the
//! rules of its dimension on every file, so without this each added line
//! would be read twice (once per kind of lane), and once more per lane
//! that shares the file. Every rule's findings on a file depend only on
//! that file, the change and the code index, never on which other files
//! share its lane, so the findings of one file under one dimension's rules
//! are computed by whichever lane needs them first and read by the rest.

use super::{FileLines, Rule, RuleContext, SharedLines, head_text};
use revu_domain::code_index::CodeIndex;
use revu_domain::diff::{Diff, FilePatch};
use revu_domain::finding::{Dimension, Finding};
use std::cell::OnceCell;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// Per file of the diff and per dimension, the findings of that
/// dimension's rules on that file, filled in as lanes ask.
#[derive(Debug, Default)]
pub struct FileFindings {
    slots: OnceLock<Slots>,
}

#[derive(Debug)]
struct Slots {
    /// `files × dimensions`, row by file in diff order.
    cells: Vec<OnceLock<Vec<Finding>>>,
    /// A path's file indexes (a file deleted and added again under one
    /// path, as a type change reads, has two).
    by_path: HashMap<String, Vec<usize>>,
    /// Per file, its lines as the rules read them, while some dimension
    /// of it is still to be worked out: computed by the first lane that
    /// needs them, dropped once every dimension's findings are in.
    lines: Vec<Mutex<Option<Arc<SharedLines>>>>,
}

impl Slots {
    /// The lines of `patch`, the file at `file` whose head is `head`,
    /// shared with the other lanes reading it.
    fn lines(&self, file: usize, patch: &FilePatch, head: Option<&str>) -> Arc<SharedLines> {
        let Some(slot) = self.lines.get(file) else {
            return Arc::new(SharedLines::of(patch, head));
        };
        let mut slot = slot.lock().unwrap_or_else(PoisonError::into_inner);
        Arc::clone(slot.get_or_insert_with(|| Arc::new(SharedLines::of(patch, head))))
    }

    /// Drops the shared lines of the file at `file` once every
    /// dimension's findings on it are in: nothing will read them again.
    fn release_if_done(&self, file: usize) {
        let dims = Dimension::ALL.len();
        let done = self
            .cells
            .get(file * dims..(file + 1) * dims)
            .is_some_and(|row| row.iter().all(|c| c.get().is_some()));
        if let (true, Some(slot)) = (done, self.lines.get(file)) {
            *slot.lock().unwrap_or_else(PoisonError::into_inner) = None;
        }
    }
}

impl FileFindings {
    fn slots(&self, diff: &Diff) -> &Slots {
        self.slots.get_or_init(|| Slots {
            cells: (0..diff.files.len() * Dimension::ALL.len())
                .map(|_| OnceLock::new())
                .collect(),
            by_path: diff
                .files
                .iter()
                .enumerate()
                .fold(HashMap::new(), |mut by_path, (i, p)| {
                    by_path
                        .entry(p.path().to_owned())
                        .or_insert_with(Vec::new)
                        .push(i);
                    by_path
                }),
            lines: (0..diff.files.len()).map(|_| Mutex::new(None)).collect(),
        })
    }

    /// The indexes in `diff` of the files at `paths`, in diff order.
    pub fn indexes(&self, diff: &Diff, paths: &[String]) -> Vec<usize> {
        let slots = self.slots(diff);
        let mut out: Vec<usize> = paths
            .iter()
            .filter_map(|p| slots.by_path.get(p))
            .flatten()
            .copied()
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The findings of the rules of each of `dimensions` on the file at
    /// `file` of `diff`, appended to `out`: worked out on the first call
    /// that asks for a dimension, read on the next ones.
    pub fn extend(
        &self,
        rules: &[Box<dyn Rule>],
        review: Reading<'_>,
        file: usize,
        dimensions: &[Dimension],
        out: &mut Vec<Finding>,
    ) {
        let Reading { diff, index, heads } = review;
        let slots = self.slots(diff);
        let Some(patch) = diff.files.get(file) else {
            return;
        };
        // The file's lines, read once for every rule that runs here.
        let files: [&FilePatch; 1] = [patch];
        let lines: OnceCell<FileLines<'_>> = OnceCell::new();
        for &dimension in dimensions {
            let d = Dimension::ALL
                .iter()
                .position(|x| *x == dimension)
                .unwrap_or_default();
            let Some(cell) = slots.cells.get(file * Dimension::ALL.len() + d) else {
                continue;
            };
            let found = cell.get_or_init(|| {
                let lines = lines.get_or_init(|| {
                    let head = head_text(heads, patch.path());
                    FileLines::of(patch, slots.lines(file, patch, head))
                });
                let ctx = RuleContext {
                    lines: std::slice::from_ref(lines),
                    ..RuleContext::new(&files, &diff.files, index).with_heads(heads)
                };
                let mut found = Vec::new();
                for rule in rules.iter().filter(|r| r.dimension() == dimension) {
                    super::run(rule.as_ref(), &ctx, &mut found);
                }
                found
            });
            out.extend_from_slice(found);
        }
        if lines.get().is_some() {
            slots.release_if_done(file);
        }
    }
}

/// What the rules read of a review: its diff, and the code index and
/// head contents of the changed files when the client sent them.
#[derive(Debug, Clone, Copy)]
pub struct Reading<'a> {
    pub diff: &'a Diff,
    pub index: Option<&'a CodeIndex>,
    pub heads: Option<&'a BTreeMap<String, Vec<u8>>>,
}

#[cfg(test)]
mod tests {
    use super::super::all_rules;
    use super::*;

    fn sorted(mut findings: Vec<Finding>) -> Vec<Finding> {
        findings.sort_by(|a, b| (&a.file, a.line, &a.rule).cmp(&(&b.file, b.line, &b.rule)));
        findings
    }

    #[test]
    fn shared_findings_are_what_each_lane_finds_on_its_own() {
        let rules = all_rules();
        for example in [
            "secret-and-unwrap.patch",
            "multi-file.patch",
            "docs-only.patch",
        ] {
            let path = format!("{}/../examples/{example}", env!("CARGO_MANIFEST_DIR"));
            let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
            let diff = revu_domain::diff::parse(&bytes).unwrap_or_else(|e| panic!("{e}"));
            let paths: Vec<String> = diff.files.iter().map(|p| p.path().to_owned()).collect();
            let half = paths.len() / 2;
            let memo = FileFindings::default();
            let mut lanes: Vec<(&[String], Vec<Dimension>)> = vec![
                (&paths[..half], Dimension::ALL.to_vec()),
                (&paths[half..], Dimension::ALL.to_vec()),
            ];
            lanes.extend(Dimension::ALL.iter().map(|d| (&paths[..], vec![*d])));
            let mut found_any = false;
            for (lane, dimensions) in lanes {
                let mut shared = Vec::new();
                for file in memo.indexes(&diff, lane) {
                    let reading = Reading {
                        diff: &diff,
                        index: None,
                        heads: None,
                    };
                    memo.extend(&rules, reading, file, &dimensions, &mut shared);
                }
                let files: Vec<&FilePatch> = diff
                    .files
                    .iter()
                    .filter(|p| lane.iter().any(|l| l == p.path()))
                    .collect();
                let ctx = RuleContext::new(&files, &diff.files, None);
                let mut alone = Vec::new();
                for rule in rules.iter().filter(|r| dimensions.contains(&r.dimension())) {
                    super::super::run(rule.as_ref(), &ctx, &mut alone);
                }
                found_any |= !alone.is_empty();
                assert_eq!(
                    sorted(shared),
                    sorted(alone),
                    "{example}: {lane:?} {dimensions:?}"
                );
            }
            assert!(
                found_any || example == "docs-only.patch",
                "{example}: no finding at all"
            );
        }
    }
}
