//! [`JobQueue`] on Redis Streams consumer groups.

use super::conn::block_ms;
use super::maintenance::{field, info_fields};
use super::{COORDINATOR_GROUP, RedisBackend, WORKER_GROUP};
use crate::lane::{LaneJob, LaneReport};
use crate::queue::{Delivery, EntryId, JobQueue, Poison, QueueDepth, QueueError, decode, encode};
use redis::Value;
use redis::streams::{StreamAutoClaimReply, StreamId, StreamReadReply};
use std::time::Duration;

/// Field that carries the JSON payload of every stream entry.
const PAYLOAD: &str = "payload";

fn payload_of(entry: &StreamId) -> Result<String, Poison> {
    let poison = |error: String| Poison {
        raw: format!("{:?}", entry.map),
        error,
    };
    match entry.map.get(PAYLOAD) {
        Some(v) => redis::from_redis_value_ref::<String>(v)
            .map_err(|e| poison(format!("payload is not text: {e}"))),
        None => Err(poison(format!(
            "entry {} has no `{PAYLOAD}` field",
            entry.id
        ))),
    }
}

fn to_delivery<T: serde::de::DeserializeOwned>(entry: &StreamId) -> Delivery<T> {
    Delivery {
        entry: entry.id.clone(),
        payload: payload_of(entry).and_then(|raw| decode(&raw)),
    }
}

impl RedisBackend {
    async fn read_group<T: serde::de::DeserializeOwned>(
        &self,
        stream: &str,
        group: &str,
        consumer: &str,
        wait: Duration,
    ) -> Result<Option<Delivery<T>>, QueueError> {
        let mut conn = self.blocking.checkout().await?;
        let reply: Result<Option<StreamReadReply>, _> = redis::cmd("XREADGROUP")
            .arg("GROUP")
            .arg(group)
            .arg(consumer)
            .arg("COUNT")
            .arg(1)
            .arg("BLOCK")
            .arg(block_ms(wait))
            .arg("STREAMS")
            .arg(stream)
            .arg(">")
            .query_async(&mut conn)
            .await;
        let reply = reply?;
        self.blocking.give_back(conn);
        Ok(reply
            .and_then(|r| r.keys.into_iter().next())
            .and_then(|k| k.ids.into_iter().next())
            .map(|entry| to_delivery(&entry)))
    }

    async fn autoclaim<T: serde::de::DeserializeOwned>(
        &self,
        stream: &str,
        group: &str,
        consumer: &str,
        min_idle: Duration,
        max: usize,
    ) -> Result<Vec<Delivery<T>>, QueueError> {
        let mut conn = self.conn.clone();
        let reply: StreamAutoClaimReply = redis::cmd("XAUTOCLAIM")
            .arg(stream)
            .arg(group)
            .arg(consumer)
            .arg(u64::try_from(min_idle.as_millis()).unwrap_or(u64::MAX))
            .arg("0-0")
            .arg("COUNT")
            .arg(max.max(1))
            .query_async(&mut conn)
            .await?;
        // Entries trimmed or deleted while pending come back as ids only
        // (Redis 7); acknowledge them so they never loop.
        if !reply.deleted_ids.is_empty() {
            redis::cmd("XACK")
                .arg(stream)
                .arg(group)
                .arg(&reply.deleted_ids)
                .query_async::<()>(&mut conn)
                .await?;
        }
        Ok(reply.claimed.iter().map(to_delivery).collect())
    }

    async fn ack(&self, stream: &str, group: &str, entry: &str) -> Result<(), QueueError> {
        let mut conn = self.conn.clone();
        redis::cmd("XACK")
            .arg(stream)
            .arg(group)
            .arg(entry)
            .query_async::<()>(&mut conn)
            .await?;
        Ok(())
    }
}

