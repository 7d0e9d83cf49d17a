//! Blast radius, as the review contract writes it, from the client's code
//! index: `N direct callers, M transitive importers` for each finding (the
//! callers of the innermost symbol around its line, the importers of its
//! file), or `graph unavailable -- severity based on code analysis only`
//! when the review has no index or the index cannot read the file. Then the
//! contract's elevation rule: an IMPORTANT finding the change caused, in a
//! file with 50 or more transitive importers, is raised to BLOCKER, and
//! its `why` says so.
//!
//! Elevation weighs what the code does at the finding's line, so it leaves
//! alone what it cannot weigh that way: a meta finding (a missing test, a
//! file's size), one below the IMPORTANT confidence floor, and a linter's
//! finding, whose severity is the linter's own rating of its rule.

use crate::verify::Verified;
use revu_domain::bundle::ReviewBundle;
use revu_domain::code_index::{ELEVATE_AT_IMPORTERS, GRAPH_UNAVAILABLE, describe_radius};
use revu_domain::finding::{BlastRadius, Finding, Severity};

pub fn apply(verified: &mut Verified, bundle: &ReviewBundle) {
    let index = bundle.code_index.as_ref();
    for f in &mut verified.findings {
        let Some((callers, importers)) = index.and_then(|i| i.blast_radius(&f.file, f.line)) else {
            f.blast_radius = BlastRadius::Described(GRAPH_UNAVAILABLE.to_owned());
            continue;
        };
        f.blast_radius = BlastRadius::Described(describe_radius(callers, importers));
        if importers >= ELEVATE_AT_IMPORTERS && elevates(f) {
            f.severity = Severity::Blocker;
            f.why = format!(
                "Raised from IMPORTANT to BLOCKER: {importers} transitive importers, \
                 {ELEVATE_AT_IMPORTERS} or more. {}",
                f.why
            );
            verified.stats.elevated += 1;
        }
    }
    if verified.stats.elevated > 0 {
        crate::verify::sort_in_report_order(&mut verified.findings);
    }
}

/// Whether the elevation rule may raise `f`.
fn elevates(f: &Finding) -> bool {
    f.severity == Severity::Important
        && !f.pre_existing
        && !f.meta
        && f.confidence >= Severity::Important.confidence_floor()
        && !f.is_linter_finding()
}
