//! The review store half of the backend contract.

use super::QueueError;
use revu_domain::bundle::ReviewBundle;
use revu_domain::lane::{LaneJob, ReviewId};
use revu_domain::review::{
    LaneAttempts, LaneResult, LaneResults, ProgressEvent, ReviewPhase, ReviewRecord,
};
use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

/// Whether a submission created a review or found one under its key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CreateOutcome {
    Created,
    Existing(ReviewId),
}

/// What [`ReviewStore::charge_quota`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuotaCharge {
    /// Charged; this much of the window's allowance is now used.
    Charged { used: u64 },
    /// Not charged: it would have gone over; this much was used already.
    Refused { used: u64 },
}

/// A review's move from one phase to the next ([`ReviewStore::move_phase`]),
/// with what is written in the same step.
#[derive(Debug)]
pub struct PhaseMove<'a> {
    /// The phase the review must be in for the move to happen.
    pub from: ReviewPhase,
    /// The review after the move: its phase is the one it moves to, its
    /// plan the plan from then on.
    pub record: &'a ReviewRecord,
    /// First attempts of lanes the move adds to the plan, dispatched with
    /// it (each recorded as its lane's awaited attempt).
    pub jobs: &'a [LaneJob],
    /// What watchers hear of the move, appended with it.
    pub events: &'a [ProgressEvent],
    /// The final report, stored with a move to Finished.
    pub report: Option<String>,
}

impl<'a> PhaseMove<'a> {
    /// The move of `record`'s review from `from` to `record.phase`, with
    /// nothing written beside the record but `events`.
    pub fn new(from: ReviewPhase, record: &'a ReviewRecord, events: &'a [ProgressEvent]) -> Self {
        PhaseMove {
            from,
            record,
            jobs: &[],
            events,
            report: None,
        }
    }

    /// An error unless the phase table allows the move: asking for any
    /// other is a mistake of the caller, never a race.
    pub(crate) fn check(&self) -> Result<(), QueueError> {
        let to = self.record.phase;
        if self.from.allows(to) {
            Ok(())
        } else {
            Err(QueueError::PhaseMove {
                from: self.from,
                to,
            })
        }
    }
}

/// What [`ReviewStore::move_phase`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoveOutcome {
    /// The review moved, and everything that goes with the move is stored.
    Moved,
    /// Nothing changed: the review was no longer in the phase the move
    /// leaves. `current` is the phase it was in (another move won), or
    /// `None` when the store no longer holds the review.
    Lost { current: Option<ReviewPhase> },
}

