//! What the review service tells the operator: the spans of a review's
//! trace and the coordinator's metrics. Kept apart so the service code
//! reads as the pipeline it is.

use super::Coordinator;
use revu_domain::clock::Clock;
use revu_domain::lane::{FaultKind, LaneJob, LaneReport, LaneSpec, ReviewId};
use revu_domain::report::{LaneOutcome, Report};
use revu_domain::review::{LaneEnd, LaneResult, ReviewRecord};
use revu_domain::telemetry::MessagingTarget;
use revu_domain::telemetry::names::{attr, span};
use revu_queue::{JobQueue, ReviewStore};
use revu_runtime::metrics::{LaneLabels, ReasonLabels};
use revu_runtime::telemetry::{set_remote_parent, traceparent};
use std::time::Duration;
use tracing::Span;
use tracing::field::Empty;

/// A lane outcome as a metric label and span attribute.
fn outcome_label(outcome: LaneOutcome) -> &'static str {
    match outcome {
        LaneOutcome::Complete => "complete",
        LaneOutcome::Incomplete => "incomplete",
        LaneOutcome::PipelineFault => "pipeline_fault",
        LaneOutcome::Cancelled => "cancelled",
    }
}

fn kind_fields(spec: &LaneSpec) -> (Option<&str>, Option<&str>) {
    spec.kind.domain_and_dimension()
}

/// The producer span of one lane attempt, a child of the current span.
/// Puts its trace context into the job, for the worker's consumer span.
pub(super) fn publish_span(job: &mut LaneJob, target: &MessagingTarget) -> Span {
    let (domain, dimension) = kind_fields(&job.lane);
    let s = tracing::info_span!(
        span::PUBLISH,
        otel.kind = "producer",
        { attr::MESSAGING_SYSTEM } = target.system,
        { attr::MESSAGING_OPERATION } = "send",
        { attr::MESSAGING_DESTINATION } = %target.stream_of(&job.lane.engine),
        { attr::REVIEW_ID } = %job.review_id,
        { attr::LANE_ID } = %job.lane.id,
        { attr::LANE_KIND } = job.lane.kind.label(),
        { attr::LANE_DOMAIN } = domain,
        { attr::LANE_DIMENSION } = dimension,
        { attr::ENGINE } = %job.lane.engine,
        { attr::ATTEMPT } = job.attempt,
        { attr::OUTCOME } = Empty,
    );
    job.traceparent = traceparent(&s);
    s
}

/// The span of finalizing `record`. Like every span of work done on a
/// review after its submission, it continues the review's trace from the
/// stored root context rather than from whatever span is current.
pub(super) fn finalize_span(record: &ReviewRecord) -> Span {
    let s = tracing::info_span!(
        parent: None,
        span::FINALIZE,
        { attr::REVIEW_ID } = %record.id,
        { attr::LANE_COUNT } = record.plan.lanes.len(),
        { attr::VERDICT } = Empty,
        { attr::GATE } = Empty,
    );
    set_remote_parent(&s, record.traceparent.as_deref(), None);
    s
}

/// The span of handling one lane report of `record`.
pub(super) fn gather_span(record: &ReviewRecord, report: &LaneReport) -> Span {
    let spec = record.plan.lanes.iter().find(|l| l.id == report.lane_id);
    let s = tracing::info_span!(
        parent: None,
        span::GATHER,
        { attr::REVIEW_ID } = %record.id,
        { attr::LANE_ID } = %report.lane_id,
        { attr::LANE_KIND } = spec.map(|l| l.kind.label()),
        { attr::ENGINE } = %report.engine,
        { attr::ATTEMPT } = report.attempt,
        { attr::WORKER } = %report.worker,
        { attr::STEP } = Empty,
        { attr::OUTCOME } = Empty,
        { attr::FAULT_REASON } = Empty,
        { attr::FAULT_CLASS } = Empty,
    );
    set_remote_parent(&s, record.traceparent.as_deref(), None);
    s
}

/// Stage 6 on one report body, in its own span.
pub(super) fn completeness_gate(
    body: &serde_json::Value,
    expected: revu_stages::completeness::Expected,
) -> Result<revu_domain::lane::LaneReportBody, Vec<String>> {
    let s = tracing::info_span!(
        span::COMPLETENESS_GATE,
        { attr::OUTCOME } = Empty,
        { attr::FINDINGS } = Empty,
        { attr::GATE_PROBLEMS } = Empty,
    );
    let checked = s.in_scope(|| revu_stages::completeness::check(body, expected));
    match &checked {
        Ok(body) => {
            s.record(attr::OUTCOME, "passed");
            s.record(attr::FINDINGS, body.findings.len());
        }
        Err(problems) => {
            s.record(attr::OUTCOME, "rejected");
            s.record(attr::GATE_PROBLEMS, problems.join("; "));
        }
    }
    checked
}

