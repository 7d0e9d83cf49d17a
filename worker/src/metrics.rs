//! The worker's Prometheus metrics.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Unit;
use revu_runtime::metrics::{Catalog, DeadLetterLabels, FINE_BUCKETS, LaneLabels, ReasonLabels};
use std::sync::atomic::AtomicU64;

fn duration_histogram() -> Histogram {
    Histogram::new(FINE_BUCKETS)
}

/// Labels of what a lane spent on a model.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ModelLabels {
    pub engine: String,
    pub model: String,
    /// `domain`, `specialist` or `adjudication`.
    pub lane_kind: String,
}

/// Labels of a failed request to a model: `reason` is a
/// `revu_domain::lane::FaultKind` label (`rate_limited` for a 429).
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ModelFailureLabels {
    pub engine: String,
    pub model: String,
    pub lane_kind: String,
    pub reason: String,
}

/// Labels of the lane result cache: `result` is `hit` or `miss`.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct CacheLabels {
    pub engine: String,
    pub result: String,
}

/// Labels of tokens spent on a model: `direction` is `input` or
/// `output`, and `kind` says which of them, as providers bill them:
/// `input` (neither read from nor written to the prompt cache), `cached`
/// (read from it), `cache_write` (written to it); `output` (the answer)
/// or `reasoning`. A direction's kinds add up to all its tokens.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct TokenLabels {
    pub engine: String,
    pub model: String,
    pub lane_kind: String,
    pub direction: String,
    pub kind: String,
}

