//! Queries and control: get, watch, cancel.

use super::phases::Reached;
use super::{Coordinator, ServiceError};
use revu_domain::lane::ReviewId;
use revu_domain::review::{ProgressEvent, ReviewPhase, ReviewState};
use revu_queue::{JobQueue, ReviewStore};
use std::time::Duration;

/// A review as `GetReview` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewStatus {
    pub id: ReviewId,
    pub state: ReviewState,
    pub report_json: Option<String>,
    pub lanes_total: usize,
    pub lanes_settled: usize,
}

impl<B: JobQueue + ReviewStore> Coordinator<B> {
    pub async fn status(&self, id: &ReviewId) -> Result<ReviewStatus, ServiceError> {
        // Asked together, so that on Redis they go out in one round trip:
        // the record, how many lanes settled (no result is read), and the
        // report, which is there once the review finished.
        let (record, settled, report) = tokio::join!(
            self.backend.load_record(id),
            self.backend.settled_count(id),
            self.backend.load_report(id),
        );
        let record = record?.ok_or_else(|| ServiceError::NotFound(id.clone()))?;
        let report_json = match (record.phase, report?) {
            (ReviewPhase::Finished, Some(report)) => Some(report),
            // The phase and the report are written in one step; were the
            // reads answered out of order, the report is read again.
            (ReviewPhase::Finished, None) => self.backend.load_report(id).await?,
            _ => None,
        };
        let lanes_total = record.plan.lanes.len();
        Ok(ReviewStatus {
            id: id.clone(),
            state: record.phase.state(),
            report_json,
            lanes_total,
            lanes_settled: settled?.min(lanes_total),
        })
    }

    /// Stops a running review: no more dispatch, late reports discarded.
    /// Returns the state the review ends in: `Cancelled`, or `Finished`
    /// when its report was stored first (the cancel lost, and changed
    /// nothing).
    pub async fn cancel(&self, id: &ReviewId) -> Result<ReviewState, ServiceError> {
        let cancelled = [ProgressEvent::Cancelled];
        match self.move_to(id, ReviewPhase::Cancelled, &cancelled).await? {
            Reached::Moved(_) => {
                tracing::info!(review_id = %id, "review cancelled");
                Ok(ReviewState::Cancelled)
            }
            Reached::Found(record) => Ok(record.phase.state()),
        }
    }

    /// The review's state, without its lanes or report.
    pub async fn state(&self, id: &ReviewId) -> Result<ReviewState, ServiceError> {
        self.backend
            .load_record(id)
            .await?
            .map(|r| r.phase.state())
            .ok_or_else(|| ServiceError::NotFound(id.clone()))
    }

    /// Events after `after`, waiting up to `wait`. An unknown review has
    /// none: a watcher checks [`Coordinator::state`] when nothing comes,
    /// not before every read.
    pub async fn events(
        &self,
        id: &ReviewId,
        after: &str,
        wait: Duration,
    ) -> Result<Vec<(String, ProgressEvent)>, ServiceError> {
        Ok(self.backend.read_events(id, after, wait).await?)
    }
}