/// Notes on a producer span whether its job went on the queue.
pub(super) fn record_sent(publish: &Span, sent: bool) {
    publish.record(attr::OUTCOME, if sent { "sent" } else { "not_sent" });
}

/// Notes on the current span what a report did to its lane.
pub(super) fn record_step(step: &'static str) {
    Span::current().record(attr::STEP, step);
}

/// Notes on the current span how a lane settled.
pub(super) fn record_settled(result: &LaneResult) {
    let current = Span::current();
    current.record(attr::OUTCOME, outcome_label(result.outcome()));
    if let LaneEnd::PipelineFault { fault, banner } = &result.end {
        current.record(attr::FAULT_REASON, banner.as_str());
        current.record(attr::FAULT_CLASS, fault.label());
    }
}

/// Records the verdict on the finalize and verify spans.
pub(super) fn record_report(spans: [&Span; 2], report: &Report) {
    use revu_domain::finding::Severity;
    let count = |sev: Severity| report.findings.iter().filter(|f| f.severity == sev).count();
    let stats = &report.verification;
    for s in spans {
        s.record(attr::VERDICT, report.verdict.as_str());
        s.record(attr::GATE, report.gate.as_str());
    }
    spans[1].record(attr::FINDINGS_VERIFIED, report.findings.len());
    spans[1].record(attr::FINDINGS_BLOCKER, count(Severity::Blocker));
    spans[1].record(attr::FINDINGS_IMPORTANT, count(Severity::Important));
    spans[1].record(
        attr::FINDINGS_DROPPED,
        stats.dropped_unknown_file + stats.dropped_missing_line,
    );
}

impl<B: JobQueue + ReviewStore> Coordinator<B> {
    /// Counts a retry of `job` after a failure of `kind`.
    pub(super) fn observe_retry(&self, job: &LaneJob, kind: FaultKind) {
        self.metrics
            .lane_retries
            .get_or_create(&ReasonLabels {
                engine: job.lane.engine.clone(),
                reason: kind.label().to_owned(),
            })
            .inc();
    }

    /// Records a lane settling: its duration since submission and, for a
    /// faulted lane, the fault and its dead letter.
    pub(super) fn observe_settled(&self, record: &ReviewRecord, result: &LaneResult) {
        let Some(spec) = record.plan.lanes.iter().find(|l| l.id == result.lane_id) else {
            return;
        };
        let outcome = outcome_label(result.outcome());
        let since = Duration::from_millis(self.clock.now_ms().saturating_sub(record.created_ms));
        self.metrics
            .lane_duration
            .get_or_create(&LaneLabels::new(spec, outcome))
            .observe(since.as_secs_f64());
        if let LaneEnd::PipelineFault { fault, .. } = &result.end {
            let class = fault.label();
            self.metrics
                .lane_faults
                .get_or_create(&ReasonLabels {
                    engine: spec.engine.clone(),
                    reason: class.to_owned(),
                })
                .inc();
            self.metrics
                .dead_letters
                .get_or_create(&revu_runtime::metrics::DeadLetterLabels {
                    reason: class.to_owned(),
                })
                .inc();
        }
    }

    /// Counts a finished review by its verdict and gate.
    pub(super) fn observe_finished(&self, report: &Report) {
        self.metrics
            .reviews_finished
            .get_or_create(&crate::metrics::VerdictLabels {
                verdict: report.verdict.as_str().to_owned(),
                gate: report.gate.as_str().to_owned(),
            })
            .inc();
    }

    /// One sample of the queue gauges and the reviews in flight.
    pub async fn sample_gauges(&self) {
        let depth = self.backend.job_backlog().await;
        let active = self.backend.active_count().await;
        match (depth, active) {
            (Ok(depth), Ok(active)) => {
                self.metrics
                    .sample_queue(&depth, &self.messaging.group, active)
            }
            (Err(e), _) | (_, Err(e)) => {
                tracing::debug!(error = %e, "queue gauges not sampled");
            }
        }
    }

    /// Samples the gauges every `every` until `shutdown` resolves.
    pub async fn run_sampler(
        &self,
        every: Duration,
        shutdown: impl std::future::Future<Output = ()>,
    ) {
        tokio::pin!(shutdown);
        let mut tick = tokio::time::interval(every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = &mut shutdown => return,
                _ = tick.tick() => self.sample_gauges().await,
            }
        }
    }
}

/// The review id as a span field, for spans created before a review exists.
pub(super) fn record_review(span: &Span, id: &ReviewId, existing: bool) {
    span.record(attr::REVIEW_ID, tracing::field::display(id));
    span.record(attr::REVIEW_EXISTING, existing);
}
