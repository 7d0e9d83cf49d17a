//! The sweeper: deadlines and orphaned reports. Runs on every coordinator;
//! all it does is idempotent, so several may sweep at once.

use super::{Coordinator, ServiceError};
use revu_common::queue::{JobQueue, ReviewStore};
use revu_common::report::LaneOutcome;
use revu_common::review::{LaneResult, now_ms};
use std::time::Duration;

/// Reports pending this long on another coordinator are taken over.
const ORPHAN_REPORT_IDLE: Duration = Duration::from_secs(30);

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
        loop {
            tokio::select! {
                () = &mut shutdown => return,
                _ = tick.tick() => {}
            }
            if let Err(e) = self.sweep_once().await {
                tracing::warn!(error = %e, "sweep failed");
            }
        }
    }

    /// One pass: fault lanes of reviews past their deadline, finalize reviews
    /// whose last report was settled by a coordinator that died before
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
            if now < record.deadline_ms {
                self.try_finalize(&id).await?;
                continue;
            }
            let settled = self.backend.lane_results(&id).await?;
            for lane in record
                .plan
                .lanes
                .iter()
                .filter(|l| !settled.contains_key(&l.id))
            {
                let why = "review deadline passed before the lane reported".to_owned();
                self.dead_letter(&record, &lane.id, 0, &why).await?;
                let result = LaneResult {
                    lane_id: lane.id.clone(),
                    outcome: LaneOutcome::PipelineFault,
                    attempts: self
                        .backend
                        .lane_attempts(&id)
                        .await?
                        .get(&lane.id)
                        .copied()
                        .unwrap_or(1),
                    body: None,
                    banner: Some(why),
                    worker: String::new(),
                    duration_ms: 0,
                };
                self.settle(&record, result).await?;
            }
            self.try_finalize(&id).await?;
        }
        for delivery in self
            .backend
            .reclaim_results(&self.consumer, ORPHAN_REPORT_IDLE, 64)
            .await?
        {
            self.handle_delivery(delivery).await;
        }
        Ok(())
    }
}
