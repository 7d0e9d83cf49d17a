//! Verification: every finding re-checked against the diff and head contents.
//!
//! Checks run in a fixed order and each drop is counted once, under the first
//! check that fails, so that `kept + drops + merged == raised` always holds:
//!
//! 1. the file must be one the change touched;
//! 2. the line must exist on the head side (a `0`, the whole file, moves to
//!    the file's first changed line; a file with no head-side line, binary
//!    or deleted, is cited at line 1);
//! 3. the repo's conventions (`REVIEW.md` severity overrides, then allowed
//!    nits) set the severity the later checks judge; they never lower or
//!    silence a BLOCKER (see [`crate::conventions::apply`]);
//! 4. a finding on a line the change did not add, or one its engine marks
//!    `[pre-existing]` itself, is `pre_existing_line` (shown after
//!    `[pre-existing]`, never with the mark in its summary); below BLOCKER
//!    it is also `pre_existing`, which the verdict does not count;
//! 5. confidence must reach the floor of the severity;
//! 6. findings of one root cause merge, every dimension listed: the same
//!    rule on the same line, or, for a model's findings (whose rule names
//!    the lane), the same claim on overlapping lines ([`claims`]); other
//!    findings on one line stay apart and get a cross-cutting note.
use crate::conventions::ReviewMd;
use crate::conventions::apply::Outcome;
use revu_domain::bundle::ReviewBundle;
use revu_domain::diff::{Diff, FilePatch, FileStatus};
use revu_domain::finding::{Dimension, Finding, PRE_EXISTING_MARK, Severity};
use revu_domain::report::{ConventionEffect, VerificationStats};
use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeMap, BTreeSet};

/// What survives verification.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Verified {
    pub findings: Vec<Finding>,
    pub cross_cutting: Vec<String>,
    pub stats: VerificationStats,
    pub conventions: ConventionEffects,
}

/// What the repo's conventions did during verification.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConventionEffects {
    pub overrides: Vec<ConventionEffect>,
    pub nits: Vec<ConventionEffect>,
    /// Conventions refused because they would lower or silence a BLOCKER.
    pub protected: Vec<ConventionEffect>,
}

/// Checks citations, applies confidence floors, merges duplicates.
pub fn verify(raised: Vec<Finding>, diff: &Diff, bundle: &ReviewBundle) -> Verified {
    verify_with(raised, diff, bundle, &ReviewMd::default())
}

