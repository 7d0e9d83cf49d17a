//! How much work waits on the job streams, per engine and shard: what the
//! metrics sample and the tests read.

use super::layout;
use super::maintenance::{field, info_fields};
use super::{RedisBackend, WORKER_GROUP};
use crate::{QueueDepth, QueueError, StreamDepth};
use redis::Value;
use redis::aio::ConnectionLike;

impl RedisBackend {
    /// Every job stream's depth, and the totals.
    pub(super) async fn backlog(&self) -> Result<QueueDepth, QueueError> {
        let mut conn = self.conn.clone();
        let mut depth = QueueDepth::default();
        let engines = self.job_engines().await?;
        let now_ms = server_time_ms(&mut conn).await?;
        for shard in layout::shards() {
            for engine in &engines {
                let stream = self.layout.jobs(shard, engine);
                let mut one = stream_depth(&mut conn, &stream, now_ms).await?;
                one.delayed = redis::cmd("ZCARD")
                    .arg(self.layout.delayed(shard, engine))
                    .query_async::<u64>(&mut conn)
                    .await?;
                one.engine.clone_from(engine);
                one.shard = shard;
                depth.add(one);
            }
            depth.dead += redis::cmd("XLEN")
                .arg(self.layout.sharded(shard, "dead"))
                .query_async::<u64>(&mut conn)
                .await?;
        }
        Ok(depth)
    }
}

/// The server's clock in milliseconds: entry ids carry the server's time,
/// so ages are measured against it, not against this host's clock.
async fn server_time_ms(conn: &mut impl ConnectionLike) -> Result<u64, QueueError> {
    let (secs, micros): (u64, u64) = redis::cmd("TIME").query_async(conn).await?;
    Ok(secs.saturating_mul(1000).saturating_add(micros / 1000))
}

/// Pending, undelivered and the oldest unacknowledged entry's age on one
/// job stream.
async fn stream_depth(
    conn: &mut impl ConnectionLike,
    stream: &str,
    now_ms: u64,
) -> Result<StreamDepth, QueueError> {
    let groups: Result<Value, _> = redis::cmd("XINFO")
        .arg("GROUPS")
        .arg(stream)
        .query_async(conn)
        .await;
    let mut depth = StreamDepth::default();
    let mut oldest: Option<u64> = None;
    match groups
        .as_ref()
        .ok()
        .and_then(|g| group_info(g, WORKER_GROUP))
    {
        Some(group) => {
            depth.pending = group.pending;
            depth.undelivered = group.lag;
            if group.pending > 0 {
                // The summary form: [count, smallest id, largest id, consumers].
                let summary: Value = redis::cmd("XPENDING")
                    .arg(stream)
                    .arg(WORKER_GROUP)
                    .query_async(conn)
                    .await?;
                if let Value::Array(parts) = &summary {
                    oldest = parts.get(1).and_then(id_ms);
                }
            }
            if group.lag > 0 {
                let after = format!("({}", group.last_delivered);
                let first = first_entry(conn, stream, &after).await?;
                oldest = min_some(oldest, first);
            }
        }
        // No worker has read this stream yet (or it does not exist): all
        // of it waits.
        None => {
            depth.undelivered = redis::cmd("XLEN")
                .arg(stream)
                .query_async::<u64>(conn)
                .await?;
            if depth.undelivered > 0 {
                oldest = first_entry(conn, stream, "-").await?;
            }
        }
    }
    depth.oldest_age_ms = oldest.map_or(0, |ms| now_ms.saturating_sub(ms));
    Ok(depth)
}

/// The time part of the first entry id of `stream` from `start` on.
async fn first_entry(
    conn: &mut impl ConnectionLike,
    stream: &str,
    start: &str,
) -> Result<Option<u64>, QueueError> {
    let entries: Value = redis::cmd("XRANGE")
        .arg(stream)
        .arg(start)
        .arg("+")
        .arg("COUNT")
        .arg(1)
        .query_async(conn)
        .await?;
    Ok(match &entries {
        Value::Array(items) => items.first().and_then(|entry| match entry {
            Value::Array(parts) => parts.first().and_then(id_ms),
            _ => None,
        }),
        _ => None,
    })
}

fn min_some(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The milliseconds of a stream entry id (`ms-seq`).
fn id_ms(id: &Value) -> Option<u64> {
    let id: String = redis::from_redis_value_ref(id).ok()?;
    id.split('-').next()?.parse().ok()
}

/// What `XINFO GROUPS` says of one group.
struct GroupInfo {
    pending: u64,
    lag: u64,
    last_delivered: String,
}

/// `group`'s entry in an `XINFO GROUPS` reply, if the group is there.
fn group_info(reply: &Value, group: &str) -> Option<GroupInfo> {
    let Value::Array(groups) = reply else {
        return None;
    };
    groups
        .iter()
        .map(info_fields)
        .find(|f| field::<String>(f, "name").as_deref() == Some(group))
        .map(|f| GroupInfo {
            pending: field(&f, "pending").unwrap_or(0),
            lag: field(&f, "lag").unwrap_or(0),
            last_delivered: field(&f, "last-delivered-id").unwrap_or_else(|| "0-0".to_owned()),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_give_their_milliseconds() {
        assert_eq!(
            id_ms(&Value::BulkString(b"1700000000123-4".to_vec())),
            Some(1_700_000_000_123)
        );
        assert_eq!(id_ms(&Value::Nil), None);
        assert_eq!(min_some(Some(3), None), Some(3));
        assert_eq!(min_some(Some(3), Some(2)), Some(2));
        assert_eq!(min_some(None, None), None);
    }
}
