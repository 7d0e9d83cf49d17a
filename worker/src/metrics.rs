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
        (metrics, r)
    }
}
