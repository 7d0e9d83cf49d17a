//! Running one lane attempt: load the bundle, pick the engine, run it off
//! the async runtime.

use super::Worker;
use super::bundles::Loaded;
use crate::engines::{EngineError, EngineOutput, LaneInput};
use revu_common::diff;
use revu_common::lane::{FaultKind, LaneAttemptOutcome, LaneJob};
use revu_common::queue::{JobQueue, ReviewStore};
use revu_common::review::now_ms;
use std::sync::Arc;

fn failed(kind: FaultKind, reason: impl Into<String>, transient: bool) -> LaneAttemptOutcome {
    LaneAttemptOutcome::Failed {
        reason: reason.into(),
        transient,
        kind,
    }
}

impl<B: JobQueue + ReviewStore> Worker<B> {
    pub(super) async fn run_lane(&self, job: &LaneJob) -> LaneAttemptOutcome {
        if now_ms() > job.deadline_ms {
            return failed(
                FaultKind::Deadline,
                "lane deadline passed before it started",
                false,
            );
        }
        match self.backend.load_record(&job.review_id).await {
            Ok(Some(r)) if r.state.is_terminal() => {
                return failed(
                    FaultKind::Cancelled,
                    "review already finished or cancelled; lane not run",
                    false,
                );
            }
            Ok(_) => {}
            Err(e) => tracing::debug!(error = %e, "review state unknown; running the lane"),
        }
        if self.engines.get(&job.lane.engine).is_none() {
            return failed(
                FaultKind::NoEngine,
                format!("this worker has no engine {:?}", job.lane.engine),
                false,
            );
        }
        let loaded = match self.load(job).await {
            Ok(l) => l,
            Err(outcome) => return outcome,
        };
        let engines = self.engines.clone();
        let job = job.clone();
        let ran = tokio::task::spawn_blocking(move || {
            let engine = engines.get(&job.lane.engine).ok_or_else(|| {
                EngineError::permanent(
                    FaultKind::NoEngine,
                    format!("no engine {:?}", job.lane.engine),
                )
            })?;
            engine.review(&LaneInput {
                job: &job,
                diff: &loaded.diff,
                bundle: &loaded.bundle,
            })
        })
        .await;
        match ran {
            Ok(Ok(EngineOutput::Raw(body))) => LaneAttemptOutcome::Reported { body },
            Ok(Ok(EngineOutput::Body(body))) => match serde_json::to_value(&body) {
                Ok(body) => LaneAttemptOutcome::Reported { body },
                Err(e) => failed(
                    FaultKind::BadReport,
                    format!("report does not serialize: {e}"),
                    false,
                ),
            },
            Ok(Err(e)) => failed(e.kind, e.reason, e.transient),
            Err(e) => failed(FaultKind::Crash, format!("engine crashed: {e}"), true),
        }
    }

    async fn load(&self, job: &LaneJob) -> Result<Arc<Loaded>, LaneAttemptOutcome> {
        if let Some(hit) = self.bundles.get(&job.review_id) {
            return Ok(hit);
        }
        let bundle = match self.backend.load_bundle(&job.review_id).await {
            Ok(Some(b)) => b,
            Ok(None) => {
                return Err(failed(
                    FaultKind::Bundle,
                    format!("review bundle of {} not found", job.review_id),
                    false,
                ));
            }
            Err(e) => {
                return Err(failed(
                    FaultKind::Bundle,
                    format!("loading review bundle: {e}"),
                    e.is_transient(),
                ));
            }
        };
        let parsed = tokio::task::spawn_blocking(move || {
            let diff = diff::parse(&bundle.diff);
            (bundle, diff)
        })
        .await;
        let loaded = match parsed {
            Ok((bundle, Ok(diff))) => Arc::new(Loaded { bundle, diff }),
            Ok((_, Err(e))) => {
                return Err(failed(
                    FaultKind::Bundle,
                    format!("stored diff does not parse: {e}"),
                    false,
                ));
            }
            Err(e) => {
                return Err(failed(
                    FaultKind::Crash,
                    format!("diff parser crashed: {e}"),
                    true,
                ));
            }
        };
        self.bundles.put(job.review_id.clone(), loaded.clone());
        Ok(loaded)
    }
}
