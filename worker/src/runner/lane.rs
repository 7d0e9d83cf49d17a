//! Running one lane attempt: load the bundle, pick the engine, run it off
//! the async runtime.

use super::AbortOnDrop;
use super::Worker;
use crate::engines::{Charge, EngineOutput, LaneInput, Ledger, LoadedReview, Meter};
use revu_domain::lane::{CacheUse, FaultKind, LaneAttemptOutcome, LaneJob, ReviewId};
use revu_domain::retry::{Retry, Retryable};
use revu_queue::{JobQueue, ReviewStore};
use std::sync::Arc;

pub(super) fn failed(
    kind: FaultKind,
    reason: impl Into<String>,
    retry: Retry,
) -> LaneAttemptOutcome {
    LaneAttemptOutcome::Failed {
        reason: reason.into(),
        retry,
        kind,
        retry_after_ms: None,
    }
}

impl<B: JobQueue + ReviewStore> Worker<B> {
    /// Runs the lane's engine, or reuses the stored report of an identical
    /// input; what it spends on a model service goes to `meter`.
    pub(super) async fn run_lane(
        &self,
        job: &Arc<LaneJob>,
        meter: &Arc<Meter>,
    ) -> (LaneAttemptOutcome, Option<CacheUse>) {
        let (engine, input) = match self.lane_input(job, meter).await {
            Ok(ready) => ready,
            Err(outcome) => return (outcome, None),
        };
        // Hashing a lane's patches is CPU work in proportion to the diff:
        // off the async runtime.
        let key = match self.lane_cache_ttl {
            Some(_) => {
                let (engine, input) = (engine.clone(), input.clone());
                tokio::task::spawn_blocking(move || super::cache::key(engine.as_ref(), &input))
                    .await
                    .ok()
                    .flatten()
            }
            None => None,
        };
        if let Some(key) = &key
            && let Some(body) = self.cached(key).await
        {
            self.count_cache(&job.lane.engine, CacheUse::Hit);
            return (LaneAttemptOutcome::Reported { body }, Some(CacheUse::Hit));
        }
        let outcome = self.run_engine(engine, input).await;
        let mut used = None;
        if let (Some(key), Some(ttl), LaneAttemptOutcome::Reported { body }) =
            (&key, self.lane_cache_ttl, &outcome)
            && super::cache::storable(body)
        {
            match serde_json::to_string(body) {
                Ok(text) => match self.backend.cache_lane(key, &text, ttl).await {
                    Ok(()) => {
                        used = Some(CacheUse::Miss);
                        self.count_cache(&job.lane.engine, CacheUse::Miss);
                    }
                    Err(e) => tracing::debug!(error = %e, "lane report not cached"),
                },
                Err(e) => tracing::debug!(error = %e, "lane report not cached"),
            }
        }
        (outcome, used)
    }

    /// The stored report body under `key`, if any that decodes.
    async fn cached(&self, key: &str) -> Option<serde_json::Value> {
        match self.backend.cached_lane(key).await {
            Ok(Some(text)) => serde_json::from_str(&text).ok(),
            Ok(None) => None,
            Err(e) => {
                // A cache that does not answer costs a run, never a lane.
                tracing::debug!(error = %e, "lane cache not read");
                None
            }
        }
    }

    fn count_cache(&self, engine: &str, used: CacheUse) {
        self.metrics
            .lane_cache
            .get_or_create(&crate::metrics::CacheLabels {
                engine: engine.to_owned(),
                result: used.label().to_owned(),
            })
            .inc();
    }

