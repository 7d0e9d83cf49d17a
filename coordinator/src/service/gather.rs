//! Gathering: each lane report passes the completeness gate, is retried,
//! settled or faulted, and the review finalizes once every lane settled.
//!
//! Every transition is guarded so that duplicate reports (a reclaimed job
//! run twice, a report handled by two coordinators) count once: a lane
//! settles at most once (`settle_lane`), and a retry is dispatched only by
//! whoever moves the lane's awaited attempt forward (`advance_lane_attempt`).

use super::lane_state::{LaneState, Reported, Transition};
use super::{Coordinator, ServiceError, observe};
use revu_domain::clock::Clock;
use revu_domain::lane::{FaultKind, LaneAttemptOutcome, LaneJob, LaneReport, LaneSpec};
use revu_domain::retry::Retry;
use revu_domain::review::{LaneEnd, LaneResult, ProgressEvent, ReviewRecord};
use revu_queue::{Delivery, JobQueue, ReviewStore};
use revu_stages::completeness;
use std::time::Duration;
use tracing::Instrument;

/// What one report does to its lane.
enum Step {
    Settle(LaneResult),
    Retry {
        job: LaneJob,
        reason: String,
        kind: FaultKind,
    },
    /// The completeness gate sends the report back once.
    GateRetry {
        job: LaneJob,
        reason: String,
    },
    Discard(&'static str),
}

impl<B: JobQueue + ReviewStore> Coordinator<B> {
    /// How many gatherers side by side keep every result stream watched.
    pub fn result_readers(&self) -> usize {
        self.backend.result_readers()
    }

