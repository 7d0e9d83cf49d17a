//! Lease extension, release, consumer cleanup and trimming on Redis.

use super::layout;
use super::scripts::{CLAIM_IF_HELD, DELETE_IDLE_CONSUMER};
use super::{COORDINATOR_GROUP, RedisBackend, WORKER_GROUP, split_handle};
use crate::QueueError;
use redis::Value;
use std::time::Duration;

/// Idle time given to a released entry: far past any lease.
const RELEASED_IDLE_MS: u64 = 24 * 60 * 60 * 1000;
/// Dead letters kept (approximate trim): enough to investigate, bounded.
const DEAD_LETTERS_KEPT: u64 = 100_000;

/// Fields of one `XINFO` reply element, as (name, value) pairs.
pub(super) fn info_fields(v: &Value) -> Vec<(String, Value)> {
    let text = |k: &Value| redis::from_redis_value_ref::<String>(k).ok();
    match v {
        Value::Map(pairs) => pairs
            .iter()
            .filter_map(|(k, v)| text(k).map(|k| (k, v.clone())))
            .collect(),
        Value::Array(items) => items
            .chunks(2)
            .filter_map(|kv| match kv {
                [k, v] => text(k).map(|k| (k, v.clone())),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

pub(super) fn field<T: redis::FromRedisValue>(fields: &[(String, Value)], name: &str) -> Option<T> {
    fields
        .iter()
        .find(|(k, _)| k == name)
        .and_then(|(_, v)| redis::from_redis_value_ref::<T>(v).ok())
}

/// The id just after `id` (`ms-seq` + 1).
fn next_id(id: &str) -> Option<String> {
    let (ms, seq) = id.split_once('-')?;
    let seq: u64 = seq.parse().ok()?;
    Some(format!("{ms}-{}", seq.checked_add(1)?))
}

impl RedisBackend {
    /// Resets the idle time of job `entry` (a job handle) to `idle_ms` if
    /// `consumer` still holds it.
    pub(super) async fn claim_if_held(
        &self,
        consumer: &str,
        entry: &str,
        idle_ms: u64,
    ) -> Result<bool, QueueError> {
        let (shard, engine, id) = split_handle(entry)?;
        let mut conn = self.conn.clone();
        let done: i64 = CLAIM_IF_HELD
            .key(self.layout.jobs(shard, engine))
            .arg(consumer)
            .arg(id)
            .arg(idle_ms)
            .arg(WORKER_GROUP)
            .invoke_async(&mut conn)
            .await?;
        Ok(done == 1)
    }

    pub(super) async fn release(&self, consumer: &str, entry: &str) -> Result<(), QueueError> {
        self.claim_if_held(consumer, entry, RELEASED_IDLE_MS)
            .await
            .map(|_| ())
    }

    pub(super) async fn prune(&self, min_idle: Duration) -> Result<usize, QueueError> {
        let mut conn = self.conn.clone();
        let min_idle_ms = u64::try_from(min_idle.as_millis()).unwrap_or(u64::MAX);
        let mut removed = 0;
        for (stream, group) in self.groups().await? {
            let consumers: Result<Value, _> = redis::cmd("XINFO")
                .arg("CONSUMERS")
                .arg(&stream)
                .arg(group)
                .query_async(&mut conn)
                .await;
            let consumers = match consumers {
                Ok(c) => c,
                // A job stream no worker has read yet has no group, and
                // a shard may have no stream of an engine at all.
                Err(e)
                    if e.code() == Some("NOGROUP")
                        || e.kind()
                            == redis::ErrorKind::Server(redis::ServerErrorKind::ResponseError) =>
                {
                    continue;
                }
                Err(e) => return Err(e.into()),
            };
            let Value::Array(list) = consumers else {
                continue;
            };
            for c in &list {
                let fields = info_fields(c);
                let (Some(name), Some(pending), Some(idle)) = (
                    field::<String>(&fields, "name"),
                    field::<u64>(&fields, "pending"),
                    field::<u64>(&fields, "idle"),
                ) else {
                    continue;
                };
                if pending > 0 || idle < min_idle_ms {
                    continue;
                }
                let done: i64 = DELETE_IDLE_CONSUMER
                    .key(&stream)
                    .arg(group)
                    .arg(&name)
                    .invoke_async(&mut conn)
                    .await?;
                if done == 1 {
                    tracing::info!(consumer = %name, group, "idle consumer removed");
                    removed += 1;
                }
            }
        }
        Ok(removed)
    }

    pub(super) async fn trim(&self) -> Result<u64, QueueError> {
        let mut conn = self.conn.clone();
        let mut trimmed = 0;
        for (stream, group) in self.groups().await? {
            let Some(min_id) = self.safe_trim_point(&stream, group).await? else {
                continue;
            };
            let n: u64 = redis::cmd("XTRIM")
                .arg(&stream)
                .arg("MINID")
                .arg(&min_id)
                .query_async(&mut conn)
                .await?;
            trimmed += n;
        }
        for shard in layout::shards() {
            redis::cmd("XTRIM")
                .arg(self.layout.sharded(shard, "dead"))
                .arg("MAXLEN")
                .arg("~")
                .arg(DEAD_LETTERS_KEPT / u64::from(layout::SHARDS))
                .query_async::<u64>(&mut conn)
                .await?;
        }
        Ok(trimmed)
    }

    /// Every stream with its consumer group: each shard's job stream of
    /// each engine, and each shard's result stream.
    async fn groups(&self) -> Result<Vec<(String, &'static str)>, QueueError> {
        let engines = self.job_engines().await?;
        let mut streams = Vec::new();
        for shard in layout::shards() {
            for engine in &engines {
                streams.push((self.layout.jobs(shard, engine), WORKER_GROUP));
            }
            streams.push((self.layout.sharded(shard, "results"), COORDINATOR_GROUP));
        }
        Ok(streams)
    }

    /// The lowest id that must stay: the oldest pending entry, else the one
    /// after the group's last delivered entry. Everything below it has been
    /// delivered and acknowledged.
    async fn safe_trim_point(
        &self,
        stream: &str,
        group: &str,
    ) -> Result<Option<String>, QueueError> {
        let mut conn = self.conn.clone();
        let groups: Result<Value, _> = redis::cmd("XINFO")
            .arg("GROUPS")
            .arg(stream)
            .query_async(&mut conn)
            .await;
        // No stream yet (or none readable this round): nothing to trim now.
        let Ok(Value::Array(groups)) = groups else {
            return Ok(None);
        };
        let last_delivered = groups
            .iter()
            .map(info_fields)
            .find(|f| field::<String>(f, "name").as_deref() == Some(group))
            .and_then(|f| field::<String>(&f, "last-delivered-id"));
        let Some(last_delivered) = last_delivered else {
            return Ok(None);
        };
        let summary: Value = redis::cmd("XPENDING")
            .arg(stream)
            .arg(group)
            .query_async(&mut conn)
            .await?;
        let oldest_pending = match &summary {
            Value::Array(items) => items
                .get(1)
                .and_then(|v| redis::from_redis_value_ref::<Option<String>>(v).ok())
                .flatten(),
            _ => None,
        };
        Ok(oldest_pending.or_else(|| next_id(&last_delivered)))
    }
}

#[cfg(test)]
mod tests {
    use super::next_id;

    #[test]
    fn next_id_bumps_the_sequence() {
        assert_eq!(next_id("1700-0").as_deref(), Some("1700-1"));
        assert_eq!(next_id("0-0").as_deref(), Some("0-1"));
        assert_eq!(next_id("garbage"), None);
    }
}
