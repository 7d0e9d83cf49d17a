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
use revu_runtime::metrics::{
    Catalog, DURATION_BUCKETS, DeadLetterLabels, FINE_BUCKETS, LaneLabels, ReasonLabels,
};

type HistogramFamily<L> = Family<L, Histogram, fn() -> Histogram>;

fn duration_histogram() -> Histogram {
    Histogram::new(DURATION_BUCKETS)
}

fn fine_histogram() -> Histogram {
    Histogram::new(FINE_BUCKETS)
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

/// One engine's job stream in one shard: engines are the operator's
/// (`--lane-engine`), shards a fixed eight on Redis (one in memory).
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct StreamLabels {
    pub engine: String,
    pub shard: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct GroupLabels {
    pub engine: String,
    pub shard: String,
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

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct IndexCacheLabels {
    /// `served`, `held`, `missed`, `stored`, `evicted`
    /// ([`INDEX_CACHE_OUTCOMES`]).
    pub outcome: String,
}

/// What happens to shared index cache entries: sent to a client, found
/// held for a client that has it already, not held, stored, evicted.
pub const INDEX_CACHE_OUTCOMES: [&str; 5] = ["served", "held", "missed", "stored", "evicted"];

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
    /// Seconds, of the oldest entry not yet acknowledged.
    pub oldest_age: Family<StreamLabels, Gauge<f64, std::sync::atomic::AtomicU64>>,
    pub dead_letter_length: Gauge,
    pub delayed: Family<StreamLabels, Gauge>,
    /// Reviews whose deadline passed before every lane reported.
    pub past_deadline: Counter,
    /// Shared index cache entries, by what happened to them.
    pub index_cache_entries: Family<IndexCacheLabels, Counter>,
}

impl Default for CoordinatorMetrics {
    fn default() -> Self {
        CoordinatorMetrics {
            lane_duration: Family::new_with_constructor(duration_histogram),
            lane_retries: Family::default(),
            lane_faults: Family::default(),
            dead_letters: revu_runtime::metrics::dead_letters_by_reason(),
            reports_discarded: Counter::default(),
            reviews_submitted: Counter::default(),
            tenant_reviews_submitted: Family::default(),
            quota_refusals: Family::default(),
            unauthenticated: Counter::default(),
            reviews_finished: Family::default(),
            stage_duration: Family::new_with_constructor(fine_histogram),
            reviews_in_flight: Gauge::default(),
            stream_length: Family::default(),
            consumer_lag: Family::default(),
            pending: Family::default(),
            oldest_age: Family::default(),
            dead_letter_length: Gauge::default(),
            delayed: Family::default(),
            past_deadline: Counter::default(),
            index_cache_entries: Family::default(),
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
            "Review and index cache service calls refused UNAUTHENTICATED (no valid bearer token)",
            None,
            self.unauthenticated.clone(),
        );
        r.register(
            "reviews_past_deadline",
            "Reviews whose deadline passed before every lane reported (their lanes left are faulted, reason deadline)",
            None,
            self.past_deadline.clone(),
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
            "Entries on an engine's job stream in a shard not yet acknowledged: undelivered plus pending (sampled)",
            None,
            self.stream_length.clone(),
        );
        r.register(
            "queue_consumer_lag",
            "Entries on an engine's job stream in a shard not yet delivered to the workers' group (sampled)",
            None,
            self.consumer_lag.clone(),
        );
        r.register(
            "queue_pending",
            "Entries of an engine's job stream in a shard delivered to the workers' group and not yet acknowledged (sampled)",
            None,
            self.pending.clone(),
        );
        r.register(
            "queue_oldest_age",
            "Age of the oldest entry of an engine's job stream in a shard not yet acknowledged, 0 when there is none (sampled)",
            Some(Unit::Seconds),
            self.oldest_age.clone(),
        );
        r.register(
            "queue_delayed",
            "Retries of an engine in a shard waiting out a backoff or a server's Retry-After before they join its job stream (sampled)",
            None,
            self.delayed.clone(),
        );
        r.register(
            "index_cache_entries",
            "Shared code index cache entries, by outcome: served to a client, held (a client that has it asked), missed, stored, evicted",
            None,
            self.index_cache_entries.clone(),
        );
        r.register(
            "queue_dead_letter_length",
            "Entries on the dead-letter stream (sampled)",
            None,
            self.dead_letter_length.clone(),
        );
    }

    /// The most series one coordinator's `/metrics` returns, with
    /// `engines` engines routed to and `tenants` tenants in its tokens
    /// file: every label a request can influence is capped (the `lane`
    /// label by [`revu_runtime::metrics::MAX_DOMAIN_LABELS`]), and the rest
    /// are fixed sets or the operator's configuration.
    pub fn max_series(engines: usize, tenants: usize) -> usize {
        use revu_runtime::metrics::{MAX_LANE_LABELS, histogram_series};
        let reasons = revu_domain::lane::FaultKind::ALL.len();
        let shards = usize::from(revu_queue::redis::layout::SHARDS);
        let lane_outcomes = 4; // complete, incomplete, pipeline_fault, cancelled
        let stages = 4; // prepare, dispatch, verify, render
        let verdicts_and_gates = 3 * 2;
        let quotas = 3;
        let scalars = 7;
        MAX_LANE_LABELS * lane_outcomes * histogram_series(DURATION_BUCKETS.len())
            + 2 * engines * reasons // retries, faults
            + reasons // dead letters
            + tenants * (1 + quotas)
            + verdicts_and_gates
            + stages * histogram_series(FINE_BUCKETS.len())
            + 5 * engines * shards // length, lag, pending, oldest age, delayed
            + INDEX_CACHE_OUTCOMES.len()
            + scalars
    }

    /// Starts each tenant's submission count and each of its quotas'
    /// refusals at 0, so that the first of each shows as an increase
    /// (Prometheus sees no increase in a series that starts at 1).
    pub fn expect_tenants(&self, tenants: &[String], quotas: &[&str]) {
        for tenant in tenants {
            self.tenant_reviews_submitted
                .get_or_create(&TenantLabels {
                    tenant: tenant.clone(),
                })
                .inc_by(0);
            for quota in quotas {
                self.quota_refusals
                    .get_or_create(&QuotaLabels {
                        tenant: tenant.clone(),
                        quota: (*quota).to_owned(),
                    })
                    .inc_by(0);
            }
        }
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
    /// Stores one sample of the job streams' depth and the active reviews.
    pub fn sample_queue(&self, depth: &revu_queue::QueueDepth, group: &str, in_flight: usize) {
        for stream in &depth.streams {
            let at = StreamLabels {
                engine: stream.engine.clone(),
                shard: stream.shard.to_string(),
            };
            let by_group = GroupLabels {
                engine: at.engine.clone(),
                shard: at.shard.clone(),
                group: group.to_owned(),
            };
            self.stream_length.get_or_create(&at).set(gauge_value(
                stream.undelivered.saturating_add(stream.pending),
            ));
            self.consumer_lag
                .get_or_create(&by_group)
                .set(gauge_value(stream.undelivered));
            self.pending
                .get_or_create(&by_group)
                .set(gauge_value(stream.pending));
            self.delayed
                .get_or_create(&at)
                .set(gauge_value(stream.delayed));
            self.oldest_age
                .get_or_create(&at)
                .set(stream.oldest_age_ms as f64 / 1000.0);
        }
        self.dead_letter_length.set(gauge_value(depth.dead));
        self.reviews_in_flight
            .set(i64::try_from(in_flight).unwrap_or(i64::MAX));
    }
}
