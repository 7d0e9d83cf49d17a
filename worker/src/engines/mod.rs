//! Review engines: what turns a lane job into a lane report. Pluggable
//! behind [`Engine`]; chosen per lane by the job's `engine` field.
//!
//! An engine reviews a lane as a future, so a worker runs many lanes of a
//! network engine at once without a thread each; CPU-bound engines (the
//! built-in rules) move their work to a blocking thread themselves.
//! Dropping the future abandons the lane at once (a command is killed, a
//! request in flight is cancelled): that is how a cancelled review, a lost
//! lease, a passed deadline or a drain that runs out stops a lane.

pub mod bench;
pub mod command_env;
pub mod exec;
pub mod lint;
pub mod llm;
pub mod rules;

use revu_domain::bundle::ReviewBundle;
use revu_domain::diff::{Diff, FilePatch};
use revu_domain::finding::{Dimension, Finding};
use revu_domain::lane::{FaultKind, LaneJob, LaneKind, LaneReportBody, Usage};
use revu_domain::retry::{Retry, Retryable};
use rules::{Rule, all_rules};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A review's stored bundle with its diff parsed, shared by its lanes.
#[derive(Debug, Clone)]
pub struct LoadedReview {
    pub bundle: Arc<ReviewBundle>,
    /// The bundle's diff, parsed ([`ReviewBundle::parsed_diff`]).
    pub diff: Arc<Diff>,
    /// The built-in rules' findings per file, shared by the lanes that
    /// read this review in this process.
    rule_findings: Arc<rules::memo::FileFindings>,
    /// The linters' findings on every file of the change, run once per
    /// process by the first model lane that shows them.
    linted: Arc<tokio::sync::OnceCell<Vec<Finding>>>,
}

impl LoadedReview {
    pub fn new(bundle: Arc<ReviewBundle>, diff: Arc<Diff>) -> Self {
        LoadedReview {
            bundle,
            diff,
            rule_findings: Arc::default(),
            linted: Arc::default(),
        }
    }
}

/// What an engine sees of a lane. Cheap to clone, and owned, so that an
/// engine can take it to another task or thread.
#[derive(Debug, Clone)]
pub struct LaneInput {
    pub job: Arc<LaneJob>,
    pub review: Arc<LoadedReview>,
    /// Where a model engine records what it spends, request by request.
    pub meter: Arc<Meter>,
    /// What the review's lanes have spent together, for an engine that
    /// keeps to the review's token cap (`LaneJob::token_cap`); `None`
    /// where nothing keeps the count.
    pub ledger: Option<Arc<dyn Ledger>>,
}

/// A boxed future of a [`Ledger`]: the new total, or the store's error
/// (which says whether charging again may work).
pub type Charge<'a> =
    Pin<Box<dyn Future<Output = Result<u64, revu_queue::QueueError>> + Send + 'a>>;

/// The tokens one review's lanes have spent together, kept where every
/// worker sees it (the review store).
pub trait Ledger: Send + Sync + std::fmt::Debug {
    /// Adds `tokens` (negative to give back a reservation) to the review's
    /// spend and returns the new total.
    fn charge(&self, tokens: i64) -> Charge<'_>;
}

/// What a lane's engine spent on a model service, recorded as it goes, so
/// that what a failed or abandoned attempt spent still counts; and which
/// of its requests failed, by fault class.
#[derive(Debug, Default)]
pub struct Meter {
    spent: Mutex<Option<Usage>>,
    failed: Mutex<Vec<FaultKind>>,
}

impl Meter {
    /// One request that took `latency`, with the tokens its answer
    /// reported in `tokens` (all 0 when it reported none; the model and
    /// the token counts are read from it, the rest set here). With the
    /// model's `price`, it records what the tokens cost.
    pub fn record(&self, tokens: Usage, latency: Duration, price: &Option<llm::price::Price>) {
        let request = Usage {
            requests: 1,
            latency_ms: u64::try_from(latency.as_millis()).unwrap_or(u64::MAX),
            cost_usd: price.map(|p| p.cost(&tokens.tokens)),
            ..tokens
        };
        let mut total = self.spent.lock().unwrap_or_else(|p| p.into_inner());
        *total = Some(total.take().unwrap_or_default().plus(&request));
    }