/// [`verify`], with the repository's conventions applied after the citation
/// checks.
pub fn verify_with(
    raised: Vec<Finding>,
    diff: &Diff,
    bundle: &ReviewBundle,
    conventions: &ReviewMd,
) -> Verified {
    let mut stats = VerificationStats {
        raised: raised.len(),
        ..Default::default()
    };
    let mut effects = ConventionEffects::default();
    let patches: BTreeMap<&str, &FilePatch> = diff.files.iter().map(|p| (p.path(), p)).collect();
    let mut survivors = Vec::new();
    let index = bundle.code_index.as_ref();
    for mut finding in raised {
        // Only verification says what is pre-existing, and only
        // adjudication what it lowered.
        finding.pre_existing = false;
        finding.pre_existing_line = false;
        finding.downgraded_from = None;
        // A use at head the client's index read as left behind by the
        // change (a stale caller of a renamed symbol) may be cited in a
        // file the change did not touch; it is caused by the change.
        let cited_use = index.is_some_and(|i| i.has_site(&finding.file, finding.line));
        let patch = patches.get(finding.file.as_str()).copied();
        // The patch whose lines the citation is checked against.
        let checked = patch.filter(|_| !cited_use);
        if patch.is_none() && !cited_use {
            stats.dropped_unknown_file += 1;
            continue;
        }
        let mut on_file = false;
        let mut whole_file = false;
        if let Some(patch) = checked {
            // A finding on the whole file cites its first changed line; a
            // file with no head-side line to show (binary, deleted) is
            // cited at line 1 and has no line to check.
            on_file = finding.line == 0;
            if on_file {
                finding.line = patch.anchor_line();
            }
            whole_file = patch.first_head_line().is_none() && finding.line == 1;
            let head = HeadSide::of(patch, bundle);
            if !whole_file && !head.has_line(finding.line) {
                stats.dropped_missing_line += 1;
                continue;
            }
            // A bad range is an imprecise citation, not a wrong one: keep
            // the line.
            if let Some(end) = finding.end_line
                && (whole_file || end < finding.line || !head.has_line(end))
            {
                finding.end_line = None;
            }
        } else {
            finding.end_line = None;
        }
        finding = match conventions.apply(finding) {
            Outcome::Kept(f) => f,
            Outcome::Overridden(f, e) => {
                stats.severity_overridden += 1;
                effects.overrides.push(e);
                f
            }
            Outcome::Suppressed(e) => {
                stats.dropped_allowed_nit += 1;
                effects.nits.push(e);
                continue;
            }
            Outcome::Protected(f, e) => {
                effects.protected.push(e);
                f
            }
        };
        // An engine may say itself that the change did not introduce the
        // problem (a model marks it, with its reason in `why`).
        let marked = finding.summary.starts_with(PRE_EXISTING_MARK);
        let untouched = checked
            .is_some_and(|patch| !whole_file && !on_file && !patch.is_added_line(finding.line));
        if untouched || marked {
            if finding.severity != Severity::Blocker {
                finding.pre_existing = true;
            }
            finding.pre_existing_line = true;
            // An engine that wrote the mark itself: shown once, from the field.
            if let Some(rest) = finding.summary.strip_prefix(PRE_EXISTING_MARK) {
                finding.summary = rest.to_owned();
            }
        }
        if finding.confidence < finding.severity.confidence_floor() {
            stats.dropped_low_confidence += 1;
            continue;
        }
        stats.pre_existing += usize::from(finding.pre_existing);
        survivors.push(finding);
    }

    let groups = claims::group(survivors);
    let mut findings = Vec::with_capacity(groups.len());
    let mut rules_on_line: BTreeMap<(String, u32), Vec<String>> = BTreeMap::new();
    for group in groups {
        let Some(first) = group.first() else {
            continue;
        };
        let (file, line, rule) = (first.file.clone(), first.line, first.rule.clone());
        stats.merged_duplicates += group.len() - 1;
        // A file with no head-side line (binary, deleted) has no line of
        // code two findings could share.
        let has_lines = patches
            .get(file.as_str())
            .is_some_and(|p| p.first_head_line().is_some());
        if line != 0 && has_lines {
            rules_on_line.entry((file, line)).or_default().push(rule);
        }
        findings.extend(merge(group));
    }
    sort_in_report_order(&mut findings);
    stats.kept = findings.len();

    // Whole-file findings (line 0) are left out: several issues with one file
    // are expected, several on one line are worth pointing out.
    let cross_cutting = rules_on_line
        .into_iter()
        .filter(|(_, rules)| rules.len() > 1)
        .map(|((file, line), rules)| {
            format!(
                "{file}:{line}: {} distinct issues ({})",
                rules.len(),
                rules.join(", ")
            )
        })
        .collect();
    // Several lanes raise the same finding: list each effect once, in an
    // order that does not depend on lane order.
    for list in [
        &mut effects.overrides,
        &mut effects.nits,
        &mut effects.protected,
    ] {
        list.sort_by(|a, b| effect_key(a).cmp(&effect_key(b)));
        list.dedup();
    }
    Verified {
        findings,
        cross_cutting,
        stats,
        conventions: effects,
    }
}

/// Most severe first, then by file, line and rule.
pub(crate) fn sort_in_report_order(findings: &mut [Finding]) {
    findings.sort_by(|a, b| {
        (Reverse(a.severity), &a.file, a.line, &a.rule).cmp(&(
            Reverse(b.severity),
            &b.file,
            b.line,
            &b.rule,
        ))
    });
}

fn effect_key(e: &ConventionEffect) -> (&str, &str, &str, Severity, Option<Severity>) {
    (&e.citation, &e.rule, &e.convention, e.from, e.to)
}

/// Whether the review holds the text of `file:line` for a reader to check:
/// a line of a changed file at head, of a head file the client sent, or
/// one the code index carries (a caller, a test, a stale use).
pub fn holds_line(diff: &Diff, bundle: &ReviewBundle, file: &str, line: u32) -> bool {
    let changed = diff
        .files
        .iter()
        .find(|p| p.path() == file)
        .is_some_and(|p| HeadSide::of(p, bundle).has_line(line));
    changed
        || bundle.head_files.get(file).is_some_and(|bytes| {
            line >= 1 && usize::try_from(line).is_ok_and(|l| l <= line_count(bytes))
        })
        || bundle
            .code_index
            .as_ref()
            .is_some_and(|index| index.shows_line(file, line))
}

