//! Reading the streams: entries decoded into deliveries, the shards a
//! read looks at and in what order, blocking reads, and reclaiming
//! entries whose consumer went quiet. [`super::queue`] builds the
//! [`crate::JobQueue`] on these.

use super::conn::block_ms;
use super::layout::{self, SHARDS};
use super::scripts::{TAKE_JOB, TAKE_ONE};
use super::{COORDINATOR_GROUP, RedisBackend, WORKER_GROUP, sharded_entry};
use crate::{Delivery, Poison, QueueError, decode, job_entry};
use redis::Value;
use redis::streams::{StreamAutoClaimReply, StreamId, StreamReadReply};
use revu_domain::clock::Clock;
use revu_domain::lane::{LaneJob, LaneReport, ReviewId};
use std::time::Duration;

/// Most due retries one read moves to each job stream.
const PROMOTE_BATCH: usize = 64;
/// On a cluster, the longest one blocking read waits on one shard before
/// the other shards are looked at again.
const CLUSTER_BLOCK: Duration = Duration::from_millis(100);

/// Field that carries the JSON payload of every stream entry.
pub(super) const PAYLOAD: &str = "payload";

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

fn to_delivery<T: serde::de::DeserializeOwned>(shard: u16, entry: &StreamId) -> Delivery<T> {
    let raw = payload_of(entry);
    Delivery {
        entry: sharded_entry(shard, &entry.id),
        bytes: raw.as_ref().map_or(0, String::len),
        payload: raw.and_then(|raw| decode(&raw)),
    }
}

/// A job delivery from the stream of `engine` in `shard`, under its job
/// handle (`{engine}/{shard}/{id}`).
fn to_job_delivery(shard: u16, engine: &str, entry: &StreamId) -> Delivery<LaneJob> {
    let Delivery {
        entry: id,
        payload,
        bytes,
    } = to_delivery(shard, entry);
    Delivery {
        entry: job_entry(engine, &id),
        payload,
        bytes,
    }
}

/// One stream entry as [`TAKE_JOB`] and [`TAKE_ONE`] return it: the stream,
/// the id and the flat field list.
fn scripted_entry(parts: &[Value]) -> Option<(String, StreamId)> {
    let [stream, id, fields] = parts else {
        return None;
    };
    let stream: String = redis::from_redis_value_ref(stream).ok()?;
    let id: String = redis::from_redis_value_ref(id).ok()?;
    let Value::Array(fields) = fields else {
        return None;
    };
    let map = fields
        .chunks(2)
        .filter_map(|kv| match kv {
            [k, v] => Some((redis::from_redis_value_ref::<String>(k).ok()?, v.clone())),
            _ => None,
        })
        .collect();
    Some((
        stream,
        StreamId {
            id,
            map,
            milliseconds_elapsed_from_delivery: None,
            delivered_count: None,
        },
    ))
}

/// Shards in the order one read looks at them: from a random one, so
/// that no shard waits behind the others.
pub(super) fn rotation() -> impl Iterator<Item = u16> {
    let start = rand::random::<u16>() % SHARDS;
    (0..SHARDS).map(move |k| (start + k) % SHARDS)
}

/// The streams one read of jobs looks at, with the shard and engine of
/// each.
struct JobStreams<'a> {
    streams: Vec<(u16, &'a str, String)>,
}

impl<'a> JobStreams<'a> {
    fn find(&self, key: &str) -> Option<(u16, &'a str)> {
        self.streams
            .iter()
            .find(|(_, _, s)| s == key)
            .map(|(shard, engine, _)| (*shard, *engine))
    }
}