    /// The lane's engine and what it sees, or why the lane cannot run.
    async fn lane_input(
        &self,
        job: &Arc<LaneJob>,
        meter: &Arc<Meter>,
    ) -> Result<(Arc<dyn crate::engines::Engine>, LaneInput), LaneAttemptOutcome> {
        let Some(engine) = self.engines.get(&job.lane.engine) else {
            return Err(failed(
                FaultKind::NoEngine,
                format!("this worker has no engine {:?}", job.lane.engine),
                Retry::Permanent,
            ));
        };
        // The review's state and its bundle are asked for together (one
        // round trip on Redis); a finished or cancelled review's lane
        // does not run, whatever the bundle.
        let (record, review) =
            tokio::join!(self.backend.load_record(&job.review_id), self.load(job));
        match record {
            Ok(Some(r)) if r.phase.is_terminal() => {
                return Err(failed(
                    FaultKind::Cancelled,
                    "review already finished or cancelled; lane not run",
                    Retry::Permanent,
                ));
            }
            Ok(_) => {}
            Err(e) => tracing::debug!(error = %e, "review state unknown; running the lane"),
        }
        let review = review?;
        let ledger: Option<Arc<dyn Ledger>> = job.token_cap.map(|_| {
            Arc::new(StoreLedger {
                store: self.backend.clone(),
                review: job.review_id.clone(),
            }) as Arc<dyn Ledger>
        });
        let input = LaneInput {
            job: Arc::clone(job),
            review,
            meter: meter.clone(),
            ledger,
        };
        Ok((engine, input))
    }

    /// Runs `engine` on `input`, on a task of its own, so that a panicking
    /// engine fails its lane and not the worker; aborted (and the engine's
    /// future dropped) when this lane is abandoned.
    async fn run_engine(
        &self,
        engine: Arc<dyn crate::engines::Engine>,
        input: LaneInput,
    ) -> LaneAttemptOutcome {
        let mut task = AbortOnDrop(tokio::spawn(async move { engine.review(input).await }));
        match (&mut task.0).await {
            Ok(Ok(EngineOutput::Raw(body))) => LaneAttemptOutcome::Reported { body },
            Ok(Ok(EngineOutput::Body(body))) => match serde_json::to_value(&body) {
                Ok(body) => LaneAttemptOutcome::Reported { body },
                Err(e) => failed(
                    FaultKind::BadReport,
                    format!("report does not serialize: {e}"),
                    Retry::Permanent,
                ),
            },
            Ok(Err(e)) => LaneAttemptOutcome::Failed {
                retry: e.retry(),
                kind: e.kind,
                retry_after_ms: e
                    .retry_after()
                    .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
                reason: e.reason,
            },
            Err(e) => failed(
                FaultKind::Crash,
                format!("engine crashed: {e}"),
                Retry::Transient,
            ),
        }
    }

    async fn load(&self, job: &LaneJob) -> Result<Arc<LoadedReview>, LaneAttemptOutcome> {
        if let Some(hit) = self.bundles.get(&job.review_id) {
            return Ok(hit);
        }
        let turn = self.bundles.turn(&job.review_id);
        let _turn = turn.lock().await;
        if let Some(hit) = self.bundles.get(&job.review_id) {
            return Ok(hit);
        }
        let bundle = match self.backend.load_bundle(&job.review_id).await {
            Ok(Some(b)) => b,
            Ok(None) => {
                return Err(failed(
                    FaultKind::Bundle,
                    format!("review bundle of {} not found", job.review_id),
                    Retry::Permanent,
                ));
            }
            Err(e) => {
                return Err(failed(
                    FaultKind::Bundle,
                    format!("loading review bundle: {e}"),
                    e.retry(),
                ));
            }
        };
        let parsed = tokio::task::spawn_blocking(move || {
            let diff = bundle.parsed_diff();
            (bundle, diff)
        })
        .await;
        let loaded = match parsed {
            Ok((bundle, Ok(diff))) => Arc::new(LoadedReview::new(bundle, diff)),
            Ok((_, Err(e))) => {
                return Err(failed(
                    FaultKind::Bundle,
                    format!("stored diff does not parse: {e}"),
                    Retry::Permanent,
                ));
            }
            Err(e) => {
                return Err(failed(
                    FaultKind::Crash,
                    format!("diff parser crashed: {e}"),
                    Retry::Transient,
                ));
            }
        };
        self.bundles.put(job.review_id.clone(), loaded.clone());
        Ok(loaded)
    }
}

/// A review's token spend, kept in the review store where every worker
/// running its lanes sees it.
struct StoreLedger<S> {
    store: S,
    review: ReviewId,
}

impl<S> std::fmt::Debug for StoreLedger<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreLedger")
            .field("review", &self.review)
            .finish_non_exhaustive()
    }
}

impl<S: ReviewStore> Ledger for StoreLedger<S> {
    fn charge(&self, tokens: i64) -> Charge<'_> {
        Box::pin(async move { self.store.charge_tokens(&self.review, tokens).await })
    }
}
