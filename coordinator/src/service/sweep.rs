//! The sweeper: deadlines, orphaned reports and stream upkeep. Runs on every
//! coordinator; all it does is idempotent, so several may sweep at once.

use super::finalize::verdict_event;
use super::phases::Reached;
use super::{Coordinator, ServiceError};
use revu_domain::bundle::ReviewBundle;
use revu_domain::clock::Clock;
use revu_domain::diff::Diff;
use revu_domain::lane::{FaultKind, ReviewId};
use revu_domain::retry::Retryable;
use revu_domain::review::{LaneEnd, LaneResult, LaneResults, ReviewPhase, ReviewRecord};
use revu_queue::{JobQueue, MoveOutcome, ReviewStore};
use revu_stages::assemble::assemble;
use revu_stages::render;
use std::sync::Arc;
use std::time::Duration;

/// Sweeps between two rounds of stream trimming and consumer cleanup.
const UPKEEP_EVERY: u64 = 30;
/// A consumer idle this long with nothing pending belongs to a dead process.
const DEAD_CONSUMER_IDLE: Duration = Duration::from_secs(600);
/// The banner of a lane faulted because its review ran out of time.
const DEADLINE_BANNER: &str = "review deadline passed before the lane reported";

/// Why the sweeper faults a review's unsettled lanes.
#[derive(Debug, Clone, Copy)]
enum Fault<'a> {
    /// Its deadline passed.
    Deadline,
    /// It cannot be handled; the banner says why.
    Review(&'a str),
}

