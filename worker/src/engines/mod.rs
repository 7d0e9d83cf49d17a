//! Review engines: what turns a lane job into a lane report. Pluggable
//! behind [`Engine`]; chosen per lane by the job's `engine` field.

pub mod exec;
pub mod rules;

use revu_common::bundle::ReviewBundle;
use revu_common::diff::{Diff, FilePatch};
use revu_common::finding::Finding;
use revu_common::lane::{FaultKind, LaneJob, LaneKind, LaneReportBody};
use rules::{Rule, RuleContext, all_rules};

/// What an engine sees of a lane.
#[derive(Debug, Clone, Copy)]
pub struct LaneInput<'a> {
    pub job: &'a LaneJob,
    pub diff: &'a Diff,
    pub bundle: &'a ReviewBundle,
}

impl<'a> LaneInput<'a> {
    /// The patches of the files this lane reviews, in diff order.
    pub fn lane_files(&self) -> Vec<&'a FilePatch> {
        let files = &self.job.lane.files;
        self.diff
            .files
            .iter()
            .filter(|p| files.iter().any(|f| f == p.path()))
            .collect()
    }
}

/// Why an engine produced no report.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct EngineError {
    pub kind: FaultKind,
    /// Whether another attempt may succeed (timeouts, rate limits,
    /// crashes), or will fail the same way (bad input, misconfiguration).
    pub transient: bool,
    pub reason: String,
}

impl EngineError {
    pub fn transient(kind: FaultKind, reason: impl Into<String>) -> Self {
        EngineError {
            kind,
            transient: true,
            reason: reason.into(),
        }
    }

    pub fn permanent(kind: FaultKind, reason: impl Into<String>) -> Self {
        EngineError {
            kind,
            transient: false,
            reason: reason.into(),
        }
    }
}

/// What an engine hands back for a lane.
#[derive(Debug, Clone, PartialEq)]
pub enum EngineOutput {
    /// A report built by revu's own code.
    Body(LaneReportBody),
    /// A report as an outside program wrote it, not yet validated.
    Raw(serde_json::Value),
}

/// A review engine.
pub trait Engine: Send + Sync + std::fmt::Debug {
    fn name(&self) -> &str;
    /// Reviews a lane. Runs on a blocking thread.
    fn review(&self, input: &LaneInput<'_>) -> Result<EngineOutput, EngineError>;
    /// Abandons the lanes in hand at once (the worker is giving them up).
    fn stop(&self) {}
}

/// The built-in deterministic rules. A domain lane runs every rule on its
/// slice; a specialist lane runs the rules of its dimension on every file;
/// the adjudication lane re-runs the rule behind each candidate (see
/// [`rules::adjudicator`]).
pub struct RulesEngine {
    rules: Vec<Box<dyn Rule>>,
}

impl std::fmt::Debug for RulesEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RulesEngine")
            .field("rules", &self.rules.len())
            .finish()
    }
}

impl Default for RulesEngine {
    fn default() -> Self {
        RulesEngine { rules: all_rules() }
    }
}

impl Engine for RulesEngine {
    fn name(&self) -> &'static str {
        "rules"
    }

    fn review(&self, input: &LaneInput<'_>) -> Result<EngineOutput, EngineError> {
        if input.job.lane.kind == LaneKind::Adjudication {
            return Ok(EngineOutput::Body(rules::adjudicator::adjudicate(
                &self.rules,
                &input.job.candidates,
                input.diff,
            )));
        }
        let files = input.lane_files();
        let ctx = RuleContext {
            files: &files,
            change: &input.diff.files,
        };
        let selected: Vec<&dyn Rule> = self
            .rules
            .iter()
            .map(|r| r.as_ref())
            .filter(|r| match &input.job.lane.kind {
                LaneKind::Domain { .. } | LaneKind::Adjudication => true,
                LaneKind::Specialist { dimension } => r.dimension() == *dimension,
            })
            .collect();
        let mut findings: Vec<Finding> = Vec::new();
        for rule in &selected {
            rule.check(&ctx, &mut findings);
        }
        findings.sort_by(|a, b| (&a.file, a.line, &a.rule).cmp(&(&b.file, b.line, &b.rule)));
        let summary = format!(
            "{} rule(s) over {} file(s): {} finding(s).",
            selected.len(),
            files.len(),
            findings.len()
        );
        Ok(EngineOutput::Body(LaneReportBody {
            reviewed: files.iter().map(|f| f.path().to_owned()).collect(),
            checks: selected.iter().map(|r| r.code().to_owned()).collect(),
            findings,
            summary,
            decisions: Vec::new(),
        }))
    }
}

/// The engines a worker offers, by name.
#[derive(Debug)]
pub struct Engines {
    engines: Vec<Box<dyn Engine>>,
}

impl Default for Engines {
    fn default() -> Self {
        Engines {
            engines: vec![Box::new(RulesEngine::default())],
        }
    }
}

impl Engines {
    pub fn get(&self, name: &str) -> Option<&dyn Engine> {
        self.engines
            .iter()
            .find(|e| e.name() == name)
            .map(|e| e.as_ref())
    }

    /// Tells every engine to abandon the lanes it is running.
    pub fn stop_all(&self) {
        for engine in &self.engines {
            engine.stop();
        }
    }

    pub fn with(mut self, engine: Box<dyn Engine>) -> Self {
        self.engines.retain(|e| e.name() != engine.name());
        self.engines.push(engine);
        self
    }
}
