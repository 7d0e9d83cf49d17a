//! The facts stage: what changed, how much, and how risky it looks.
//!
//! Facts are derived from the diff alone, deterministically: either from a
//! parsed [`Diff`] ([`Facts::from_diff`], the review pipeline) or straight
//! from the bytes ([`Facts::scan`], which never keeps line text and so
//! stays small on very large diffs). Both give the same facts.

mod risk;
mod scan;
mod signals;
mod skip;

pub use risk::{RiskTier, risk_tier};
pub use signals::{Signal, always_human_files, detect_signals};
pub use skip::{SkipFiles, SkipKind};

use crate::diff::{Diff, FilePatch, FileStatus, LineKind};
use serde::{Deserialize, Serialize};

/// The facts document (`revu facts`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Facts {
    pub files: Vec<FileFacts>,
    pub totals: Totals,
    pub risk_tier: RiskTier,
    pub signals: Vec<Signal>,
}

/// Sums over the whole change.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Totals {
    pub files: usize,
    pub added: u64,
    pub removed: u64,
}

/// One changed file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileFacts {
    pub path: String,
    pub old_path: Option<String>,
    pub status: FileStatus,
    pub binary: bool,
    pub added: u32,
    pub removed: u32,
    pub hunks: Vec<HunkFacts>,
}

/// One hunk's ranges and the head-side numbers of its added lines: the only
/// lines a finding may cite as added.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HunkFacts {
    pub old_start: u32,
    pub old_lines: u32,
    pub new_start: u32,
    pub new_lines: u32,
    pub added_lines: Vec<u32>,
}

impl Facts {
    pub fn from_diff(diff: &Diff) -> Facts {
        let files: Vec<FileFacts> = diff.files.iter().map(file_facts).collect();
        Facts::assemble(files, detect_signals(diff))
    }

    /// Totals and tier over per-file facts and the change's signals.
    fn assemble(files: Vec<FileFacts>, signals: Vec<Signal>) -> Facts {
        let totals = Totals {
            files: files.len(),
            added: files.iter().map(|f| u64::from(f.added)).sum(),
            removed: files.iter().map(|f| u64::from(f.removed)).sum(),
        };
        let risk_tier = risk_tier(&totals, &signals);
        Facts {
            files,
            totals,
            risk_tier,
            signals,
        }
    }
}

fn file_facts(patch: &FilePatch) -> FileFacts {
    let old_path = match patch.status {
        FileStatus::Renamed | FileStatus::Copied => patch.old_path.clone(),
        _ => None,
    };
    FileFacts {
        path: patch.path().to_owned(),
        old_path,
        status: patch.status,
        binary: patch.binary,
        added: patch.added(),
        removed: patch.removed(),
        hunks: patch
            .hunks
            .iter()
            .map(|h| HunkFacts {
                old_start: h.old_start,
                old_lines: h.old_lines,
                new_start: h.new_start,
                new_lines: h.new_lines,
                added_lines: h
                    .lines
                    .iter()
                    .filter(|l| l.kind() == LineKind::Added)
                    .filter_map(|l| l.new_line())
                    .collect(),
            })
            .collect(),
    }
}
