//! The sweeper: deadlines, orphaned reports and stream upkeep. Runs on every
//! coordinator; all it does is idempotent, so several may sweep at once.

use super::{Coordinator, ServiceError};
use revu_common::queue::{JobQueue, ReviewStore};
use revu_common::report::LaneOutcome;
use revu_common::review::{LaneResult, now_ms};
use std::time::Duration;

/// Sweeps between two rounds of stream trimming and consumer cleanup.
const UPKEEP_EVERY: u64 = 30;
/// A consumer idle this long with nothing pending belongs to a dead process.
const DEAD_CONSUMER_IDLE: Duration = Duration::from_secs(600);

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
    pub async fn sweep_once(&self) -> Result<(), ServiceError> {
        let now = now_ms();
        for id in self.backend.active_reviews().await? {
            let Some(record) = self.backend.load_record(&id).await? else {
                continue;
            };
            if record.state.is_terminal() {
                continue;
            }
            if now >= record.deadline_ms {
                let settled = self.backend.lane_results(&id).await?;
                let attempts = self.backend.lane_attempts(&id).await?;
                for lane in record
                    .plan
                    .lanes
                    .iter()
                    .filter(|l| !settled.contains_key(&l.id))
                {
                    let result = LaneResult {
                        lane_id: lane.id.clone(),
                        outcome: LaneOutcome::PipelineFault,
                        attempts: attempts.get(&lane.id).map_or(1, |a| a.awaited),
                        body: None,
                        banner: Some("review deadline passed before the lane reported".to_owned()),
                        worker: String::new(),
                        duration_ms: 0,
                    };
                    self.settle(&record, result).await?;
                }
            }
            self.try_finalize(&id).await?;
        }
        for delivery in self
            .backend
            .reclaim_results(&self.consumer, self.settings.reclaim_idle(), 64)
            .await?
        {
            self.count("reports_reclaimed", 1).await;
            self.handle_delivery(delivery).await;
        }
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
