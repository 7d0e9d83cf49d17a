//! The worker's Prometheus metrics.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Unit;
use revu_common::metrics::{Catalog, DURATION_BUCKETS, LaneLabels, ReasonLabels};

fn duration_histogram() -> Histogram {
    Histogram::new(DURATION_BUCKETS)
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct DeadLetterLabels {
    /// A `revu_common::lane::FaultKind` label.
    pub reason: String,
}

/// Labels of what a lane spent on a model.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ModelLabels {
    pub engine: String,
    pub model: String,
    /// `domain`, `specialist` or `adjudication`.
    pub lane_kind: String,
}

/// Labels of the lane result cache: `result` is `hit` or `miss`.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct CacheLabels {
    pub engine: String,
    pub result: String,
}

/// Labels of tokens spent on a model: `direction` is `input` or `output`.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct TokenLabels {
    pub engine: String,
    pub model: String,
    pub lane_kind: String,
    pub direction: String,
}

/// Every metric a worker exports.
#[derive(Debug, Clone)]
pub struct WorkerMetrics {
    /// One attempt on this worker; outcome `reported` or `failed`.
    pub attempt_duration: Family<LaneLabels, Histogram, fn() -> Histogram>,
    pub attempt_failures: Family<ReasonLabels, Counter>,
    pub lanes_running: Gauge,
    pub jobs_reclaimed: Counter,
    pub leases_lost: Counter,
    pub dead_letters: Family<DeadLetterLabels, Counter>,
    pub model_requests: Family<ModelLabels, Counter>,
    pub model_tokens: Family<TokenLabels, Counter>,
    /// Lane attempts that consulted the lane result cache.
    pub lane_cache: Family<CacheLabels, Counter>,
}

impl Default for WorkerMetrics {
    fn default() -> Self {
        WorkerMetrics {
            attempt_duration: Family::new_with_constructor(duration_histogram),
            attempt_failures: Family::default(),
            lanes_running: Gauge::default(),
            jobs_reclaimed: Counter::default(),
            leases_lost: Counter::default(),
            dead_letters: Family::default(),
            model_requests: Family::default(),
            model_tokens: Family::default(),
            lane_cache: Family::default(),
        }
    }
}

impl WorkerMetrics {
    /// The metrics, registered in a fresh catalog.
    pub fn registered() -> (Self, Catalog) {
        let metrics = Self::default();
        let mut r = Catalog::default();
        r.register(
            "lane_attempt_duration",
            "Time one lane attempt ran on a worker, by lane, engine and outcome",
            Some(Unit::Seconds),
            metrics.attempt_duration.clone(),
        );
        r.register(
            "lane_attempt_failures",
            "Lane attempts that failed on a worker, by engine and reason class",
            None,
            metrics.attempt_failures.clone(),
        );
        r.register(
            "worker_lanes_running",
            "Lanes running on this worker now",
            None,
            metrics.lanes_running.clone(),
        );
        r.register(
            "worker_jobs_reclaimed",
            "Jobs this worker took over from a silent worker",
            None,
            metrics.jobs_reclaimed.clone(),
        );
        r.register(
            "worker_leases_lost",
            "Lanes another worker reclaimed while this one ran them",
            None,
            metrics.leases_lost.clone(),
        );
        r.register(
            "dead_letters",
            "Entries written to the dead-letter stream, by reason class",
            None,
            metrics.dead_letters.clone(),
        );
        r.register(
            "model_requests",
            "Requests lanes made to a model service, by engine, model and lane kind",
            None,
            metrics.model_requests.clone(),
        );
        r.register(
            "model_tokens",
            "Tokens lanes spent on a model service, by engine, model, lane kind and direction",
            None,
            metrics.model_tokens.clone(),
        );
        r.register(
            "lane_cache",
            "Lane attempts that consulted the lane result cache, by engine and result (hit: the stored report reused; miss: the engine ran)",
            None,
            metrics.lane_cache.clone(),
        );
        (metrics, r)
    }

    /// Counts what one attempt of `lane` spent.
    pub fn count_usage(
        &self,
        lane: &revu_common::lane::LaneSpec,
        spent: &revu_common::lane::Usage,
    ) {
        let model = ModelLabels {
            engine: lane.engine.clone(),
            model: spent.model.clone(),
            lane_kind: lane.kind.label().to_owned(),
        };
        self.model_requests
            .get_or_create(&model)
            .inc_by(u64::from(spent.requests));
        for (direction, tokens) in [
            ("input", spent.input_tokens),
            ("output", spent.output_tokens),
        ] {
            self.model_tokens
                .get_or_create(&TokenLabels {
                    engine: model.engine.clone(),
                    model: model.model.clone(),
                    lane_kind: model.lane_kind.clone(),
                    direction: direction.to_owned(),
                })
                .inc_by(tokens);
        }
    }
}