/// Every metric a worker exports.
#[derive(Debug, Clone)]
pub struct WorkerMetrics {
    /// One attempt on this worker that ran its engine; outcome `reported`
    /// or `failed` (an attempt served from the cache is no attempt here).
    pub attempt_duration: Family<LaneLabels, Histogram, fn() -> Histogram>,
    pub attempt_failures: Family<ReasonLabels, Counter>,
    pub lanes_running: Gauge,
    pub jobs_reclaimed: Counter,
    pub leases_lost: Counter,
    pub dead_letters: Family<DeadLetterLabels, Counter>,
    pub model_requests: Family<ModelLabels, Counter>,
    pub model_request_failures: Family<ModelFailureLabels, Counter>,
    pub model_tokens: Family<TokenLabels, Counter>,
    /// US dollars, where the price table prices the model.
    pub model_cost: Family<ModelLabels, Counter<f64, AtomicU64>>,
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
            dead_letters: revu_runtime::metrics::dead_letters_by_reason(),
            model_requests: Family::default(),
            model_request_failures: Family::default(),
            model_tokens: Family::default(),
            model_cost: Family::default(),
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
            "Time one lane attempt ran its engine on a worker, by lane, engine and outcome (cache hits are not attempts)",
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
            "model_request_failures",
            "Requests to a model service that failed, by engine, model, lane kind and reason class (rate_limited: the service answered 429)",
            None,
            metrics.model_request_failures.clone(),
        );
        r.register(
            "model_tokens",
            "Tokens lanes spent on a model service, by engine, model, lane kind, direction (input, output) and kind (input, cached, cache_write; output, reasoning)",
            None,
            metrics.model_tokens.clone(),
        );
        r.register(
            "model_cost_usd",
            "What lanes' tokens cost on a model service in US dollars, by engine, model and lane kind (models the price table prices)",
            None,
            metrics.model_cost.clone(),
        );
        r.register(
            "lane_cache",
            "Lane attempts that consulted the lane result cache, by engine and result (hit: the stored report reused; miss: the engine ran)",
            None,
            metrics.lane_cache.clone(),
        );
        (metrics, r)
    }

    /// The most series one worker's `/metrics` returns, with `engines`
    /// engines of which `models` ask a model: every label a request can
    /// influence is capped (the `lane` label by
    /// [`revu_runtime::metrics::MAX_DOMAIN_LABELS`]), and the rest are fixed
    /// sets or the operator's configuration.
    pub fn max_series(engines: usize, models: usize) -> usize {
        use revu_runtime::metrics::{MAX_LANE_LABELS, histogram_series};
        let reasons = revu_domain::lane::FaultKind::ALL.len();
        let outcomes = 2; // reported, failed
        let lane_kinds = revu_domain::lane::LaneKind::LABELS.len();
        let token_kinds = 5;
        let scalars = 4;
        MAX_LANE_LABELS * outcomes * histogram_series(FINE_BUCKETS.len())
            + engines * reasons // attempt failures
            + reasons // dead letters
            + models * lane_kinds * (1 + reasons + token_kinds + 1) // requests, failures, tokens, cost
            + engines * 2 // lane cache hit, miss
            + scalars
    }

    /// Starts the request and rate-limit counts of `model` on `engine` at
    /// 0 for every lane kind, so that the first of each shows as an
    /// increase (Prometheus sees no increase in a series that starts at 1).
    pub fn expect_model(&self, engine: &str, model: &str) {
        for lane_kind in revu_domain::lane::LaneKind::LABELS {
            let labels = ModelLabels {
                engine: engine.to_owned(),
                model: model.to_owned(),
                lane_kind: lane_kind.to_owned(),
            };
            self.model_requests.get_or_create(&labels).inc_by(0);
            self.model_request_failures
                .get_or_create(&ModelFailureLabels {
                    engine: labels.engine,
                    model: labels.model,
                    lane_kind: labels.lane_kind,
                    reason: revu_domain::lane::FaultKind::RateLimited.label().to_owned(),
                })
                .inc_by(0);
        }
    }

    /// Counts what one attempt of `lane` spent, and the requests that
    /// failed (`failures`, by fault class).
    pub fn count_usage(
        &self,
        lane: &revu_domain::lane::LaneSpec,
        spent: &revu_domain::lane::Usage,
        failures: &[revu_domain::lane::FaultKind],
    ) {
        let model = ModelLabels {
            engine: lane.engine.clone(),
            model: spent.model.clone(),
            lane_kind: lane.kind.label().to_owned(),
        };
        self.model_requests
            .get_or_create(&model)
            .inc_by(u64::from(spent.requests));
        let t = &spent.tokens;
        let input = t
            .input_tokens
            .saturating_sub(t.cached_input_tokens)
            .saturating_sub(t.cache_write_tokens);
        let output = t.output_tokens.saturating_sub(t.reasoning_tokens);
        for (direction, kind, tokens) in [
            ("input", "input", input),
            ("input", "cached", t.cached_input_tokens),
            ("input", "cache_write", t.cache_write_tokens),
            ("output", "output", output),
            ("output", "reasoning", t.reasoning_tokens),
        ] {
            self.model_tokens
                .get_or_create(&TokenLabels {
                    engine: model.engine.clone(),
                    model: model.model.clone(),
                    lane_kind: model.lane_kind.clone(),
                    direction: direction.to_owned(),
                    kind: kind.to_owned(),
                })
                .inc_by(tokens);
        }
        if let Some(cost) = spent.cost_usd {
            self.model_cost.get_or_create(&model).inc_by(cost.dollars());
        }
        for kind in failures {
            self.model_request_failures
                .get_or_create(&ModelFailureLabels {
                    engine: model.engine.clone(),
                    model: model.model.clone(),
                    lane_kind: model.lane_kind.clone(),
                    reason: kind.label().to_owned(),
                })
                .inc();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use revu_domain::lane::{FaultKind, LaneKind, LaneSpec, Usage, Usd};

    #[test]
    fn tokens_are_counted_by_direction_and_kind_and_cost_in_dollars() {
        let (metrics, catalog) = WorkerMetrics::registered();
        let lane = LaneSpec {
            id: "specialist:security".into(),
            kind: LaneKind::Specialist {
                dimension: revu_domain::finding::Dimension::Security,
            },
            engine: "llm".into(),
            files: vec![],
            guidance: vec![],
        };
        let spent = Usage {
            model: "gpt-5-mini".into(),
            requests: 2,
            tokens: revu_domain::usage::Tokens {
                input_tokens: 3000,
                cached_input_tokens: 2000,
                cache_write_tokens: 0,
                output_tokens: 900,
                reasoning_tokens: 700,
            },
            latency_ms: 10,
            cost_usd: Some(Usd(2_500_000)),
        };
        metrics.count_usage(&lane, &spent, &[FaultKind::RateLimited]);
        let text = revu_runtime::metrics::encode(&catalog.into_registry());
        let labels = "engine=\"llm\",model=\"gpt-5-mini\",lane_kind=\"specialist\"";
        for (direction, kind, n) in [
            ("input", "input", 1000),
            ("input", "cached", 2000),
            ("input", "cache_write", 0),
            ("output", "output", 200),
            ("output", "reasoning", 700),
        ] {
            let line = format!(
                "revu_model_tokens_total{{{labels},direction=\"{direction}\",kind=\"{kind}\"}} {n}\n"
            );
            assert!(text.contains(&line), "{line} in {text}");
        }
        assert!(
            text.contains(&format!("revu_model_cost_usd_total{{{labels}}} 0.0025\n")),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "revu_model_request_failures_total{{{labels},reason=\"rate_limited\"}} 1\n"
            )),
            "{text}"
        );
    }
}