/// Durable state of reviews.
///
/// A review's stored record changes only together with its phase
/// ([`ReviewStore::move_phase`]), so a move that checks the phase it
/// leaves also checks the plan it replaces.
pub trait ReviewStore: Clone + Send + Sync + 'static {
    /// A new id for a review `tenant` submits, under `idempotency_key` if
    /// it has one. A backend that keeps a review beside its key (a Redis
    /// Cluster slot) picks one that lands there.
    fn new_review_id(&self, tenant: Option<&str>, idempotency_key: Option<&str>) -> ReviewId {
        let _ = idempotency_key;
        ReviewId::new_in(tenant)
    }

    /// Stores a new review (record and bundle), marks it active and
    /// publishes its first lane attempts (`jobs`, each recorded as the
    /// attempt awaited), all in one atomic step. With an idempotency key
    /// already used, does nothing and returns the review the key belongs to.
    fn create_review(
        &self,
        record: &ReviewRecord,
        bundle: &Arc<ReviewBundle>,
        idempotency_key: Option<&str>,
        jobs: &[LaneJob],
    ) -> impl Future<Output = Result<CreateOutcome, QueueError>> + Send;

    /// The review `tenant` (none: the open namespace) submitted under
    /// idempotency key `key`, if the key is still held.
    fn idempotent_review(
        &self,
        tenant: Option<&str>,
        key: &str,
    ) -> impl Future<Output = Result<Option<ReviewId>, QueueError>> + Send;

    /// Charges `amount` to `tenant`'s quota `name` in the fixed window of
    /// `window_ms` that holds `now_ms`, unless that would take the window
    /// past `limit`; atomic, so coordinators side by side share one count.
    fn charge_quota(
        &self,
        tenant: &str,
        name: &str,
        window_ms: u64,
        now_ms: u64,
        amount: u64,
        limit: u64,
    ) -> impl Future<Output = Result<QuotaCharge, QueueError>> + Send;

    /// The lane report body stored under cache key `key`, if it has not
    /// expired.
    fn cached_lane(
        &self,
        key: &str,
    ) -> impl Future<Output = Result<Option<String>, QueueError>> + Send;

    /// Stores a lane report body under cache key `key` for `ttl`.
    fn cache_lane(
        &self,
        key: &str,
        body: &str,
        ttl: Duration,
    ) -> impl Future<Output = Result<(), QueueError>> + Send;

    fn load_record(
        &self,
        id: &ReviewId,
    ) -> impl Future<Output = Result<Option<ReviewRecord>, QueueError>> + Send;

    /// Stores `record` in place of the review's record, all but its
    /// phase: the phase moves only by [`ReviewStore::move_phase`].
    fn save_record(
        &self,
        record: &ReviewRecord,
    ) -> impl Future<Output = Result<(), QueueError>> + Send;

    /// Moves a review from `step.from` to `step.record.phase`, only if it
    /// is still in `step.from` (a compare-and-set), and in the same atomic
    /// step stores the record, dispatches the jobs, appends the events and
    /// stores the report of the move. A move to Finished or Cancelled also
    /// takes the review out of the active reviews and starts its
    /// retention. Of two moves from one phase, one is made and the other
    /// told the phase the first moved to.
    ///
    /// A move the phase table does not allow is an error, whatever the
    /// stored phase.
    fn move_phase(
        &self,
        step: PhaseMove<'_>,
    ) -> impl Future<Output = Result<MoveOutcome, QueueError>> + Send;

    /// The review's bundle, shared: one copy however many lanes read it
    /// at once in one process.
    fn load_bundle(
        &self,
        id: &ReviewId,
    ) -> impl Future<Output = Result<Option<std::sync::Arc<ReviewBundle>>, QueueError>> + Send;

    /// Records the settled result of a lane and, in the same atomic step,
    /// appends `event` (the lane's finished or faulted event) to the
    /// review's events, so that a coordinator stopped in between cannot
    /// leave a settled lane its watchers never hear of. Returns `false`,
    /// storing nothing, when the lane already has one (a duplicate report)
    /// or the store no longer holds the review (it expired). The result is
    /// shared: a store in this process keeps it as it is, uncopied.
    fn settle_lane(
        &self,
        id: &ReviewId,
        result: &std::sync::Arc<LaneResult>,
        event: &ProgressEvent,
    ) -> impl Future<Output = Result<bool, QueueError>> + Send;

    fn lane_results(
        &self,
        id: &ReviewId,
    ) -> impl Future<Output = Result<LaneResults, QueueError>> + Send;

    /// How many lanes of the review have a settled result, without
    /// reading any result.
    fn settled_count(
        &self,
        id: &ReviewId,
    ) -> impl Future<Output = Result<usize, QueueError>> + Send;

    /// Whether the lane `lane_id` of the review has a settled result,
    /// without reading any result.
    fn lane_settled(
        &self,
        id: &ReviewId,
        lane_id: &str,
    ) -> impl Future<Output = Result<bool, QueueError>> + Send;

    /// Dispatches the retry `job` of a lane, atomically with moving the
    /// lane's awaited attempt from `from` to `job.attempt`, and only if it is
    /// still `from`: of two coordinators handling the same report, one wins,
    /// and a crash cannot leave an awaited attempt that was never sent. With
    /// `gate_rejection`, it also requires (and records) that the
    /// completeness gate has not sent this lane back before, and records
    /// `from` as the attempt it sent back ([`LaneAttempts::gate_rejected`]).
    fn advance_and_dispatch(
        &self,
        job: &LaneJob,
        from: u32,
        gate_rejection: bool,
    ) -> impl Future<Output = Result<bool, QueueError>> + Send;

    /// Dispatches the first attempt `job` of a lane already in the stored
    /// plan, in one atomic step and at most once: records `job.attempt` as
    /// the lane's awaited attempt and publishes `job`. Returns `false`,
    /// changing nothing, when the lane already has an awaited attempt (a
    /// second coordinator or sweep got there first) or the review is no
    /// longer active (finished or cancelled).
    fn dispatch_planned(
        &self,
        job: &LaneJob,
    ) -> impl Future<Output = Result<bool, QueueError>> + Send;

    /// Adds `tokens` (negative to give back a reservation) to what the
    /// lanes of review `id` have spent against its token cap, and returns
    /// the new total (never below 0).
    fn charge_tokens(
        &self,
        id: &ReviewId,
        tokens: i64,
    ) -> impl Future<Output = Result<u64, QueueError>> + Send;

    /// What is recorded of each dispatched lane's attempts, by lane id.
    fn lane_attempts(
        &self,
        id: &ReviewId,
    ) -> impl Future<Output = Result<BTreeMap<String, LaneAttempts>, QueueError>> + Send;

    /// Moves the review of `record` (in Finalizing) to Finished, storing
    /// the final report and appending `events` (its last: the verdict) in
    /// the same atomic step, so that watchers of a finished review always
    /// hear its verdict, and a review cancelled meanwhile stays cancelled
    /// (the move is then lost, and nothing is stored). The JSON is taken,
    /// not borrowed: the embedded mode's store keeps it as it is, where a
    /// copy would hold a large report twice at once.
    fn finish_review(
        &self,
        record: &ReviewRecord,
        report_json: String,
        events: &[ProgressEvent],
    ) -> impl Future<Output = Result<MoveOutcome, QueueError>> + Send {
        let finished = record.in_phase(ReviewPhase::Finished);
        async move {
            self.move_phase(PhaseMove {
                report: Some(report_json),
                ..PhaseMove::new(ReviewPhase::Finalizing, &finished, events)
            })
            .await
        }
    }

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

    /// Appends `event` to the review's events ([`ReviewStore::push_events`]).
    fn push_event(
        &self,
        id: &ReviewId,
        event: &ProgressEvent,
    ) -> impl Future<Output = Result<(), QueueError>> + Send;

    /// Appends `events` in order, in one round trip to a remote store.
    /// Events for a review the store does not hold (it expired, or never
    /// was) are dropped: they would bring back a stream of it that nothing
    /// expires.
    fn push_events(
        &self,
        id: &ReviewId,
        events: &[ProgressEvent],
    ) -> impl Future<Output = Result<(), QueueError>> + Send;

    /// Events after `after` (`"0"` for all), waiting up to `wait` for one.
    fn read_events(
        &self,
        id: &ReviewId,
        after: &str,
        wait: Duration,
    ) -> impl Future<Output = Result<Vec<(String, ProgressEvent)>, QueueError>> + Send;
}