    /// One recorded request failed, for a reason of class `kind`.
    pub fn failed(&self, kind: FaultKind) {
        self.failed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(kind);
    }

    /// Everything recorded, if anything was.
    pub fn total(&self) -> Option<Usage> {
        self.spent.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The fault classes of the requests that failed, in order.
    pub fn failures(&self) -> Vec<FaultKind> {
        self.failed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}

/// The input of a first attempt at `lane` over `patch` with `intent`, for
/// the engines' tests.
#[cfg(test)]
pub(crate) fn patch_input(
    lane: revu_domain::lane::LaneSpec,
    patch: &[u8],
    intent: &str,
) -> LaneInput {
    let diff = revu_domain::diff::parse(patch).unwrap_or_else(|e| panic!("{e}"));
    let job = LaneJob::new(
        revu_domain::lane::ReviewId::new(),
        lane,
        1,
        u64::MAX,
        Vec::new(),
    );
    let bundle = ReviewBundle {
        diff: patch.to_vec().into(),
        intent: intent.to_owned(),
        ..ReviewBundle::default()
    };
    LaneInput::new(
        Arc::new(job),
        Arc::new(LoadedReview::new(Arc::new(bundle), Arc::new(diff))),
    )
}

impl LaneInput {
    /// The input of `job` over `review`, with a fresh meter.
    pub fn new(job: Arc<LaneJob>, review: Arc<LoadedReview>) -> Self {
        LaneInput {
            job,
            review,
            meter: Arc::default(),
            ledger: None,
        }
    }

    pub fn diff(&self) -> &Diff {
        &self.review.diff
    }

    pub fn bundle(&self) -> &ReviewBundle {
        &self.review.bundle
    }

    /// What the linters found in this lane's files, once a lane of this
    /// review has run them ([`lint::Linters::run_once`]); else nothing.
    pub fn linted(&self) -> Vec<&Finding> {
        let Some(all) = self.review.linted.get() else {
            return Vec::new();
        };
        let files: std::collections::HashSet<&str> =
            self.job.lane.files.iter().map(String::as_str).collect();
        all.iter()
            .filter(|f| files.contains(f.file.as_str()))
            .collect()
    }

    /// The patches of the files this lane reviews, in diff order: looked
    /// up in the review's path index, made once for all its lanes, rather
    /// than by reading every path of the diff for each lane.
    pub fn lane_files(&self) -> Vec<&FilePatch> {
        let diff = &self.review.diff;
        self.review
            .rule_findings
            .indexes(diff, &self.job.lane.files)
            .into_iter()
            .filter_map(|i| diff.files.get(i))
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
    pub retry: Retry,
    pub reason: String,
    /// How long the engine's service asked to be left alone (a rate
    /// limit's `Retry-After`); the next attempt waits at least this long.
    pub wait: Option<Duration>,
}

impl EngineError {
    pub fn transient(kind: FaultKind, reason: impl Into<String>) -> Self {
        EngineError {
            kind,
            retry: Retry::Transient,
            reason: reason.into(),
            wait: None,
        }
    }

    pub fn permanent(kind: FaultKind, reason: impl Into<String>) -> Self {
        EngineError {
            retry: Retry::Permanent,
            ..Self::transient(kind, reason)
        }
    }

    /// The same error, asking the next attempt to wait at least `after`.
    pub fn waiting(mut self, after: Duration) -> Self {
        self.wait = Some(after);
        self
    }
}

impl Retryable for EngineError {
    fn retry(&self) -> Retry {
        self.retry
    }

    fn retry_after(&self) -> Option<Duration> {
        self.wait
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

/// A lane review in progress.
pub type Review<'a> = Pin<Box<dyn Future<Output = Result<EngineOutput, EngineError>> + Send + 'a>>;

/// A review engine.
pub trait Engine: Send + Sync + std::fmt::Debug {
    fn name(&self) -> &str;
    /// Reviews a lane without blocking the async runtime. Dropping the
    /// future abandons the lane and must stop whatever it started.
    fn review(&self, input: LaneInput) -> Review<'_>;
    /// The model this engine asks, for an engine that asks one.
    fn model(&self) -> Option<&str> {
        None
    }

    /// What decides this engine's answers besides the lane: its version,
    /// prompt and settings (the rules engine: what its rules are), for the
    /// lane result cache. `None` (the default) keeps its lanes out of the
    /// cache: an engine whose behaviour revu cannot pin down (an external
    /// command) always runs.
    fn cache_identity(&self) -> Option<String> {
        None
    }
}

/// The built-in deterministic rules. A domain lane runs every rule on its
/// slice; a specialist lane runs the rules of its dimension on every file;
/// the adjudication lane re-runs the rule behind each candidate (see
/// [`rules::adjudicator`]).
pub struct RulesEngine {
    rules: Arc<Vec<Box<dyn Rule>>>,
    /// What the rules are, digested ([`rules::digest`]): their part of the
    /// engine's cache identity.
    digest: String,
    /// The linters run on domain lanes beside the rules, when on.
    linters: Option<Arc<lint::Linters>>,
}

impl std::fmt::Debug for RulesEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RulesEngine")
            .field("rules", &self.rules.len())
            .field("linters", &self.linters.is_some())
            .finish()
    }
}

impl Default for RulesEngine {
    fn default() -> Self {
        RulesEngine::of(all_rules())
    }
}

impl RulesEngine {
    /// The engine over `rules`, without linters.
    fn of(rules: Vec<Box<dyn Rule>>) -> Self {
        RulesEngine {
            digest: rules::digest(&rules),
            rules: Arc::new(rules),
            linters: None,
        }
    }

    /// The engine over a catalogue of the tests' own.
    #[cfg(test)]
    pub(crate) fn with_rules(rules: Vec<Box<dyn Rule>>) -> Self {
        RulesEngine::of(rules)
    }

    /// The rules, with the linters `settings` turn on.
    pub fn with_linters(settings: &lint::LintSettings) -> Self {
        RulesEngine {
            linters: lint::Linters::new(settings).map(Arc::new),
            ..RulesEngine::default()
        }
    }
}

impl Engines {
    /// The built-in engines with the linters `settings` turn on: `rules`
    /// (the rules and the linters) and, when on, `lint` (the linters
    /// alone).
    pub fn built_in(settings: &lint::LintSettings) -> Self {
        let rules = RulesEngine::with_linters(settings);
        let lint = rules.linters.clone();
        let engines = Engines::default().with(Arc::new(rules));
        match lint {
            Some(linters) => engines.with(Arc::new(lint::LintEngine::new(linters))),
            None => engines,
        }
    }
}

impl Engine for RulesEngine {
    fn name(&self) -> &'static str {
        "rules"
    }

    fn cache_identity(&self) -> Option<String> {
        let linters = self
            .linters
            .as_ref()
            .map_or_else(|| "off".to_owned(), |l| l.identity());
        Some(format!(
            "rules/{}/{}/linters {linters}",
            env!("CARGO_PKG_VERSION"),
            self.digest
        ))
    }

    /// One pass over the lane's added lines, on a blocking thread (a large
    /// diff takes a while). An abandoned lane's pass still runs to its end:
    /// it is bounded and spends nothing but CPU.
    fn review(&self, input: LaneInput) -> Review<'_> {
        let rules = self.rules.clone();
        Box::pin(async move {
            let linting = matches!(input.job.lane.kind, LaneKind::Domain { .. });
            let lane = input.clone();
            let output = tokio::task::spawn_blocking(move || run_rules(&rules, &lane))
                .await
                .map_err(|e| {
                    EngineError::transient(FaultKind::Crash, format!("rules engine crashed: {e}"))
                })?;
            match (&self.linters, output) {
                (Some(linters), EngineOutput::Body(mut body)) if linting => {
                    let linted = linters.run(&input).await;
                    if !linted.checks.is_empty() {
                        body.summary
                            .push_str(&format!(" Linters: {} finding(s).", linted.findings.len()));
                    }
                    body.checks.extend(linted.checks);
                    rules::same_root::merge(&mut body.findings, linted.findings);
                    body.findings.sort_by(|a, b| {
                        (&a.file, a.line, &a.rule).cmp(&(&b.file, b.line, &b.rule))
                    });
                    Ok(EngineOutput::Body(body))
                }
                (_, output) => Ok(output),
            }
        })
    }
}

/// The lane report of the rules on `input`.
fn run_rules(rules: &[Box<dyn Rule>], input: &LaneInput) -> EngineOutput {
    let job = &input.job;
    match job.lane.kind {
        LaneKind::Adjudication | LaneKind::Challenge => {
            return EngineOutput::Body(rules::adjudicator::adjudicate(
                rules,
                &job.candidates,
                input.diff(),
                input.bundle().code_index.as_ref(),
                Some(&input.bundle().head_files),
            ));
        }
        LaneKind::Grouping => return EngineOutput::Body(rules::phases::group(&job.proposal)),
        LaneKind::Synthesis => {
            return EngineOutput::Body(rules::phases::synthesize(input.diff(), &job.candidates));
        }
        LaneKind::Domain { .. } | LaneKind::Specialist { .. } => {}
    }
    let diff = input.diff();
    let index = input.bundle().code_index.as_ref();
    let memo = &input.review.rule_findings;
    let files = memo.indexes(diff, &job.lane.files);
    let dimensions: &[Dimension] = match &job.lane.kind {
        LaneKind::Specialist { dimension } => std::slice::from_ref(dimension),
        _ => &Dimension::ALL,
    };
    let selected: Vec<&dyn Rule> = rules
        .iter()
        .map(|r| r.as_ref())
        .filter(|r| dimensions.contains(&r.dimension()))
        .collect();
    let mut findings: Vec<Finding> = Vec::new();
    for &file in &files {
        let reading = rules::memo::Reading {
            diff,
            index,
            heads: Some(&input.bundle().head_files),
        };
        memo.extend(rules, reading, file, dimensions, &mut findings);
    }
    findings.sort_by(|a, b| (&a.file, a.line, &a.rule).cmp(&(&b.file, b.line, &b.rule)));
    let summary = format!(
        "{} rule(s) over {} file(s): {} finding(s).",
        selected.len(),
        files.len(),
        findings.len()
    );
    EngineOutput::Body(LaneReportBody {
        reviewed: files
            .iter()
            .filter_map(|&i| diff.files.get(i))
            .map(|f| f.path().to_owned())
            .collect(),
        checks: selected.iter().map(|r| r.code().to_owned()).collect(),
        findings,
        summary,
        ..LaneReportBody::default()
    })
}

/// The engines a worker offers, by name. Cloning shares the engines.
#[derive(Debug, Clone)]
pub struct Engines {
    engines: Vec<Arc<dyn Engine>>,
}

impl Default for Engines {
    /// The rules, and `noop` for measuring the pipeline.
    fn default() -> Self {
        Engines {
            engines: vec![
                Arc::new(RulesEngine::default()),
                Arc::new(bench::BenchEngine::noop()),
            ],
        }
    }
}

impl Engines {
    /// The names of the engines, the job streams this worker reads.
    pub fn names(&self) -> Vec<String> {
        self.engines.iter().map(|e| e.name().to_owned()).collect()
    }

    /// `(engine, model)` of each engine that asks a model.
    pub fn models(&self) -> Vec<(String, String)> {
        self.engines
            .iter()
            .filter_map(|e| e.model().map(|m| (e.name().to_owned(), m.to_owned())))
            .collect()
    }

    pub fn get(&self, name: &str) -> Option<Arc<dyn Engine>> {
        self.engines.iter().find(|e| e.name() == name).cloned()
    }

    pub fn with(mut self, engine: Arc<dyn Engine>) -> Self {
        self.engines.retain(|e| e.name() != engine.name());
        self.engines.push(engine);
        self
    }
}
