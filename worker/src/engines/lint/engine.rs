//! The linters alone as an engine, `lint`: for a fleet that routes its
//! domain lanes (`--lane-engine 'domain:*=lint'`) to workers that carry
//! the tools, apart from the rules. Lanes of other kinds get a clean
//! report saying that linters run on domain lanes.

use super::Linters;
use crate::engines::{Engine, EngineOutput, LaneInput, Review};
use revu_domain::lane::{LaneKind, LaneReportBody};
use std::sync::Arc;

/// The name lanes route by.
pub const LINT_ENGINE: &str = "lint";

#[derive(Debug)]
pub struct LintEngine {
    linters: Arc<Linters>,
}

impl LintEngine {
    pub fn new(linters: Arc<Linters>) -> Self {
        LintEngine { linters }
    }
}

impl Engine for LintEngine {
    fn name(&self) -> &str {
        LINT_ENGINE
    }

    fn cache_identity(&self) -> Option<String> {
        Some(format!(
            "lint/{} {}",
            env!("CARGO_PKG_VERSION"),
            self.linters.identity()
        ))
    }

    fn review(&self, input: LaneInput) -> Review<'_> {
        Box::pin(async move {
            let reviewed: Vec<String> = input.job.lane.files.clone();
            if !matches!(input.job.lane.kind, LaneKind::Domain { .. }) {
                return Ok(EngineOutput::Body(LaneReportBody {
                    reviewed,
                    checks: vec!["linters run on domain lanes only".to_owned()],
                    summary: "nothing to lint on this lane.".to_owned(),
                    ..LaneReportBody::default()
                }));
            }
            let linted = self.linters.run(&input).await;
            let summary = if linted.checks.is_empty() {
                "no linter reads these files.".to_owned()
            } else {
                format!("{} finding(s) from the linters.", linted.findings.len())
            };
            let checks = if linted.checks.is_empty() {
                vec!["no linter reads these files".to_owned()]
            } else {
                linted.checks
            };
            Ok(EngineOutput::Body(LaneReportBody {
                reviewed,
                checks,
                findings: linted.findings,
                summary,
                ..LaneReportBody::default()
            }))
        })
    }
}
