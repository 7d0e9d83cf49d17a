//! What a lane attempt tells the operator: its consumer span, joined to the
//! coordinator's dispatch span through the job's `traceparent`, and its
//! metrics.

use crate::metrics::WorkerMetrics;
use revu_domain::lane::{CacheUse, LaneAttemptOutcome, LaneJob, LaneReport};
use revu_domain::telemetry::MessagingTarget;
use revu_domain::telemetry::names::{attr, span};
use revu_runtime::metrics::{LaneLabels, ReasonLabels};
use tracing::field::Empty;

/// The consumer span of one attempt of `job`, delivered as stream `entry`.
/// Its parent is the dispatch span named by the job's `traceparent`.
pub(super) fn attempt_span(
    job: &LaneJob,
    entry: &str,
    messaging: &MessagingTarget,
    worker: &str,
) -> tracing::Span {
    let (domain, dimension) = job.lane.kind.domain_and_dimension();
    let s = tracing::info_span!(
        span::PROCESS,
        otel.kind = "consumer",
        otel.status_code = Empty,
        { attr::MESSAGING_SYSTEM } = messaging.system,
        { attr::MESSAGING_OPERATION } = "process",
        { attr::MESSAGING_DESTINATION } = %messaging.stream_of(&job.lane.engine),
        { attr::MESSAGING_GROUP } = %messaging.group,
        { attr::MESSAGING_MESSAGE_ID } = entry,
        { attr::REVIEW_ID } = %job.review_id,
        { attr::LANE_ID } = %job.lane.id,
        { attr::LANE_KIND } = job.lane.kind.label(),
        { attr::LANE_DOMAIN } = domain,
        { attr::LANE_DIMENSION } = dimension,
        { attr::ENGINE } = %job.lane.engine,
        { attr::ATTEMPT } = job.attempt,
        { attr::WORKER } = worker,
        { attr::OUTCOME } = Empty,
        { attr::CACHE } = Empty,
        { attr::FAULT_REASON } = Empty,
        { attr::FAULT_CLASS } = Empty,
        { attr::FINDINGS } = Empty,
    );
    revu_runtime::telemetry::set_remote_parent(&s, job.traceparent.as_deref(), None);
    s
}

/// Records how the attempt ended on its span and in the metrics. An
/// attempt served from the lane result cache ran no engine: it is counted
/// by the cache's metric alone, and its span says `cached`.
pub(super) fn attempt_done(
    span: &tracing::Span,
    metrics: &WorkerMetrics,
    job: &LaneJob,
    report: &LaneReport,
) {
    if let Some(cache) = report.cache {
        span.record(attr::CACHE, cache.label());
    }
    let outcome = match &report.outcome {
        LaneAttemptOutcome::Reported { body } => {
            let findings = body
                .get("findings")
                .and_then(|f| f.as_array())
                .map_or(0, Vec::len);
            span.record(attr::FINDINGS, findings);
            if report.cache == Some(CacheUse::Hit) {
                span.record(attr::OUTCOME, "cached");
                return;
            }
            "reported"
        }
        LaneAttemptOutcome::Failed { reason, kind, .. } => {
            let class = kind.label();
            span.record(attr::FAULT_REASON, reason.as_str());
            span.record(attr::FAULT_CLASS, class);
            span.record("otel.status_code", "error");
            metrics
                .attempt_failures
                .get_or_create(&ReasonLabels {
                    engine: job.lane.engine.clone(),
                    reason: class.to_owned(),
                })
                .inc();
            "failed"
        }
    };
    span.record(attr::OUTCOME, outcome);
    metrics
        .attempt_duration
        .get_or_create(&LaneLabels::new(&job.lane, outcome))
        .observe(report.duration_ms as f64 / 1000.0);
}
