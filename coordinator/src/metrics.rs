//! The coordinator's Prometheus metrics.
//!
//! Counted in process, per coordinator: Prometheus sums across replicas.
//! Queue gauges are sampled from the backend (every coordinator sees the
//! same streams, so take `max` across replicas rather than `sum`).

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Unit;
use revu_common::metrics::{Catalog, DURATION_BUCKETS, LaneLabels, ReasonLabels};

type HistogramFamily<L> = Family<L, Histogram, fn() -> Histogram>;

fn duration_histogram() -> Histogram {
    Histogram::new(DURATION_BUCKETS)
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct StageLabels {
    /// `prepare`, `dispatch`, `verify`, `render`.
    pub stage: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct VerdictLabels {
    pub verdict: String,
    pub gate: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct DeadLetterLabels {
    /// A `revu_common::lane::FaultKind` label.
    pub reason: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct StreamLabels {
    /// `jobs`.
    pub stream: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct GroupLabels {
    pub stream: String,
    pub group: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct TenantLabels {
    /// A tenant of the tokens file: as many values as the operator wrote.
    pub tenant: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct QuotaLabels {
    pub tenant: String,
    /// `max-inflight`, `submissions-per-minute`, `diff-bytes-per-day`.
    pub quota: String,
}

/// Every metric the coordinator exports.
#[derive(Debug, Clone)]
pub struct CoordinatorMetrics {
    /// Submission to settle, per lane.
    pub lane_duration: HistogramFamily<LaneLabels>,
    pub lane_retries: Family<ReasonLabels, Counter>,
    pub lane_faults: Family<ReasonLabels, Counter>,
    pub dead_letters: Family<DeadLetterLabels, Counter>,
    /// Reports of an attempt already handled, stale, late or unknown.
    pub reports_discarded: Counter,
    pub reviews_submitted: Counter,
    pub tenant_reviews_submitted: Family<TenantLabels, Counter>,
    pub quota_refusals: Family<QuotaLabels, Counter>,
    /// Review calls refused for want of a valid token.
    pub unauthenticated: Counter,
    pub reviews_finished: Family<VerdictLabels, Counter>,
    pub stage_duration: HistogramFamily<StageLabels>,
    pub reviews_in_flight: Gauge,
    pub stream_length: Family<StreamLabels, Gauge>,
    pub consumer_lag: Family<GroupLabels, Gauge>,
    pub pending: Family<GroupLabels, Gauge>,
    pub dead_letter_length: Gauge,
    pub delayed: Gauge,
}

impl Default for CoordinatorMetrics {
    fn default() -> Self {
        CoordinatorMetrics {
            lane_duration: Family::new_with_constructor(duration_histogram),
            lane_retries: Family::default(),
            lane_faults: Family::default(),
            dead_letters: Family::default(),
            reports_discarded: Counter::default(),
            reviews_submitted: Counter::default(),
            tenant_reviews_submitted: Family::default(),
            quota_refusals: Family::default(),
            unauthenticated: Counter::default(),
            reviews_finished: Family::default(),
            stage_duration: Family::new_with_constructor(duration_histogram),
            reviews_in_flight: Gauge::default(),
            stream_length: Family::default(),
            consumer_lag: Family::default(),
            pending: Family::default(),
            dead_letter_length: Gauge::default(),
            delayed: Gauge::default(),
        }
    }
}

impl CoordinatorMetrics {
    /// The metrics, registered in a fresh catalog.
    pub fn registered() -> (Self, Catalog) {
        let metrics = Self::default();
        let mut catalog = Catalog::default();
        metrics.register(&mut catalog);
        (metrics, catalog)
    }

    fn register(&self, r: &mut Catalog) {
        r.register(
            "lane_duration",
            "Time from a review's submission to one of its lanes settling, by lane and outcome",
            Some(Unit::Seconds),
            self.lane_duration.clone(),
        );
        r.register(
            "lane_retries",
            "Lane attempts dispatched again, by engine and reason class",
            None,
            self.lane_retries.clone(),
        );
        r.register(
            "lane_faults",
            "Lanes settled as PIPELINE-FAULT, by engine and reason class",
            None,
            self.lane_faults.clone(),
        );
        r.register(
            "dead_letters",
            "Entries written to the dead-letter stream, by reason class",
            None,
            self.dead_letters.clone(),
        );
        r.register(
            "lane_reports_discarded",
            "Lane reports discarded: duplicates, stale attempts, late or for unknown reviews",
            None,
            self.reports_discarded.clone(),
        );
        r.register(
            "reviews_submitted",
            "Reviews accepted (idempotent resubmissions excluded)",
            None,
            self.reviews_submitted.clone(),
        );
        r.register(
            "tenant_reviews_submitted",
            "Reviews accepted from a tenant (idempotent resubmissions excluded), by tenant",
            None,
            self.tenant_reviews_submitted.clone(),
        );
        r.register(
            "tenant_quota_refusals",
            "Submissions refused RESOURCE_EXHAUSTED by a tenant quota, by tenant and quota",
            None,
            self.quota_refusals.clone(),
        );
        r.register(
            "unauthenticated_calls",
            "Review service calls refused UNAUTHENTICATED (no valid bearer token)",
            None,
            self.unauthenticated.clone(),
        );
        r.register(
            "reviews_finished",
            "Reviews finished, by verdict and merge gate",
            None,
            self.reviews_finished.clone(),
        );
        r.register(
            "stage_duration",
            "Time a coordinator stage took, by stage",
            Some(Unit::Seconds),
            self.stage_duration.clone(),
        );
        r.register(
            "reviews_in_flight",
            "Reviews not yet finished or cancelled (sampled from the backend)",
            None,
            self.reviews_in_flight.clone(),
        );
        r.register(
            "queue_stream_length",
            "Entries on a stream not yet acknowledged by every group: undelivered plus pending (sampled)",
            None,
            self.stream_length.clone(),
        );
        r.register(
            "queue_consumer_lag",
            "Entries on a stream not yet delivered to the consumer group (sampled)",
            None,
            self.consumer_lag.clone(),
        );
        r.register(
            "queue_pending",
            "Entries delivered to the consumer group and not yet acknowledged (sampled)",
            None,
            self.pending.clone(),
        );
        r.register(
            "queue_delayed",
            "Retries waiting out a backoff or a server's Retry-After before they join a job stream (sampled)",
            None,
            self.delayed.clone(),
        );
        r.register(
            "queue_dead_letter_length",
            "Entries on the dead-letter stream (sampled)",
            None,
            self.dead_letter_length.clone(),
        );
    }

    /// Counts an accepted review, and its tenant's.
    pub fn submitted(&self, tenant: Option<&str>) {
        self.reviews_submitted.inc();
        if let Some(tenant) = tenant {
            self.tenant_reviews_submitted
                .get_or_create(&TenantLabels {
                    tenant: tenant.to_owned(),
                })
                .inc();
        }
    }

    /// Counts a submission a quota refused.
    pub fn quota_refused(&self, tenant: &str, quota: &str) {
        self.quota_refusals
            .get_or_create(&QuotaLabels {
                tenant: tenant.to_owned(),
                quota: quota.to_owned(),
            })
            .inc();
    }

    /// Records how long `stage` took.
    pub fn stage(&self, stage: &str, took: std::time::Duration) {
        self.stage_duration
            .get_or_create(&StageLabels {
                stage: stage.to_owned(),
            })
            .observe(took.as_secs_f64());
    }
}

fn gauge_value(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

impl CoordinatorMetrics {
    /// Stores one sample of the job stream's depth and the active reviews.
    pub fn sample_queue(
        &self,
        depth: revu_common::queue::QueueDepth,
        group: &str,
        in_flight: usize,
    ) {
        let stream = "jobs".to_owned();
        let by_group = GroupLabels {
            stream: stream.clone(),
            group: group.to_owned(),
        };
        self.stream_length
            .get_or_create(&StreamLabels { stream })
            .set(gauge_value(depth.undelivered.saturating_add(depth.pending)));
        self.consumer_lag
            .get_or_create(&by_group)
            .set(gauge_value(depth.undelivered));
        self.pending
            .get_or_create(&by_group)
            .set(gauge_value(depth.pending));
        self.dead_letter_length.set(gauge_value(depth.dead));
        self.delayed.set(gauge_value(depth.delayed));
        self.reviews_in_flight
            .set(i64::try_from(in_flight).unwrap_or(i64::MAX));
    }
}
