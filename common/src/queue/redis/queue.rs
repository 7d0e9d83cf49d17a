//! [`JobQueue`] on Redis Streams consumer groups.

use super::conn::block_ms;
use super::maintenance::{field, info_fields};
use super::scripts::PROMOTE_DUE;
use super::{COORDINATOR_GROUP, RedisBackend, WORKER_GROUP};
use crate::lane::{LaneJob, LaneReport};
use crate::queue::{
    Delivery, EntryId, JobQueue, Poison, QueueDepth, QueueError, decode, encode, job_entry,
    split_job_entry,
};
use crate::review::now_ms;
use redis::Value;
use redis::streams::{StreamAutoClaimReply, StreamId, StreamReadReply};
use std::time::Duration;

/// Most due retries one read moves to each job stream.
const PROMOTE_BATCH: usize = 64;

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
    let raw = payload_of(entry);
    Delivery {
        entry: entry.id.clone(),
        bytes: raw.as_ref().map_or(0, String::len),
        payload: raw.and_then(|raw| decode(&raw)),
    }
}

/// A job delivery from the stream of `engine`, under its job handle.
fn to_job_delivery(engine: &str, entry: &StreamId) -> Delivery<LaneJob> {
    let Delivery {
        entry: id,
        payload,
        bytes,
    } = to_delivery(entry);
    Delivery {
        entry: job_entry(engine, &id),
        payload,
        bytes,
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

    /// One `XREADGROUP` over the job streams of `engines`: at most one
    /// job from each.
    async fn read_jobs(
        &self,
        consumer: &str,
        engines: &[String],
        wait: Duration,
    ) -> Result<Vec<Delivery<LaneJob>>, redis::RedisError> {
        let streams: Vec<String> = engines.iter().map(|e| self.job_stream(e)).collect();
        // Retries whose delay has passed join their streams first; the
        // read blocks no longer than until the next one is due.
        let wait = match self.promote_due(engines).await? {
            Some(due) => wait.min(Duration::from_millis(due.saturating_sub(now_ms()).max(1))),
            None => wait,
        };
        let mut conn = self.blocking.checkout().await?;
        let reply: Option<StreamReadReply> = redis::cmd("XREADGROUP")
            .arg("GROUP")
            .arg(WORKER_GROUP)
            .arg(consumer)
            .arg("COUNT")
            .arg(1)
            .arg("BLOCK")
            .arg(block_ms(wait))
            .arg("STREAMS")
            .arg(&streams)
            .arg(vec![">"; streams.len()])
            .query_async(&mut conn)
            .await?;
        self.blocking.give_back(conn);
        let mut got = Vec::new();
        for key in reply.map(|r| r.keys).unwrap_or_default() {
            let Some(engine) = streams
                .iter()
                .position(|s| *s == key.key)
                .and_then(|i| engines.get(i))
            else {
                continue;
            };
            got.extend(key.ids.iter().map(|entry| to_job_delivery(engine, entry)));
        }
        Ok(got)
    }

    /// Moves the due retries of `engines` to their job streams; when the
    /// earliest retry still waiting is due (ms).
    async fn promote_due(&self, engines: &[String]) -> Result<Option<u64>, redis::RedisError> {
        let mut script = PROMOTE_DUE.prepare_invoke();
        for engine in engines {
            script
                .key(self.delayed_set(engine))
                .key(self.job_stream(engine));
        }
        let mut conn = self.conn.clone();
        let next: i64 = script
            .arg(now_ms())
            .arg(PROMOTE_BATCH)
            .invoke_async(&mut conn)
            .await?;
        Ok(u64::try_from(next).ok())
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
        let engine = &job.lane.engine;
        let mut conn = self.conn.clone();
        let (id,): (String,) = redis::pipe()
            .atomic()
            .cmd("XADD")
            .arg(self.job_stream(engine))
            .arg("*")
            .arg(PAYLOAD)
            .arg(raw)
            .cmd("SADD")
            .arg(self.key("engines"))
            .arg(engine)
            .ignore()
            .query_async(&mut conn)
            .await?;
        Ok(job_entry(engine, &id))
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
        // due; then it reads again, until `wait` is over.
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let got = match self.read_jobs(consumer, engines, left).await {
                // A stream no worker has read yet has no group: make them all.
                Err(e) if e.code() == Some("NOGROUP") => {
                    for engine in engines {
                        self.ensure_group(&self.job_stream(engine), WORKER_GROUP)
                            .await?;
                    }
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
        for engine in engines {
            let left = max.saturating_sub(claimed.len());
            if left == 0 {
                break;
            }
            let stream = self.job_stream(engine);
            match self
                .autoclaim::<LaneJob>(&stream, WORKER_GROUP, consumer, min_idle, left)
                .await
            {
                Ok(got) => claimed.extend(got.into_iter().map(|d| Delivery {
                    entry: job_entry(engine, &d.entry),
                    ..d
                })),
                // No group yet: nobody ever took a job there to reclaim.
                Err(QueueError::Redis(e)) if e.code() == Some("NOGROUP") => {}
                Err(e) => return Err(e),
            }
        }
        Ok(claimed)
    }

    async fn workers_for(&self, engine: &str) -> Result<usize, QueueError> {
        let mut conn = self.conn.clone();
        let groups: Result<Value, _> = redis::cmd("XINFO")
            .arg("GROUPS")
            .arg(self.job_stream(engine))
            .query_async(&mut conn)
            .await;
        let groups = match groups {
            Ok(g) => g,
            // No stream, hence no reader.
            Err(e)
                if e.kind() == redis::ErrorKind::Server(redis::ServerErrorKind::ResponseError) =>
            {
                return Ok(0);
            }
            Err(e) => return Err(e.into()),
        };
        let Value::Array(groups) = groups else {
            return Ok(0);
        };
        Ok(groups
            .iter()
            .map(info_fields)
            .find(|f| field::<String>(f, "name").as_deref() == Some(WORKER_GROUP))
            .and_then(|f| field::<usize>(&f, "consumers"))
            .unwrap_or(0))
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
        let (engine, id) = split_job_entry(entry)?;
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
            .arg(self.job_stream(engine))
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
        let job = entry.map(split_job_entry).transpose()?;
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
        if let Some((engine, id)) = job {
            pipe.cmd("XACK")
                .arg(self.job_stream(engine))
                .arg(WORKER_GROUP)
                .arg(id)
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

    async fn ping(&self) -> Result<(), QueueError> {
        let mut conn = self.conn.clone();
        redis::cmd("PING").query_async::<()>(&mut conn).await?;
        Ok(())
    }

    async fn job_backlog(&self) -> Result<QueueDepth, QueueError> {
        let mut conn = self.conn.clone();
        let mut depth = QueueDepth::default();
        for engine in self.job_engines().await? {
            let stream = self.job_stream(&engine);
            let groups: Value = redis::cmd("XINFO")
                .arg("GROUPS")
                .arg(&stream)
                .query_async(&mut conn)
                .await?;
            match group_counts(&groups, WORKER_GROUP) {
                Some((pending, lag)) => {
                    depth.pending += pending;
                    depth.undelivered += lag;
                }
                // No worker has read this stream yet: all of it waits.
                None => {
                    depth.undelivered += redis::cmd("XLEN")
                        .arg(&stream)
                        .query_async::<u64>(&mut conn)
                        .await?;
                }
            }
            depth.delayed += redis::cmd("ZCARD")
                .arg(self.delayed_set(&engine))
                .query_async::<u64>(&mut conn)
                .await?;
        }
        depth.dead = redis::cmd("XLEN")
            .arg(self.key("dead"))
            .query_async(&mut conn)
            .await?;
        Ok(depth)
    }
}

/// `pending` and `lag` of `group` in an `XINFO GROUPS` reply, if the
/// group is there.
fn group_counts(reply: &Value, group: &str) -> Option<(u64, u64)> {
    let Value::Array(groups) = reply else {
        return None;
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
}