impl JobQueue for RedisBackend {
    async fn publish_job(&self, job: &LaneJob) -> Result<EntryId, QueueError> {
        let raw = encode("lane job", job)?;
        let mut conn = self.conn.clone();
        let id: String = redis::cmd("XADD")
            .arg(self.key("jobs"))
            .arg("*")
            .arg(PAYLOAD)
            .arg(raw)
            .query_async(&mut conn)
            .await?;
        Ok(id)
    }

    async fn take_job(
        &self,
        consumer: &str,
        wait: Duration,
    ) -> Result<Option<Delivery<LaneJob>>, QueueError> {
        self.read_group(&self.key("jobs"), WORKER_GROUP, consumer, wait)
            .await
    }

    async fn reclaim_jobs(
        &self,
        consumer: &str,
        min_idle: Duration,
        max: usize,
    ) -> Result<Vec<Delivery<LaneJob>>, QueueError> {
        self.autoclaim(&self.key("jobs"), WORKER_GROUP, consumer, min_idle, max)
            .await
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
        let raw = encode("lane report", report)?;
        let mut conn = self.conn.clone();
        redis::pipe()
            .atomic()
            .cmd("XADD")
            .arg(self.key("results"))
            .arg("*")
            .arg(PAYLOAD)
            .arg(raw)
            .ignore()
            .cmd("XACK")
            .arg(self.key("jobs"))
            .arg(WORKER_GROUP)
            .arg(entry)
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
        let mut conn = self.conn.clone();
        let mut pipe = redis::pipe();
        pipe.atomic()
            .cmd("XADD")
            .arg(self.key("dead"))
            .arg("*")
            .arg(PAYLOAD)
            .arg(raw)
            .arg("reason")
            .arg(reason)
            .arg("entry")
            .arg(entry.unwrap_or("-"))
            .ignore();
        if let Some(entry) = entry {
            pipe.cmd("XACK")
                .arg(self.key("jobs"))
                .arg(WORKER_GROUP)
                .arg(entry)
                .ignore();
        }
        pipe.query_async::<()>(&mut conn).await?;
        Ok(())
    }

    async fn take_result(
        &self,
        consumer: &str,
        wait: Duration,
    ) -> Result<Option<Delivery<LaneReport>>, QueueError> {
        self.read_group(&self.key("results"), COORDINATOR_GROUP, consumer, wait)
            .await
    }

    async fn reclaim_results(
        &self,
        consumer: &str,
        min_idle: Duration,
        max: usize,
    ) -> Result<Vec<Delivery<LaneReport>>, QueueError> {
        self.autoclaim(
            &self.key("results"),
            COORDINATOR_GROUP,
            consumer,
            min_idle,
            max,
        )
        .await
    }

    async fn ack_result(&self, entry: &str) -> Result<(), QueueError> {
        self.ack(&self.key("results"), COORDINATOR_GROUP, entry)
            .await
    }

    async fn job_backlog(&self) -> Result<QueueDepth, QueueError> {
        let mut conn = self.conn.clone();
        let groups: Value = redis::cmd("XINFO")
            .arg("GROUPS")
            .arg(self.key("jobs"))
            .query_async(&mut conn)
            .await?;
        let dead: u64 = redis::cmd("XLEN")
            .arg(self.key("dead"))
            .query_async(&mut conn)
            .await?;
        let (pending, lag) = group_counts(&groups, WORKER_GROUP);
        Ok(QueueDepth {
            pending,
            undelivered: lag,
            dead,
        })
    }
}

/// `pending` and `lag` of `group` in an `XINFO GROUPS` reply.
fn group_counts(reply: &Value, group: &str) -> (u64, u64) {
    let Value::Array(groups) = reply else {
        return (0, 0);
    };
    groups
        .iter()
        .map(info_fields)
        .find(|f| field::<String>(f, "name").as_deref() == Some(group))
        .map(|f| {
            (
                field(&f, "pending").unwrap_or(0),
                field(&f, "lag").unwrap_or(0),
            )
        })
        .unwrap_or((0, 0))
}