/// The head side of one changed file, as far as the coordinator can see it.
enum HeadSide<'a> {
    /// Deleted: nothing but the whole file can be cited.
    Gone,
    /// Full contents were sent: any line of the file exists.
    Lines(usize),
    /// Only the hunks are known: added and context lines exist.
    Hunks(&'a FilePatch),
}

impl<'a> HeadSide<'a> {
    fn of(patch: &'a FilePatch, bundle: &ReviewBundle) -> HeadSide<'a> {
        if patch.status == FileStatus::Deleted || patch.new_path.is_none() {
            return HeadSide::Gone;
        }
        match bundle.head_files.get(patch.path()) {
            Some(bytes) => HeadSide::Lines(line_count(bytes)),
            None => HeadSide::Hunks(patch),
        }
    }

    fn has_line(&self, line: u32) -> bool {
        match self {
            HeadSide::Gone => false,
            HeadSide::Lines(n) => line >= 1 && usize::try_from(line).is_ok_and(|l| l <= *n),
            HeadSide::Hunks(patch) => patch.has_head_line(line),
        }
    }
}

/// Lines in `bytes` as `str::lines` counts them: a last line without a
/// newline counts, a trailing newline opens none.
fn line_count(bytes: &[u8]) -> usize {
    let newlines = bytes.iter().filter(|&&b| b == b'\n').count();
    newlines + usize::from(bytes.last().is_some_and(|&b| b != b'\n'))
}

/// Folds one root cause into one finding. Which copy lends its text is fixed
/// by [`precedence`], so the result does not depend on lane order.
fn merge(mut group: Vec<Finding>) -> Option<Finding> {
    group.sort_by(precedence);
    let mut merged = group.first()?.clone();
    if group.len() == 1 {
        return Some(merged);
    }
    let dims: BTreeSet<Dimension> = group
        .iter()
        .flat_map(|f| std::iter::once(f.dimension).chain(f.dimensions.iter().copied()))
        .collect();
    merged.dimension = dims.first().copied().unwrap_or(merged.dimension);
    merged.dimensions = if dims.len() > 1 {
        dims.into_iter().collect()
    } else {
        Vec::new()
    };
    merged.confidence = group
        .iter()
        .map(|f| f.confidence)
        .max()
        .unwrap_or(merged.confidence);
    merged.blast_radius = group
        .iter()
        .map(|f| f.blast_radius.clone())
        .max()
        .unwrap_or_else(|| merged.blast_radius.clone());
    let said: BTreeSet<(Reverse<Severity>, Dimension)> = group
        .iter()
        .map(|f| (Reverse(f.severity), f.dimension))
        .collect();
    if group.iter().any(|f| f.severity != merged.severity) {
        let voices: Vec<String> = said
            .iter()
            .map(|(Reverse(sev), dim)| format!("{dim} said {sev}"))
            .collect();
        let note = format!(
            "(Severity disagreement: {}; kept {}.)",
            voices.join(", "),
            merged.severity
        );
        if !merged.why.is_empty() {
            merged.why.push(' ');
        }
        merged.why.push_str(&note);
    }
    Some(merged)
}

/// A total order on findings, most severe and most confident first; the
/// remaining fields only break ties so that equal inputs give equal output.
fn precedence(a: &Finding, b: &Finding) -> Ordering {
    let key = |f: &Finding| {
        (
            Reverse(f.severity),
            Reverse(f.confidence),
            f.dimension,
            f.blast_radius.clone(),
            f.end_line,
        )
    };
    // Among equals, the copy that says most (a lane that merged other
    // tools' findings into it says so in its `why`).
    key(a)
        .cmp(&key(b))
        .then_with(|| b.why.len().cmp(&a.why.len()))
        .then_with(|| {
            (&a.summary, &a.why, &a.fix, &a.dimensions).cmp(&(
                &b.summary,
                &b.why,
                &b.fix,
                &b.dimensions,
            ))
        })
}

mod claims;

#[cfg(test)]
mod tests;
