//! The entry points of the fuzz targets (`fuzz/`) and of the tests that run
//! their corpus on the stable toolchain (`stages/tests/suite/fuzz_corpus.rs`).
//! Each takes arbitrary bytes, runs one reader of untrusted input and what
//! consumes its output, and must return without panicking whatever the
//! bytes: a reader answers bad input with an error, never a crash.

use crate::completeness::{self, Expected};
use crate::conventions::RepoContext;
use crate::conventions::repo_config::RepoConfig;
use crate::conventions::review_md::ReviewMd;
use crate::render;
use revu_domain::facts::Facts;
use revu_domain::lane::LaneReport;
use revu_domain::report::Report;

/// A target's entry point.
pub type Target = fn(&[u8]);

/// Every target, by the name of its corpus directory.
pub const TARGETS: &[(&str, Target)] = &[
    ("diff", diff),
    ("review_md", review_md),
    ("repo_config", repo_config),
    ("report", report),
    ("lane_report", lane_report),
];

/// The diff reader (as git reads a patch) and the facts drawn from it. Its
/// one-pass twin, [`Facts::scan`], must agree with it on every input: the
/// same facts, or the same error at the same place.
pub fn diff(data: &[u8]) {
    let parsed = revu_domain::diff::parse(data).map(|d| Facts::from_diff(&d));
    let scanned = Facts::scan(data);
    assert_eq!(
        parsed, scanned,
        "Facts::scan disagrees with parse + from_diff"
    );
}

/// The `REVIEW.md` reader.
pub fn review_md(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let parsed = ReviewMd::parse(&text);
    let _ = parsed.guidance.len();
    let _ = RepoContext::load(Some(&text), None).map(|c| c.report());
}

/// The `revu.toml` reader.
pub fn repo_config(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let _ = RepoConfig::parse(&text);
    let _ = RepoContext::load(None, Some(&text)).map(|c| c.report());
}

/// The canonical report decoder, and every renderer over what it accepts.
pub fn report(data: &[u8]) {
    if let Ok(report) = serde_json::from_slice::<Report>(data) {
        let _ = render::markdown(&report);
        let _ = render::sarif(&report);
        let _ = render::rdjson(&report);
        let _ = serde_json::to_string(&report);
    }
}

/// The lane report decoder: the message a worker sends, and the body's
/// completeness gate for every kind of lane.
pub fn lane_report(data: &[u8]) {
    let _ = serde_json::from_slice::<LaneReport>(data);
    let Ok(body) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    for expected in [
        Expected::Review,
        Expected::Decisions { candidates: 2 },
        Expected::Slices,
        Expected::Walkthrough,
    ] {
        if let Ok(mut checked) = completeness::check(&body, expected) {
            completeness::attribute(&mut checked, "fuzz");
        }
    }
    let _ = completeness::salvage(&body);
}
