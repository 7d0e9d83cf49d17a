//! [`JobQueue`] on Redis Streams consumer groups.

use super::layout::{self, SHARDS};
use super::maintenance::{field, info_fields};
use super::reads::{PAYLOAD, is_nogroup, rotation};
use super::{
    COORDINATOR_GROUP, RedisBackend, WORKER_GROUP, sharded_entry, split_handle, split_sharded_entry,
};
use crate::{Delivery, EntryId, JobQueue, QueueDepth, QueueError, encode, job_entry};
use redis::Value;
use revu_domain::lane::{LaneJob, LaneReport, ReviewId};
use std::time::Duration;

impl JobQueue for RedisBackend {
    async fn publish_job(&self, job: &LaneJob) -> Result<EntryId, QueueError> {
        let raw = encode("lane job", job)?;
        let engine = &job.lane.engine;
        let shard = self.job_shard(&job.review_id);
        let mut conn = self.conn.clone();
        let (id,): (String,) = redis::pipe()
            .atomic()
            .cmd("XADD")
            .arg(self.layout.jobs(shard, engine))
            .arg("*")
            .arg(PAYLOAD)
            .arg(raw)
            .cmd("SADD")
            .arg(self.layout.sharded(shard, "engines"))
            .arg(engine)
            .ignore()
            .cmd("SADD")
            .arg(self.layout.ready(shard))
            .arg(engine)
            .ignore()
            .query_async(&mut conn)
            .await?;
        Ok(job_entry(engine, &sharded_entry(shard, &id)))
    }

