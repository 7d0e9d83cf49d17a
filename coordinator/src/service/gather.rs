//! Gathering: each lane report passes the completeness gate, is retried,
//! settled or faulted, and the review finalizes once every lane settled.

use super::{Coordinator, ServiceError};
use crate::stages::completeness;
use revu_common::lane::{LaneAttemptOutcome, LaneJob, LaneReport};
use revu_common::queue::{Delivery, JobQueue, ReviewStore};
use revu_common::report::LaneOutcome;
use revu_common::retry::Retry;
use revu_common::review::{LaneResult, ProgressEvent, ReviewRecord, now_ms};
use std::time::Duration;

/// Marker key in the attempts map: the attempt the completeness gate rejected.
fn gate_rejection_key(lane_id: &str) -> String {
    format!("{lane_id}!gate-rejected")
}

impl<B: JobQueue + ReviewStore> Coordinator<B> {
    /// Consumes lane reports until `shutdown` resolves.
    pub async fn run_gatherer(&self, shutdown: impl std::future::Future<Output = ()>) {
        tokio::pin!(shutdown);
        loop {
            let next = tokio::select! {
                () = &mut shutdown => return,
                next = self.backend.take_result(&self.consumer, Duration::from_secs(2)) => next,
            };
            match next {
                Ok(Some(delivery)) => self.handle_delivery(delivery).await,
                Ok(None) => {}
                Err(e) => {
                    tracing::warn!(error = %e, "reading lane reports failed; retrying");
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
            }
        }
    }

    /// Applies one report delivery and acknowledges it once its effects are
    /// stored. On a backend error the entry stays pending and is reclaimed.
    pub(super) async fn handle_delivery(&self, delivery: Delivery<LaneReport>) {
        let outcome = match &delivery.payload {
            Ok(report) => self.apply_report(report).await,
            Err(why) => {
                tracing::warn!(entry = %delivery.entry, error = %why, "undecodable lane report dropped");
                Ok(())
            }
        };
        match outcome {
            Ok(()) => {
                if let Err(e) = self.backend.ack_result(&delivery.entry).await {
                    tracing::warn!(entry = %delivery.entry, error = %e, "ack of lane report failed");
                }
            }
            Err(e) => {
                tracing::warn!(entry = %delivery.entry, error = %e, "lane report left pending")
            }
        }
    }

    async fn apply_report(&self, report: &LaneReport) -> Result<(), ServiceError> {
        let id = &report.review_id;
        let Some(record) = self.backend.load_record(id).await? else {
            tracing::warn!(review_id = %id, lane = %report.lane_id, "report for an unknown review dropped");
            return Ok(());
        };
        if record.state.is_terminal() {
            tracing::debug!(review_id = %id, lane = %report.lane_id, "late report discarded");
            return Ok(());
        }
        let attempts = self.backend.lane_attempts(id).await?;
        let awaited = attempts.get(&report.lane_id).copied().unwrap_or(1);
        if report.attempt < awaited {
            tracing::debug!(review_id = %id, lane = %report.lane_id, attempt = report.attempt, "stale attempt discarded");
            return Ok(());
        }
        if self
            .backend
            .lane_results(id)
            .await?
            .contains_key(&report.lane_id)
        {
            tracing::debug!(review_id = %id, lane = %report.lane_id, "duplicate report discarded");
            return Ok(());
        }
        let Some(spec) = record.plan.lanes.iter().find(|l| l.id == report.lane_id) else {
            tracing::warn!(review_id = %id, lane = %report.lane_id, "report for an unplanned lane dropped");
            return Ok(());
        };
        let retry_job = |attempt: u32, rejected_for: Vec<String>, delay: Duration| LaneJob {
            review_id: id.clone(),
            lane: spec.clone(),
            attempt,
            bundle_ref: id.0.clone(),
            deadline_ms: record.deadline_ms,
            not_before_ms: now_ms().saturating_add(u64::try_from(delay.as_millis()).unwrap_or(0)),
            rejected_for,
            traceparent: None,
        };
        let settled = match &report.outcome {
            LaneAttemptOutcome::Reported { body } => match completeness::check(body) {
                Ok(body) => LaneResult {
                    lane_id: report.lane_id.clone(),
                    outcome: LaneOutcome::Complete,
                    attempts: report.attempt,
                    body: Some(body),
                    banner: None,
                    worker: report.worker.clone(),
                    duration_ms: report.duration_ms,
                },
                Err(problems) => {
                    let key = gate_rejection_key(&report.lane_id);
                    if !attempts.contains_key(&key) {
                        self.backend
                            .set_lane_attempt(id, &key, report.attempt)
                            .await?;
                        let reason = format!("completeness gate: {}", problems.join("; "));
                        self.retry_lane(
                            &retry_job(report.attempt + 1, problems, Duration::ZERO),
                            &reason,
                        )
                        .await?;
                        return Ok(());
                    }
                    LaneResult {
                        lane_id: report.lane_id.clone(),
                        outcome: LaneOutcome::Incomplete,
                        attempts: report.attempt,
                        body: Some(completeness::salvage(body)),
                        banner: Some(format!(
                            "report failed the completeness gate twice: {}",
                            problems.join("; ")
                        )),
                        worker: report.worker.clone(),
                        duration_ms: report.duration_ms,
                    }
                }
            },
            LaneAttemptOutcome::Failed { reason, transient } => {
                let policy = self.settings.retry();
                let kind = if *transient {
                    Retry::Transient
                } else {
                    Retry::Permanent
                };
                if policy.allows_another(report.attempt, kind) {
                    let job =
                        retry_job(report.attempt + 1, Vec::new(), policy.delay(report.attempt));
                    self.retry_lane(&job, reason).await?;
                    return Ok(());
                }
                let why = if *transient {
                    format!("failed {} attempt(s), last: {reason}", report.attempt)
                } else {
                    format!("permanent failure: {reason}")
                };
                self.dead_letter(&record, &report.lane_id, report.attempt, &why)
                    .await?;
                LaneResult {
                    lane_id: report.lane_id.clone(),
                    outcome: LaneOutcome::PipelineFault,
                    attempts: report.attempt,
                    body: None,
                    banner: Some(why),
                    worker: report.worker.clone(),
                    duration_ms: report.duration_ms,
                }
            }
        };
        self.settle(&record, settled).await
    }

    async fn retry_lane(&self, job: &LaneJob, reason: &str) -> Result<(), ServiceError> {
        tracing::info!(review_id = %job.review_id, lane = %job.lane.id, attempt = job.attempt, reason, "lane retried");
        self.backend
            .push_event(
                &job.review_id,
                &ProgressEvent::LaneRetried {
                    lane_id: job.lane.id.clone(),
                    attempt: job.attempt,
                    reason: reason.to_owned(),
                },
            )
            .await?;
        self.dispatch(job).await
    }

    /// Records a faulted lane on the dead-letter stream.
    pub(super) async fn dead_letter(
        &self,
        record: &ReviewRecord,
        lane_id: &str,
        attempt: u32,
        why: &str,
    ) -> Result<(), ServiceError> {
        let raw =
            serde_json::json!({"review_id": record.id, "lane_id": lane_id, "attempt": attempt})
                .to_string();
        self.backend.dead_letter_job(None, &raw, why).await?;
        Ok(())
    }

    /// Stores a lane's settled result (once) and finalizes when it was the last.
    pub(super) async fn settle(
        &self,
        record: &ReviewRecord,
        result: LaneResult,
    ) -> Result<(), ServiceError> {
        let event = match result.outcome {
            LaneOutcome::PipelineFault => ProgressEvent::LaneFaulted {
                lane_id: result.lane_id.clone(),
                reason: result.banner.clone().unwrap_or_default(),
            },
            _ => ProgressEvent::LaneFinished {
                lane_id: result.lane_id.clone(),
                attempt: result.attempts,
                findings: result
                    .body
                    .as_ref()
                    .map(|b| u32::try_from(b.findings.len()).unwrap_or(u32::MAX))
                    .unwrap_or(0),
            },
        };
        if self.backend.settle_lane(&record.id, &result).await? {
            self.backend.push_event(&record.id, &event).await?;
        }
        self.try_finalize(&record.id).await
    }
}