impl RedisBackend {
    fn job_streams<'a>(&self, shards: &[u16], engines: &'a [String]) -> JobStreams<'a> {
        let mut streams = Vec::new();
        for shard in shards {
            for engine in engines {
                streams.push((*shard, engine.as_str(), self.layout.jobs(*shard, engine)));
            }
        }
        JobStreams { streams }
    }

    /// One new job from the streams of `engines` in `shards`, without
    /// waiting, after moving their due retries in; and when the earliest
    /// retry still waiting is due (ms).
    async fn take_one_job(
        &self,
        consumer: &str,
        shards: &[u16],
        engines: &[String],
    ) -> Result<(Option<Delivery<LaneJob>>, Option<u64>), redis::RedisError> {
        let streams = self.job_streams(shards, engines);
        let mut call = TAKE_JOB.prepare_invoke();
        // Per shard (`streams` lists them shard by shard, engines in the
        // order the script is told them): its ready set, then each
        // engine's delayed set and stream.
        for per_shard in streams.streams.chunks(engines.len().max(1)) {
            if let Some((shard, _, _)) = per_shard.first() {
                call.key(self.layout.ready(*shard));
            }
            for (shard, engine, stream) in per_shard {
                call.key(self.layout.delayed(*shard, engine)).key(stream);
            }
        }
        call.arg(WORKER_GROUP)
            .arg(consumer)
            .arg(self.clock.now_ms())
            .arg(PROMOTE_BATCH)
            .arg(engines.len());
        for engine in engines {
            call.arg(engine);
        }
        let mut conn = self.conn.clone();
        let reply: Vec<Value> = call.invoke_async(&mut conn).await?;
        let next = reply
            .first()
            .and_then(|v| redis::from_redis_value_ref::<i64>(v).ok())
            .and_then(|n| u64::try_from(n).ok());
        let job = reply
            .get(1..)
            .and_then(scripted_entry)
            .and_then(|(key, entry)| {
                let (shard, engine) = streams.find(&key)?;
                Some(to_job_delivery(shard, engine, &entry))
            });
        Ok((job, next))
    }

    /// A blocking `XREADGROUP` over the job streams of `engines` in
    /// `shards`: at most one job from each.
    async fn block_for_jobs(
        &self,
        consumer: &str,
        shards: &[u16],
        engines: &[String],
        wait: Duration,
    ) -> Result<Vec<Delivery<LaneJob>>, redis::RedisError> {
        let streams = self.job_streams(shards, engines);
        let keys: Vec<&String> = streams.streams.iter().map(|(_, _, s)| s).collect();
        let reply = self.block_read(WORKER_GROUP, consumer, &keys, wait).await?;
        let mut got = Vec::new();
        for key in reply.map(|r| r.keys).unwrap_or_default() {
            let Some((shard, engine)) = streams.find(&key.key) else {
                continue;
            };
            got.extend(key.ids.iter().map(|e| to_job_delivery(shard, engine, e)));
        }
        Ok(got)
    }

    async fn block_read(
        &self,
        group: &str,
        consumer: &str,
        keys: &[&String],
        wait: Duration,
    ) -> Result<Option<StreamReadReply>, redis::RedisError> {
        let mut conn = self.blocking.checkout().await?;
        let reply: Option<StreamReadReply> = redis::cmd("XREADGROUP")
            .arg("GROUP")
            .arg(group)
            .arg(consumer)
            .arg("COUNT")
            .arg(1)
            .arg("BLOCK")
            .arg(block_ms(wait))
            .arg("STREAMS")
            .arg(keys)
            .arg(vec![">"; keys.len()])
            .query_async(&mut conn)
            .await?;
        self.blocking.give_back(conn);
        Ok(reply)
    }

    /// Reads jobs once: a look without waiting, then one blocking read of
    /// at most `wait` (bounded by the next due retry). On one Redis both
    /// cover every shard. On a cluster, where one read covers one slot,
    /// the read waits on the shard the fewest of this process's readers
    /// watch, for at most [`CLUSTER_BLOCK`], and looks first at that shard
    /// and at those nobody watches (see the `cover` module).
    pub(super) async fn read_jobs(
        &self,
        consumer: &str,
        engines: &[String],
        wait: Duration,
    ) -> Result<Vec<Delivery<LaneJob>>, redis::RedisError> {
        let order: Vec<u16> = rotation().collect();
        let mut due: Option<u64> = None;
        let mut looked = Vec::new();
        // Held until the read returns: the shard it watches.
        let mut watching = None;
        if self.cluster {
            let watch = self.job_cover.watch();
            for shard in watch.to_look_at(&order) {
                let (job, next) = self.take_one_job(consumer, &[shard], engines).await?;
                due = earliest(due, next);
                if let Some(job) = job {
                    return Ok(vec![job]);
                }
            }
            looked.push(watch.shard);
            watching = Some(watch);
        } else {
            let (job, next) = self.take_one_job(consumer, &order, engines).await?;
            if let Some(job) = job {
                return Ok(vec![job]);
            }
            due = next;
            looked = order;
        }
        let mut wait = match due {
            Some(due) => wait.min(Duration::from_millis(
                due.saturating_sub(self.clock.now_ms()).max(1),
            )),
            None => wait,
        };
        if self.cluster {
            wait = wait.min(CLUSTER_BLOCK);
        }
        let got = self.block_for_jobs(consumer, &looked, engines, wait).await;
        drop(watching);
        got
    }

    /// One new entry of `group` for `consumer` from the result streams,
    /// read as [`RedisBackend::read_jobs`] reads jobs.
    pub(super) async fn read_results(
        &self,
        consumer: &str,
        wait: Duration,
    ) -> Result<Vec<Delivery<LaneReport>>, redis::RedisError> {
        let order: Vec<u16> = rotation().collect();
        // Held until the read returns: the shard it watches.
        let watching = self.cluster.then(|| self.result_cover.watch());
        let batches: Vec<Vec<u16>> = match &watching {
            Some(watch) => watch
                .to_look_at(&order)
                .into_iter()
                .map(|s| vec![s])
                .collect(),
            None => vec![order.clone()],
        };
        let mut conn = self.conn.clone();
        for shards in &batches {
            let keys: Vec<String> = shards
                .iter()
                .map(|s| self.layout.sharded(*s, "results"))
                .collect();
            let mut call = TAKE_ONE.prepare_invoke();
            for key in &keys {
                call.key(key);
            }
            let reply: Vec<Value> = call
                .arg(COORDINATOR_GROUP)
                .arg(consumer)
                .invoke_async(&mut conn)
                .await?;
            if let Some((key, entry)) = scripted_entry(&reply)
                && let Some(shard) = shards
                    .iter()
                    .zip(&keys)
                    .find(|(_, k)| **k == key)
                    .map(|(s, _)| *s)
            {
                return Ok(vec![to_delivery(shard, &entry)]);
            }
        }
        let looked: Vec<u16> = match &watching {
            Some(watch) => vec![watch.shard],
            None => order,
        };
        let wait = if self.cluster {
            wait.min(CLUSTER_BLOCK)
        } else {
            wait
        };
        let keys: Vec<String> = looked
            .iter()
            .map(|s| self.layout.sharded(*s, "results"))
            .collect();
        let refs: Vec<&String> = keys.iter().collect();
        let reply = self
            .block_read(COORDINATOR_GROUP, consumer, &refs, wait)
            .await?;
        drop(watching);
        let mut got = Vec::new();
        for key in reply.map(|r| r.keys).unwrap_or_default() {
            let Some(shard) = looked
                .iter()
                .zip(&keys)
                .find(|(_, k)| **k == key.key)
                .map(|(s, _)| *s)
            else {
                continue;
            };
            got.extend(key.ids.iter().map(|e| to_delivery(shard, e)));
        }
        Ok(got)
    }

    pub(super) async fn autoclaim<T: serde::de::DeserializeOwned>(
        &self,
        shard: u16,
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
        Ok(reply
            .claimed
            .iter()
            .map(|e| to_delivery(shard, e))
            .collect())
    }

    /// Creates the worker group on every job stream of `engines`.
    pub(super) async fn ensure_job_groups(&self, engines: &[String]) -> Result<(), QueueError> {
        for shard in layout::shards() {
            for engine in engines {
                self.ensure_group(&self.layout.jobs(shard, engine), WORKER_GROUP)
                    .await?;
            }
        }
        Ok(())
    }

    pub(super) fn job_shard(&self, id: &ReviewId) -> u16 {
        layout::shard_of(id)
    }
}

/// The earlier of two due times.
fn earliest(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Whether `e` says a stream has no consumer group yet (also when a
/// script's `redis.call` met it).
pub(super) fn is_nogroup(e: &redis::RedisError) -> bool {
    e.code() == Some("NOGROUP") || e.to_string().contains("NOGROUP")
}