    async fn take_jobs(
        &self,
        consumer: &str,
        engines: &[String],
        wait: Duration,
    ) -> Result<Vec<Delivery<LaneJob>>, QueueError> {
        if engines.is_empty() {
            tokio::time::sleep(wait).await;
            return Ok(Vec::new());
        }
        // A read blocks no longer than until the next delayed retry is
        // due (on a cluster, than one shard's turn); then it reads again,
        // until `wait` is over.
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let got = match self.read_jobs(consumer, engines, left).await {
                // A stream no worker has read yet has no group: make them all.
                Err(e) if is_nogroup(&e) => {
                    self.ensure_job_groups(engines).await?;
                    self.read_jobs(consumer, engines, left).await?
                }
                other => other?,
            };
            if !got.is_empty() || tokio::time::Instant::now() >= deadline {
                return Ok(got);
            }
        }
    }

    async fn reclaim_jobs(
        &self,
        consumer: &str,
        engines: &[String],
        min_idle: Duration,
        max: usize,
    ) -> Result<Vec<Delivery<LaneJob>>, QueueError> {
        let mut claimed = Vec::new();
        for shard in rotation() {
            for engine in engines {
                let left = max.saturating_sub(claimed.len());
                if left == 0 {
                    return Ok(claimed);
                }
                let stream = self.layout.jobs(shard, engine);
                match self
                    .autoclaim::<LaneJob>(shard, &stream, WORKER_GROUP, consumer, min_idle, left)
                    .await
                {
                    Ok(got) => claimed.extend(got.into_iter().map(|d| Delivery {
                        entry: job_entry(engine, &d.entry),
                        ..d
                    })),
                    // No group yet: nobody ever took a job there to reclaim.
                    Err(QueueError::Redis(e)) if is_nogroup(&e) => {}
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(claimed)
    }

    async fn workers_for(&self, engine: &str) -> Result<usize, QueueError> {
        // Every reader reads every shard: the busiest shard's count is the
        // number of workers.
        let mut conn = self.conn.clone();
        let mut most = 0;
        for shard in layout::shards() {
            let groups: Result<Value, _> = redis::cmd("XINFO")
                .arg("GROUPS")
                .arg(self.layout.jobs(shard, engine))
                .query_async(&mut conn)
                .await;
            let groups = match groups {
                Ok(g) => g,
                // No stream, hence no reader.
                Err(e)
                    if e.kind()
                        == redis::ErrorKind::Server(redis::ServerErrorKind::ResponseError) =>
                {
                    continue;
                }
                Err(e) => return Err(e.into()),
            };
            let Value::Array(groups) = groups else {
                continue;
            };
            let here = groups
                .iter()
                .map(info_fields)
                .find(|f| field::<String>(f, "name").as_deref() == Some(WORKER_GROUP))
                .and_then(|f| field::<usize>(&f, "consumers"))
                .unwrap_or(0);
            most = most.max(here);
        }
        Ok(most)
    }

    async fn extend_lease(&self, consumer: &str, entry: &str) -> Result<bool, QueueError> {
        self.claim_if_held(consumer, entry, 0).await
    }

    async fn release_job(&self, consumer: &str, entry: &str) -> Result<(), QueueError> {
        self.release(consumer, entry).await
    }

    async fn prune_consumers(&self, min_idle: Duration) -> Result<usize, QueueError> {
        self.prune(min_idle).await
    }

    async fn trim_acknowledged(&self) -> Result<u64, QueueError> {
        self.trim().await
    }

    async fn complete_job(&self, entry: &str, report: &LaneReport) -> Result<(), QueueError> {
        let (shard, engine, id) = split_handle(entry)?;
        let raw = encode("lane report", report)?;
        let mut conn = self.conn.clone();
        redis::pipe()
            .atomic()
            .cmd("XADD")
            .arg(self.layout.sharded(shard, "results"))
            .arg("*")
            .arg(PAYLOAD)
            .arg(raw)
            .ignore()
            .cmd("XACK")
            .arg(self.layout.jobs(shard, engine))
            .arg(WORKER_GROUP)
            .arg(id)
            .ignore()
            .query_async::<()>(&mut conn)
            .await?;
        Ok(())
    }

    async fn dead_letter_job(
        &self,
        entry: Option<&str>,
        raw: &str,
        reason: &str,
    ) -> Result<(), QueueError> {
        let job = entry.map(split_handle).transpose()?;
        // Without an entry, the shard of the review the payload names.
        let shard = match job {
            Some((shard, _, _)) => shard,
            None => serde_json::from_str::<serde_json::Value>(raw)
                .ok()
                .and_then(|v| v.get("review_id")?.as_str().map(str::to_owned))
                .map_or(0, |id| layout::shard_of(&ReviewId(id))),
        };
        let mut conn = self.conn.clone();
        let mut pipe = redis::pipe();
        pipe.atomic()
            .cmd("XADD")
            .arg(self.layout.sharded(shard, "dead"))
            .arg("*")
            .arg(PAYLOAD)
            .arg(raw)
            .arg("reason")
            .arg(reason)
            .arg("entry")
            .arg(entry.unwrap_or("-"))
            .ignore();
        if let Some((shard, engine, id)) = job {
            pipe.cmd("XACK")
                .arg(self.layout.jobs(shard, engine))
                .arg(WORKER_GROUP)
                .arg(id)
                .ignore();
        }
        pipe.query_async::<()>(&mut conn).await?;
        Ok(())
    }

    async fn take_results(
        &self,
        consumer: &str,
        wait: Duration,
    ) -> Result<Vec<Delivery<LaneReport>>, QueueError> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let got = self.read_results(consumer, left).await?;
            if !got.is_empty() || tokio::time::Instant::now() >= deadline {
                return Ok(got);
            }
        }
    }

    async fn reclaim_results(
        &self,
        consumer: &str,
        min_idle: Duration,
        max: usize,
    ) -> Result<Vec<Delivery<LaneReport>>, QueueError> {
        let mut claimed = Vec::new();
        for shard in rotation() {
            let left = max.saturating_sub(claimed.len());
            if left == 0 {
                break;
            }
            let stream = self.layout.sharded(shard, "results");
            claimed.extend(
                self.autoclaim(shard, &stream, COORDINATOR_GROUP, consumer, min_idle, left)
                    .await?,
            );
        }
        Ok(claimed)
    }

    async fn ack_result(&self, entry: &str) -> Result<(), QueueError> {
        let (shard, id) = split_sharded_entry(entry)?;
        let mut conn = self.conn.clone();
        redis::cmd("XACK")
            .arg(self.layout.sharded(shard, "results"))
            .arg(COORDINATOR_GROUP)
            .arg(id)
            .query_async::<()>(&mut conn)
            .await?;
        Ok(())
    }

    async fn ping(&self) -> Result<(), QueueError> {
        let mut conn = self.conn.clone();
        redis::cmd("PING").query_async::<()>(&mut conn).await?;
        Ok(())
    }

    fn result_readers(&self) -> usize {
        if self.cluster { usize::from(SHARDS) } else { 1 }
    }

    async fn job_backlog(&self) -> Result<QueueDepth, QueueError> {
        self.backlog().await
    }
}