impl<B: JobQueue + ReviewStore> Coordinator<B> {
    /// Sweeps every `every` until `shutdown` resolves.
    pub async fn run_sweeper(
        &self,
        every: Duration,
        shutdown: impl std::future::Future<Output = ()>,
    ) {
        tokio::pin!(shutdown);
        let mut tick = tokio::time::interval(every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut round: u64 = 0;
        loop {
            tokio::select! {
                () = &mut shutdown => return,
                _ = tick.tick() => {}
            }
            if let Err(e) = self.sweep_once().await {
                tracing::warn!(error = %e, "sweep failed");
            }
            round += 1;
            if round.is_multiple_of(UPKEEP_EVERY)
                && let Err(e) = self.upkeep().await
            {
                tracing::warn!(error = %e, "stream upkeep failed");
            }
        }
    }

    /// One pass: fault the lanes of reviews past their deadline, finalize
    /// reviews whose last lane was settled by a coordinator that died before
    /// finalizing, and take over reports a dead coordinator left pending.
    ///
    /// A review that cannot be handled is faulted on its own (see
    /// [`Self::fault_review`]); the pass goes on with the next one, and the
    /// reclaim of orphaned reports runs whatever happened to the reviews.
    pub async fn sweep_once(&self) -> Result<(), ServiceError> {
        let now = self.clock.now_ms();
        let listed = self.backend.active_reviews().await;
        for id in listed.as_deref().unwrap_or_default() {
            let Err(e) = self.sweep_review(id, now).await else {
                continue;
            };
            if e.is_transient() {
                tracing::warn!(review_id = %id, error = %e, "review not swept; retried next sweep");
                continue;
            }
            tracing::warn!(review_id = %id, error = %e, "review cannot be swept; faulting it");
            if let Err(e) = self.fault_review(id, &e.to_string()).await {
                tracing::warn!(review_id = %id, error = %e, "faulting the review failed");
            }
        }
        let reclaimed = self
            .backend
            .reclaim_results(&self.consumer, self.settings.reclaim_idle(), 64)
            .await;
        for delivery in reclaimed? {
            self.count("reports_reclaimed", 1).await;
            self.handle_delivery(delivery).await;
        }
        listed.map(drop).map_err(ServiceError::from)
    }

    /// Deadline handling and finalization of one review.
    async fn sweep_review(&self, id: &ReviewId, now: u64) -> Result<(), ServiceError> {
        let Some(record) = self.backend.load_record(id).await? else {
            return Ok(());
        };
        if record.phase.is_terminal() {
            return Ok(());
        }
        if now >= record.deadline_ms && self.fault_unsettled(&record, Fault::Deadline).await? > 0 {
            self.metrics.past_deadline.inc();
        }
        self.try_finalize(id).await
    }

    /// Settles every lane of `record` that has no result yet as a pipeline
    /// fault (finalizing the review once the last one is); says how many.
    async fn fault_unsettled(
        &self,
        record: &ReviewRecord,
        fault: Fault<'_>,
    ) -> Result<usize, ServiceError> {
        let mut faulted = 0;
        let settled = self.backend.lane_results(&record.id).await?;
        let attempts = self.backend.lane_attempts(&record.id).await?;
        for lane in record
            .plan
            .lanes
            .iter()
            .filter(|l| !settled.contains_key(&l.id))
        {
            let (banner, kind) = match fault {
                // A lane whose engine no worker reads never ran: say so.
                Fault::Deadline if self.backend.workers_for(&lane.engine).await? == 0 => (
                    format!(
                        "review deadline passed: no worker offers engine `{}`",
                        lane.engine
                    ),
                    FaultKind::NoEngine,
                ),
                Fault::Deadline => (DEADLINE_BANNER.to_owned(), FaultKind::Deadline),
                Fault::Review(banner) => (banner.to_owned(), FaultKind::Bundle),
            };
            let result = LaneResult::new(
                lane.id.clone(),
                LaneEnd::PipelineFault {
                    fault: kind,
                    banner,
                },
                attempts.get(&lane.id).map_or(1, |a| a.awaited),
            );
            self.settle(record, result).await?;
            faulted += 1;
        }
        Ok(faulted)
    }

    /// Faults a review the sweeper could not handle, for `reason`: its
    /// unsettled lanes are settled as pipeline faults naming the reason, so
    /// it finalizes as NEEDS-HUMAN. When even finalizing fails (its bundle
    /// is gone, its diff no longer parses), it is closed with a report in
    /// which every lane is faulted, so it leaves the active set instead of
    /// failing every sweep, and its watchers get a verdict.
    async fn fault_review(&self, id: &ReviewId, reason: &str) -> Result<(), ServiceError> {
        let Some(record) = self.backend.load_record(id).await? else {
            return Ok(());
        };
        if record.phase.is_terminal() {
            return Ok(());
        }
        let mut banner = format!("review faulted: {reason}");
        let faulted = match self.fault_unsettled(&record, Fault::Review(&banner)).await {
            Ok(_) => self.try_finalize(id).await,
            Err(e) => Err(e),
        };
        match faulted {
            Err(e) if !e.is_transient() => {
                tracing::warn!(review_id = %id, error = %e, "review cannot be finalized; closing it with every lane faulted");
                let failed = e.to_string();
                if failed != reason {
                    banner = format!("{banner}; finalizing failed: {failed}");
                }
                self.close_faulted(id, &banner).await
            }
            other => other,
        }
    }

    /// Finishes review `id` with a report built from its plan alone, every
    /// lane a pipeline fault with `banner`, moving it to Finalizing first
    /// (unless it is there already). Nothing stored beside the record is
    /// read: that is what failed.
    async fn close_faulted(&self, id: &ReviewId, banner: &str) -> Result<(), ServiceError> {
        let record = match self.move_to(id, ReviewPhase::Finalizing, &[]).await {
            Ok(Reached::Moved(record)) => record,
            Ok(Reached::Found(record)) if record.phase == ReviewPhase::Finalizing => record,
            // Finished, cancelled or gone meanwhile.
            Ok(Reached::Found(_)) | Err(ServiceError::NotFound(_)) => return Ok(()),
            Err(e) => return Err(e),
        };
        let results: LaneResults = record
            .plan
            .lanes
            .iter()
            .map(|lane| {
                let end = LaneEnd::PipelineFault {
                    fault: FaultKind::Bundle,
                    banner: banner.to_owned(),
                };
                let result = LaneResult::new(lane.id.clone(), end, 0);
                (lane.id.clone(), Arc::new(result))
            })
            .collect();
        let report = assemble(
            &record.id,
            &record.plan,
            &results,
            &Diff::default(),
            &ReviewBundle::default(),
        );
        let finished = self
            .backend
            .finish_review(&record, render::json(&report), &[verdict_event(&report)])
            .await?;
        if finished != MoveOutcome::Moved {
            return Ok(());
        }
        self.observe_finished(&report);
        tracing::info!(
            review_id = %record.id,
            verdict = %report.verdict,
            gate = %report.gate,
            "faulted review closed"
        );
        Ok(())
    }

    /// Trims acknowledged stream entries and removes dead consumers.
    pub async fn upkeep(&self) -> Result<(), ServiceError> {
        let trimmed = self.backend.trim_acknowledged().await?;
        let pruned = self.backend.prune_consumers(DEAD_CONSUMER_IDLE).await?;
        tracing::debug!(trimmed, pruned, "stream upkeep");
        Ok(())
    }
}
