//! Submission: stages 1–4, then dispatch.

use super::{Coordinator, ServiceError, blocking};
use crate::prepare::{PlanRequest, prepare};
use revu_common::bundle::ReviewBundle;
use revu_common::lane::{LaneJob, ReviewId};
use revu_common::queue::{CreateOutcome, JobQueue, ReviewStore};
use revu_common::report::Rigor;
use revu_common::review::{ProgressEvent, ReviewRecord, ReviewState, now_ms};
use std::collections::BTreeMap;

/// A review request, already off the wire.
#[derive(Debug, Clone, Default)]
pub struct Submission {
    pub diff: Vec<u8>,
    pub head_files: BTreeMap<String, String>,
    pub intent: String,
    pub rigor: Option<Rigor>,
    pub labels: Vec<String>,
    pub idempotency_key: Option<String>,
    /// The repo's `REVIEW.md`.
    pub conventions: Option<String>,
    /// The repo's `revu.toml`.
    pub repo_config: Option<String>,
}

impl<B: JobQueue + ReviewStore> Coordinator<B> {
    /// Accepts a submission: plans it, stores it, dispatches its lanes.
    /// Returns the review id and whether it already existed.
    pub async fn submit(&self, sub: Submission) -> Result<(ReviewId, bool), ServiceError> {
        let limit = self.settings.max_diff_bytes;
        if sub.diff.len() > limit {
            return Err(ServiceError::DiffTooLarge {
                size: sub.diff.len(),
                limit,
            });
        }
        let inflight = self.backend.active_count().await?;
        if inflight >= self.settings.max_inflight {
            return Err(ServiceError::Busy {
                inflight,
                limit: self.settings.max_inflight,
            });
        }
        let request = PlanRequest {
            rigor: sub.rigor,
            labels: sub.labels.clone(),
            review_md: sub.conventions.clone(),
            repo_config: sub.repo_config.clone(),
        };
        let (settings, grouper) = (self.settings.clone(), self.grouper.clone());
        let diff = sub.diff;
        let (prepared, diff) = blocking(move || {
            let prepared = prepare(&diff, &settings, &grouper, &request);
            (prepared, diff)
        })
        .await?;
        let prepared = prepared?;
        let id = ReviewId::new();
        let created_ms = now_ms();
        let deadline_ms = created_ms.saturating_add(
            u64::try_from(self.settings.review_timeout().as_millis()).unwrap_or(u64::MAX),
        );
        let record = ReviewRecord {
            id: id.clone(),
            state: ReviewState::Running,
            created_ms,
            deadline_ms,
            plan: prepared.plan,
        };
        let bundle = ReviewBundle {
            diff,
            head_files: sub.head_files,
            intent: sub.intent,
            conventions: sub.conventions,
            repo_config: sub.repo_config,
        };
        match self
            .backend
            .create_review(&record, &bundle, sub.idempotency_key.as_deref())
            .await?
        {
            CreateOutcome::Existing(existing) => return Ok((existing, true)),
            CreateOutcome::Created => {}
        }
        tracing::info!(review_id = %id, lanes = record.plan.lanes.len(), "review accepted");
        for stage in ["facts", "grouping", "exact-cover", "plan"] {
            self.backend
                .push_event(
                    &id,
                    &ProgressEvent::StageFinished {
                        stage: stage.into(),
                    },
                )
                .await?;
        }
        self.backend
            .push_event(
                &id,
                &ProgressEvent::StageStarted {
                    stage: "dispatch".into(),
                },
            )
            .await?;
        for lane in &record.plan.lanes {
            let job = LaneJob {
                review_id: id.clone(),
                lane: lane.clone(),
                attempt: 1,
                bundle_ref: id.0.clone(),
                deadline_ms,
                not_before_ms: 0,
                rejected_for: Vec::new(),
                traceparent: None,
            };
            self.backend.set_lane_attempt(&id, &lane.id, 1).await?;
            self.dispatch(&job).await?;
        }
        self.backend
            .push_event(
                &id,
                &ProgressEvent::StageFinished {
                    stage: "dispatch".into(),
                },
            )
            .await?;
        if record.plan.lanes.is_empty() {
            self.try_finalize(&id).await?;
        }
        Ok((id, false))
    }

    /// Publishes one lane attempt (already recorded as the one awaited).
    pub(super) async fn dispatch(&self, job: &LaneJob) -> Result<(), ServiceError> {
        self.backend.publish_job(job).await?;
        self.backend
            .push_event(
                &job.review_id,
                &ProgressEvent::LaneDispatched {
                    lane_id: job.lane.id.clone(),
                    attempt: job.attempt,
                },
            )
            .await?;
        Ok(())
    }
}
