//! The review store half of the backend contract.

use super::QueueError;
use crate::bundle::ReviewBundle;
use crate::lane::ReviewId;
use crate::review::{LaneResult, ProgressEvent, ReviewRecord};
use std::collections::BTreeMap;
use std::future::Future;
use std::time::Duration;

/// Whether a submission created a review or found one under its key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CreateOutcome {
    Created,
    Existing(ReviewId),
}

/// Durable state of reviews.
pub trait ReviewStore: Clone + Send + Sync + 'static {
    /// Stores a new review (record and bundle) and marks it active. With an
    /// idempotency key already used, stores nothing and returns the review
    /// the key belongs to.
    fn create_review(
        &self,
        record: &ReviewRecord,
        bundle: &ReviewBundle,
        idempotency_key: Option<&str>,
    ) -> impl Future<Output = Result<CreateOutcome, QueueError>> + Send;

    fn load_record(
        &self,
        id: &ReviewId,
    ) -> impl Future<Output = Result<Option<ReviewRecord>, QueueError>> + Send;

    fn save_record(
        &self,
        record: &ReviewRecord,
    ) -> impl Future<Output = Result<(), QueueError>> + Send;

    fn load_bundle(
        &self,
        id: &ReviewId,
    ) -> impl Future<Output = Result<Option<ReviewBundle>, QueueError>> + Send;

    /// Records the settled result of a lane. Returns `false`, storing nothing,
    /// when the lane already has one (a duplicate report).
    fn settle_lane(
        &self,
        id: &ReviewId,
        result: &LaneResult,
    ) -> impl Future<Output = Result<bool, QueueError>> + Send;

    fn lane_results(
        &self,
        id: &ReviewId,
    ) -> impl Future<Output = Result<BTreeMap<String, LaneResult>, QueueError>> + Send;

    /// The attempt currently awaited for a lane (reports of older attempts are
    /// stale).
    fn set_lane_attempt(
        &self,
        id: &ReviewId,
        lane_id: &str,
        attempt: u32,
    ) -> impl Future<Output = Result<(), QueueError>> + Send;

    /// Moves the awaited attempt of a lane from `from` to `to` only if it is
    /// still `from` (0 matches a lane with none recorded). Returns whether it
    /// moved: of two coordinators handling the same report, one wins.
    fn advance_lane_attempt(
        &self,
        id: &ReviewId,
        lane_id: &str,
        from: u32,
        to: u32,
    ) -> impl Future<Output = Result<bool, QueueError>> + Send;

    fn lane_attempts(
        &self,
        id: &ReviewId,
    ) -> impl Future<Output = Result<BTreeMap<String, u32>, QueueError>> + Send;

    /// Stores the final report, marks the review finished and inactive.
    fn finish_review(
        &self,
        record: &ReviewRecord,
        report_json: &str,
    ) -> impl Future<Output = Result<(), QueueError>> + Send;

    fn load_report(
        &self,
        id: &ReviewId,
    ) -> impl Future<Output = Result<Option<String>, QueueError>> + Send;

    /// Adds to delivery counters (retries, duplicates suppressed, …).
    fn bump_stat(&self, name: &str, by: u64)
    -> impl Future<Output = Result<(), QueueError>> + Send;

    /// Every delivery counter.
    fn stats(&self) -> impl Future<Output = Result<BTreeMap<String, u64>, QueueError>> + Send;

    /// How many reviews are not yet in a terminal state.
    fn active_count(&self) -> impl Future<Output = Result<usize, QueueError>> + Send;

    /// Reviews not yet in a terminal state.
    fn active_reviews(&self) -> impl Future<Output = Result<Vec<ReviewId>, QueueError>> + Send;

    fn push_event(
        &self,
        id: &ReviewId,
        event: &ProgressEvent,
    ) -> impl Future<Output = Result<(), QueueError>> + Send;

    /// Events after `after` (`"0"` for all), waiting up to `wait` for one.
    fn read_events(
        &self,
        id: &ReviewId,
        after: &str,
        wait: Duration,
    ) -> impl Future<Output = Result<Vec<(String, ProgressEvent)>, QueueError>> + Send;
}