    /// Consumes lane reports until `shutdown` resolves.
    pub async fn run_gatherer(&self, shutdown: impl std::future::Future<Output = ()>) {
        tokio::pin!(shutdown);
        loop {
            let next = tokio::select! {
                () = &mut shutdown => return,
                next = self.backend.take_results(&self.consumer, Duration::from_secs(2)) => next,
            };
            match next {
                Ok(deliveries) => {
                    for delivery in deliveries {
                        self.handle_delivery(delivery).await;
                    }
                }
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
            Ok(report) if delivery.bytes > self.settings.max_report_bytes => {
                // Judged as the engine's failure, never stored: a worker
                // cannot make the coordinator hold what it likes.
                let limit = revu_stages::limits::within(
                    || "lane report bytes".into(),
                    delivery.bytes,
                    self.settings.max_report_bytes,
                    "--max-report-bytes",
                );
                let reason = limit.err().map(|e| e.to_string()).unwrap_or_default();
                tracing::warn!(lane = %report.lane_id, %reason, "oversized lane report refused");
                self.apply_report(&oversized(report, reason)).await
            }
            Ok(report) => self.apply_report(&masked(report)).await,
            Err(poison) => {
                tracing::warn!(entry = %delivery.entry, error = %poison, "undecodable lane report dropped");
                self.count("poison_reports", 1).await;
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

    /// Adds to a delivery counter; a lost count is only logged.
    pub(super) async fn count(&self, name: &str, by: u64) {
        if let Err(e) = self.backend.bump_stat(name, by).await {
            tracing::debug!(error = %e, stat = name, "counter not updated");
        }
    }

    async fn apply_report(&self, report: &LaneReport) -> Result<(), ServiceError> {
        let id = &report.review_id;
        let Some(record) = self.backend.load_record(id).await? else {
            return self.discard(report, "report for an unknown review").await;
        };
        let span = observe::gather_span(&record, report);
        self.apply_to(&record, report).instrument(span).await
    }

    /// Applies a report of a known review, in the report's gather span.
    async fn apply_to(
        &self,
        record: &ReviewRecord,
        report: &LaneReport,
    ) -> Result<(), ServiceError> {
        if record.phase.is_terminal() {
            self.count("late_reports", 1).await;
            return self
                .discard(report, "late report for a finished or cancelled review")
                .await;
        }
        let Some(spec) = record.plan.lanes.iter().find(|l| l.id == report.lane_id) else {
            return self.discard(report, "report for an unplanned lane").await;
        };
        let step = self.next_step(record, spec, report).await?;
        match step {
            Step::Discard(why) => {
                self.count("duplicates_suppressed", 1).await;
                self.discard(report, why).await
            }
            Step::Settle(result) => {
                observe::record_step("settle");
                self.settle(record, result).await
            }
            Step::Retry {
                mut job,
                reason,
                kind,
            } => {
                observe::record_step("retry");
                let publish = observe::publish_span(&mut job, &self.messaging);
                let sent = self
                    .backend
                    .advance_and_dispatch(&job, report.attempt, false)
                    .instrument(publish.clone())
                    .await?;
                observe::record_sent(&publish, sent);
                if sent {
                    self.count("retries", 1).await;
                    self.observe_retry(&job, kind);
                    self.announce_retry(&job, &reason).await
                } else {
                    self.count("duplicates_suppressed", 1).await;
                    self.discard(report, "retry already dispatched").await
                }
            }
            Step::GateRetry { mut job, reason } => {
                observe::record_step("gate_retry");
                let publish = observe::publish_span(&mut job, &self.messaging);
                let sent = self
                    .backend
                    .advance_and_dispatch(&job, report.attempt, true)
                    .instrument(publish.clone())
                    .await?;
                observe::record_sent(&publish, sent);
                if sent {
                    self.count("gate_rejections", 1).await;
                    self.observe_retry(&job, FaultKind::CompletenessGate);
                    self.announce_retry(&job, &reason).await
                } else {
                    self.count("duplicates_suppressed", 1).await;
                    self.discard(report, "gate rejection already sent back")
                        .await
                }
            }
        }
    }

    async fn discard(&self, report: &LaneReport, why: &'static str) -> Result<(), ServiceError> {
        observe::record_step("discard");
        self.metrics.reports_discarded.inc();
        tracing::debug!(review_id = %report.review_id, lane = %report.lane_id, attempt = report.attempt, why, "report discarded");
        Ok(())
    }

    /// Decides what a report does, from the stored state of its lane (see
    /// [`super::lane_state`] for the transition table).
    async fn next_step(
        &self,
        record: &ReviewRecord,
        spec: &LaneSpec,
        report: &LaneReport,
    ) -> Result<Step, ServiceError> {
        let id = &record.id;
        // Both at once: one round trip to a remote store.
        let (attempts, settled) = tokio::try_join!(
            self.backend.lane_attempts(id),
            self.backend.lane_settled(id, &spec.id)
        )?;
        let state = LaneState::of(attempts.get(&spec.id), settled);
        if let Err(why) = state.admits(report.attempt) {
            return Ok(Step::Discard(why));
        }
        let reported = match &report.outcome {
            LaneAttemptOutcome::Reported { body } => {
                match observe::completeness_gate(
                    body,
                    completeness::Expected::of(&record.plan, spec),
                ) {
                    Ok(mut body) => {
                        completeness::attribute(&mut body, &spec.engine);
                        Reported::Passed(body)
                    }
                    Err(problems) => {
                        let mut salvaged = completeness::salvage(body);
                        completeness::attribute(&mut salvaged, &spec.engine);
                        Reported::FailedGate {
                            problems,
                            salvaged,
                            unfinished: body.get(completeness::INCOMPLETE).is_some(),
                        }
                    }
                }
            }
            LaneAttemptOutcome::Failed {
                reason,
                retry,
                kind,
                retry_after_ms,
            } => Reported::Failed {
                reason: reason.clone(),
                retry: *retry,
                kind: *kind,
                retry_after: retry_after_ms.map(Duration::from_millis),
            },
        };
        let policy = self.settings.retry_for(&spec.engine);
        let retry_job = |rejected_for: Vec<String>, delay: Duration| LaneJob {
            not_before_ms: self
                .clock
                .now_ms()
                .saturating_add(u64::try_from(delay.as_millis()).unwrap_or(0)),
            rejected_for,
            spent: report.usage.clone(),
            ..record
                .plan
                .job(id, spec, report.attempt + 1, record.deadline_ms)
        };
        let result = |end| LaneResult {
            lane_id: spec.id.clone(),
            end,
            attempts: report.attempt,
            usage: report.usage.clone(),
            cache: report.cache,
            worker: report.worker.clone(),
            duration_ms: report.duration_ms,
        };
        Ok(match state.on_report(report.attempt, reported, &policy) {
            Transition::Discard(why) => Step::Discard(why),
            Transition::Complete(body) => Step::Settle(result(LaneEnd::Complete { body })),
            Transition::Incomplete { body, why } => {
                Step::Settle(result(LaneEnd::Incomplete { body, banner: why }))
            }
            Transition::SendBack { problems } => Step::GateRetry {
                reason: format!("completeness gate: {}", problems.join("; ")),
                job: retry_job(problems, Duration::ZERO),
            },
            Transition::Retry {
                delay,
                reason,
                kind,
            } => Step::Retry {
                job: retry_job(Vec::new(), delay),
                reason,
                kind,
            },
            Transition::Fault { why, kind } => Step::Settle(result(LaneEnd::PipelineFault {
                fault: kind,
                banner: why,
            })),
        })
    }

    async fn announce_retry(&self, job: &LaneJob, reason: &str) -> Result<(), ServiceError> {
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
        self.announce_dispatch(job).await
    }

    /// Records a faulted lane on the dead-letter stream.
    async fn dead_letter(
        &self,
        record: &ReviewRecord,
        result: &LaneResult,
    ) -> Result<(), ServiceError> {
        let raw = serde_json::json!({
            "review_id": record.id,
            "lane_id": result.lane_id,
            "attempts": result.attempts,
        })
        .to_string();
        let why = result.banner().unwrap_or("faulted");
        self.backend.dead_letter_job(None, &raw, why).await?;
        self.count("dead_letters", 1).await;
        Ok(())
    }

    /// Stores a lane's settled result (once) and finalizes when it was the
    /// last. A faulted lane goes to the dead-letter stream with its reason.
    pub(super) async fn settle(
        &self,
        record: &ReviewRecord,
        result: LaneResult,
    ) -> Result<(), ServiceError> {
        let event = match &result.end {
            LaneEnd::PipelineFault { banner, .. } => ProgressEvent::LaneFaulted {
                lane_id: result.lane_id.clone(),
                reason: banner.clone(),
            },
            _ => ProgressEvent::LaneFinished {
                lane_id: result.lane_id.clone(),
                attempt: result.attempts,
                findings: result
                    .body()
                    .map(|b| u32::try_from(b.findings.len()).unwrap_or(u32::MAX))
                    .unwrap_or(0),
            },
        };
        observe::record_settled(&result);
        // Shared with the store, which keeps it as it is in this process.
        let result = std::sync::Arc::new(result);
        let counted = if self
            .backend
            .settle_lane(&record.id, &result, &event)
            .await?
        {
            self.observe_settled(record, &result);
            if let LaneEnd::PipelineFault { banner, .. } = &result.end {
                tracing::warn!(review_id = %record.id, lane = %result.lane_id, reason = %banner, "lane faulted");
                self.dead_letter(record, &result).await?;
            }
            "lanes_settled"
        } else {
            "duplicates_suppressed"
        };
        // The counter goes out beside finalization's first reads.
        let ((), finalized) = tokio::join!(self.count(counted, 1), self.try_finalize(&record.id));
        finalized
    }
}

/// `report` with its outcome replaced by a permanent failure: the report
/// was past the size limit (`reason` says which and by how much).
fn oversized(report: &LaneReport, reason: String) -> LaneReport {
    LaneReport {
        outcome: LaneAttemptOutcome::Failed {
            reason,
            retry: Retry::Permanent,
            kind: FaultKind::BadReport,
            retry_after_ms: None,
        },
        ..report.clone()
    }
}

/// `report` with credentials masked in a failure's reason: what a worker
/// says goes into logs, spans and the report.
fn masked(report: &LaneReport) -> std::borrow::Cow<'_, LaneReport> {
    match &report.outcome {
        LaneAttemptOutcome::Failed {
            reason,
            retry,
            kind,
            retry_after_ms,
        } => match revu_domain::redact::redact(reason) {
            std::borrow::Cow::Borrowed(_) => std::borrow::Cow::Borrowed(report),
            std::borrow::Cow::Owned(reason) => std::borrow::Cow::Owned(LaneReport {
                outcome: LaneAttemptOutcome::Failed {
                    reason,
                    retry: *retry,
                    kind: *kind,
                    retry_after_ms: *retry_after_ms,
                },
                ..report.clone()
            }),
        },
        LaneAttemptOutcome::Reported { .. } => std::borrow::Cow::Borrowed(report),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{EngineRetry, ReviewSettings};
    use crate::service::paused::{coordinator, submission};
    use revu_domain::retry::RetryPolicy;

    /// A lane whose engine failed for now is dispatched again once the
    /// policy's backoff has passed and not before: the retry is due by the
    /// coordinator's clock, and waits beside its stream until then.
    #[tokio::test(start_paused = true)]
    async fn a_failed_lane_goes_out_again_after_its_backoff_and_not_before() {
        let policy = RetryPolicy {
            max_attempts: 3,
            base_delay_ms: 8_000,
            max_delay_ms: 60_000,
        };
        let settings = ReviewSettings {
            engine_retries: vec![EngineRetry {
                engine: "rules".into(),
                policy,
            }],
            ..ReviewSettings::default()
        };
        // Years from the system's time: a retry due by any clock but the
        // coordinator's would not come.
        let (backend, coordinator) = coordinator(settings, 1_600_000_000_000);
        let submitted = coordinator
            .submit(submission("docs-only.patch", None))
            .await;
        assert!(submitted.is_ok(), "{submitted:?}");
        let engines = ["rules".to_owned()];
        let take = |wait| backend.take_jobs("worker", &engines, wait);
        // Every lane out of the way; the first one fails.
        let mut held = Vec::new();
        while let Ok(mut got) = take(Duration::ZERO).await
            && let Some(d) = got.pop()
        {
            held.push(d);
        }
        let first = held.first().unwrap_or_else(|| panic!("no lane dispatched"));
        let job = first.payload.clone().unwrap_or_else(|e| panic!("{e}"));
        let failed = LaneReport {
            review_id: job.review_id.clone(),
            lane_id: job.lane.id.clone(),
            attempt: 1,
            worker: "worker".into(),
            engine: "rules".into(),
            duration_ms: 1,
            outcome: LaneAttemptOutcome::Failed {
                reason: "simulated outage".into(),
                retry: Retry::Transient,
                kind: FaultKind::EngineError,
                retry_after_ms: None,
            },
            usage: None,
            cache: None,
        };
        let completed = backend.complete_job(&first.entry, &failed).await;
        assert!(completed.is_ok(), "{completed:?}");
        let reports = backend.take_results("coordinator", Duration::ZERO).await;
        for delivery in reports.unwrap_or_default() {
            coordinator.handle_delivery(delivery).await;
        }
        let failed_at = tokio::time::Instant::now();
        let delayed = backend.job_backlog().await.map(|d| d.delayed);
        assert_eq!(delayed.ok(), Some(1), "the retry waits out its backoff");

        // The backoff of a first failure is half to all of the base delay.
        let early = take(Duration::from_millis(3_999)).await;
        assert!(early.is_ok_and(|got| got.is_empty()), "dispatched early");
        let retried = take(Duration::from_secs(5)).await;
        let waited = failed_at.elapsed();
        let retry = retried
            .ok()
            .and_then(|mut got| got.pop())
            .and_then(|d| d.payload.ok())
            .unwrap_or_else(|| panic!("no retry {waited:?} after the failure"));
        assert_eq!((retry.lane.id, retry.attempt), (job.lane.id, 2));
        assert!(
            waited >= Duration::from_secs(4) && waited <= Duration::from_secs(8),
            "the retry came {waited:?} after the failure"
        );
    }
}
