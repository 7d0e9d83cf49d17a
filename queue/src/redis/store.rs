//! [`ReviewStore`] on Redis hashes, sets and per-review event streams.

use super::conn::block_ms;
use super::phase::with_stored_phase;
use super::scripts::{
    ADVANCE_AND_DISPATCH, APPEND_EVENTS, CHARGE_QUOTA, CREATE_AND_DISPATCH, DISPATCH_PLANNED,
    GATE_REJECTED_SUFFIX, SETTLE_AND_ANNOUNCE, STAGE_PIECE,
};
use super::{RedisBackend, layout};
use crate::{
    Corruption, CreateOutcome, LostWrite, MoveOutcome, PhaseMove, QueueError, QuotaCharge,
    ReviewStore, encode,
};
use redis::streams::StreamReadReply;
use revu_domain::bundle::{APART_MIN_BYTES, Patch, ReviewBundle};
use revu_domain::clock::Clock;
use revu_domain::lane::{LaneJob, ReviewId};
use revu_domain::review::{LaneAttempts, LaneResult, LaneResults, ProgressEvent, ReviewRecord};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

/// How long an idempotency key keeps pointing at its review.
const IDEMPOTENCY_TTL_SECS: u64 = 24 * 60 * 60;
/// Diffs longer than this go to Redis in pieces of this size before the
/// review is created ([`RedisBackend::stage_diff`]).
const DIFF_PIECE: usize = 1024 * 1024;
/// How long a staged diff outlives a submission that failed before
/// creating its review.
const STAGING_TTL_SECS: u64 = 60 * 60;
/// Events kept per review (approximate trim).
pub(super) const EVENTS_MAX: u64 = 10_000;

fn decode_json<T: serde::de::DeserializeOwned>(
    what: &'static str,
    raw: &str,
) -> Result<T, QueueError> {
    serde_json::from_str(raw).map_err(|source| QueueError::Decode { what, source })
}

/// The JSON part of a stored bundle: the bundle with its head files named
/// by digest.
#[derive(serde::Serialize)]
struct StoredBundle<'a> {
    #[serde(flatten)]
    bundle: &'a ReviewBundle,
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    heads: std::collections::BTreeMap<String, String>,
}

impl RedisBackend {
    /// `command` on the sharded key `name` of every shard, in shard order:
    /// one round trip on one Redis (a pipeline); on a cluster, where the
    /// shards' slots are on several masters, one command each.
    async fn each_shard<T: redis::FromRedisValue>(
        &self,
        command: &str,
        name: &str,
    ) -> Result<Vec<T>, QueueError> {
        let mut conn = self.conn.clone();
        if !self.cluster {
            let mut pipe = redis::pipe();
            for shard in layout::shards() {
                pipe.cmd(command).arg(self.layout.sharded(shard, name));
            }
            return Ok(pipe.query_async(&mut conn).await?);
        }
        let mut out = Vec::new();
        for shard in layout::shards() {
            out.push(
                redis::cmd(command)
                    .arg(self.layout.sharded(shard, name))
                    .query_async(&mut conn)
                    .await?,
            );
        }
        Ok(out)
    }

    /// Writes `diff` to `key` in pieces of [`DIFF_PIECE`], each a command
    /// of its own, so that the client never holds more than a piece of it
    /// beside the diff itself (one command carrying it all is copied four
    /// times on its way out). A piece goes only right after the bytes
    /// before it ([`STAGE_PIECE`]), so a piece sent twice is written once
    /// and a lost one fails the submission instead of leaving a hole; the
    /// creating script checks the whole length.
    async fn stage_diff(&self, key: &str, diff: &[u8]) -> Result<(), QueueError> {
        let mut conn = self.conn.clone();
        let mut at = 0usize;
        for piece in diff.chunks(DIFF_PIECE) {
            let len: usize = STAGE_PIECE
                .key(key)
                .arg(at)
                .arg(piece)
                .arg(STAGING_TTL_SECS)
                .invoke_async(&mut conn)
                .await?;
            at += piece.len();
            if len != at {
                return Err(LostWrite {
                    what: "staging the diff",
                    key: key.to_owned(),
                    stored: len,
                    sent: at,
                }
                .into());
            }
        }
        Ok(())
    }

    /// A diff kept in a key of its own (a staged one), read in pieces of
    /// [`DIFF_PIECE`] into one buffer of its length, so that no reply
    /// carries the whole of it. A missing key reads as an empty diff, as a
    /// missing field did.
    async fn read_apart(&self, key: &str) -> Result<Vec<u8>, QueueError> {
        let mut conn = self.conn.clone();
        let len: usize = redis::cmd("STRLEN").arg(key).query_async(&mut conn).await?;
        let mut diff = Vec::with_capacity(len);
        while diff.len() < len {
            let end = (diff.len() + DIFF_PIECE).min(len) - 1;
            let piece: Vec<u8> = redis::cmd("GETRANGE")
                .arg(key)
                .arg(diff.len())
                .arg(end)
                .query_async(&mut conn)
                .await?;
            if piece.is_empty() {
                break;
            }
            diff.extend_from_slice(&piece);
        }
        if diff.len() != len {
            return Err(Corruption::ShortRead {
                key: key.to_owned(),
                read: diff.len(),
                len,
            }
            .into());
        }
        Ok(diff)
    }
}

impl ReviewStore for RedisBackend {
    fn new_review_id(&self, tenant: Option<&str>, idempotency_key: Option<&str>) -> ReviewId {
        layout::review_id_for(tenant, idempotency_key)
    }

    async fn create_review(
        &self,
        record: &ReviewRecord,
        bundle: &Arc<ReviewBundle>,
        idempotency_key: Option<&str>,
        jobs: &[LaneJob],
    ) -> Result<CreateOutcome, QueueError> {
        let shard = layout::shard_of(&record.id);
        let tenant = record.id.tenant();
        // Without a key the script never reads KEYS[1]; it still has to be
        // a key of the review's slot.
        let idem = match idempotency_key {
            Some(key) if layout::key_shard(tenant, key) != shard => {
                return Err(QueueError::ForeignShard(record.id.clone()));
            }
            Some(key) => self.layout.idempotency(tenant, key),
            None => self.layout.review(&record.id, ""),
        };
        let staging = self.layout.review(&record.id, "diff-staging");
        let diff = bundle.diff.as_bytes();
        let staged = diff.len() > DIFF_PIECE;
        if staged {
            self.stage_diff(&staging, diff).await?;
        }
        let mut conn = self.conn.clone();
        let mut call = CREATE_AND_DISPATCH.prepare_invoke();
        call.key(idem)
            .key(self.layout.review(&record.id, ""))
            .key(self.layout.review(&record.id, "attempts"))
            .key(self.layout.sharded(shard, "active"))
            .key(self.layout.sharded(shard, "engines"))
            .key(&staging)
            .key(self.layout.review(&record.id, "diff"))
            .key(self.layout.ready(shard));
        for job in jobs {
            call.key(self.layout.jobs(shard, &job.lane.engine));
        }
        // Head files go beside the JSON part, once per distinct content.
        let (heads, blobs) = bundle.head_digests();
        let stored = StoredBundle { bundle, heads };
        call.arg(if idempotency_key.is_some() { "1" } else { "0" })
            .arg(&record.id.0)
            .arg(encode("review record", record)?)
            .arg(encode("review bundle", &stored)?)
            .arg(if staged { &[][..] } else { diff })
            .arg(IDEMPOTENCY_TTL_SECS)
            .arg(if staged {
                diff.len().to_string()
            } else {
                "-1".to_owned()
            })
            .arg(record.phase.as_str())
            .arg(blobs.len());
        for (digest, bytes) in &blobs {
            call.arg(digest).arg(*bytes);
        }
        for job in jobs {
            call.arg(&job.lane.id)
                .arg(&job.lane.engine)
                .arg(encode("lane job", job)?);
        }
        let existing: String = call.invoke_async(&mut conn).await?;
        if existing.is_empty() {
            let replicas = self.replicate(&self.layout.review(&record.id, "")).await?;
            if self.cluster && replicas == 0 {
                tracing::debug!(review_id = %record.id, "no replica confirmed the new review");
            }
        }
        Ok(if existing.is_empty() {
            CreateOutcome::Created
        } else {
            CreateOutcome::Existing(ReviewId(existing))
        })
    }

    async fn idempotent_review(
        &self,
        tenant: Option<&str>,
        key: &str,
    ) -> Result<Option<ReviewId>, QueueError> {
        let mut conn = self.conn.clone();
        let id: Option<String> = redis::cmd("GET")
            .arg(self.layout.idempotency(tenant, key))
            .query_async(&mut conn)
            .await?;
        Ok(id.map(ReviewId))
    }

    async fn charge_quota(
        &self,
        tenant: &str,
        name: &str,
        window_ms: u64,
        now_ms: u64,
        amount: u64,
        limit: u64,
    ) -> Result<QuotaCharge, QueueError> {
        let window_ms = window_ms.max(1);
        let window = now_ms / window_ms;
        let key = self.layout.quota(tenant, name, window);
        let left_ms = (window + 1) * window_ms - now_ms;
        let mut conn = self.conn.clone();
        let (charged, used): (u8, u64) = CHARGE_QUOTA
            .key(key)
            .arg(amount)
            .arg(limit)
            .arg(left_ms.max(1))
            .invoke_async(&mut conn)
            .await?;
        Ok(if charged == 1 {
            QuotaCharge::Charged { used }
        } else {
            QuotaCharge::Refused { used }
        })
    }

    async fn cached_lane(&self, key: &str) -> Result<Option<String>, QueueError> {
        let mut conn = self.conn.clone();
        Ok(redis::cmd("GET")
            .arg(self.layout.global(&format!("cache:{key}")))
            .query_async(&mut conn)
            .await?)
    }

    async fn cache_lane(&self, key: &str, body: &str, ttl: Duration) -> Result<(), QueueError> {
        let mut conn = self.conn.clone();
        let ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1);
        redis::cmd("SET")
            .arg(self.layout.global(&format!("cache:{key}")))
            .arg(body)
            .arg("PX")
            .arg(ms)
            .query_async::<()>(&mut conn)
            .await?;
        Ok(())
    }

    async fn load_record(&self, id: &ReviewId) -> Result<Option<ReviewRecord>, QueueError> {
        let mut conn = self.conn.clone();
        let (raw, phase): (Option<String>, Option<String>) = redis::cmd("HMGET")
            .arg(self.layout.review(id, ""))
            .arg("record")
            .arg("phase")
            .query_async(&mut conn)
            .await?;
        let Some(raw) = raw else {
            return Ok(None);
        };
        if let Some(record) = self.records.get(id, &raw) {
            return with_stored_phase(record, phase.as_deref()).map(Some);
        }
        // A large change's record (every file's facts, every lane's plan)
        // is decoded off the runtime: megabytes take milliseconds.
        let (record, raw) = if raw.len() >= APART_MIN_BYTES {
            tokio::task::spawn_blocking(move || {
                (decode_json::<ReviewRecord>("review record", &raw), raw)
            })
            .await
            .map_err(|_| QueueError::Closed)?
        } else {
            (decode_json("review record", &raw), raw)
        };
        let record = record?;
        self.records.put(id, &raw, &record);
        with_stored_phase(record, phase.as_deref()).map(Some)
    }

    async fn save_record(&self, record: &ReviewRecord) -> Result<(), QueueError> {
        let mut conn = self.conn.clone();
        redis::cmd("HSET")
            .arg(self.layout.review(&record.id, ""))
            .arg("record")
            .arg(encode("review record", record)?)
            .query_async::<()>(&mut conn)
            .await?;
        Ok(())
    }

    async fn move_phase(&self, step: PhaseMove<'_>) -> Result<MoveOutcome, QueueError> {
        self.move_phase_now(step).await
    }

    async fn load_bundle(
        &self,
        id: &ReviewId,
    ) -> Result<Option<std::sync::Arc<ReviewBundle>>, QueueError> {
        let mut conn = self.conn.clone();
        let (raw, diff): (Option<String>, Option<Vec<u8>>) = redis::cmd("HMGET")
            .arg(self.layout.review(id, ""))
            .arg("bundle")
            .arg("diff")
            .query_async(&mut conn)
            .await?;
        let Some(raw) = raw else { return Ok(None) };
        let mut bundle: ReviewBundle = decode_json("review bundle", &raw)?;
        let diff = match diff {
            Some(diff) => diff,
            None => self.read_apart(&self.layout.review(id, "diff")).await?,
        };
        // Whether a large diff is text is checked off the runtime, as at
        // submission.
        bundle.diff = if diff.len() >= APART_MIN_BYTES {
            tokio::task::spawn_blocking(move || Patch::from(diff))
                .await
                .map_err(|_| QueueError::Closed)?
        } else {
            Patch::from(diff)
        };
        let wanted = bundle.wanted_heads();
        if !wanted.is_empty() {
            let mut cmd = redis::cmd("HMGET");
            cmd.arg(self.layout.review(id, ""));
            for d in &wanted {
                cmd.arg(format!("head:{d}"));
            }
            let found: Vec<Option<Vec<u8>>> = cmd.query_async(&mut conn).await?;
            let blobs = wanted
                .into_iter()
                .zip(found)
                .filter_map(|(d, bytes)| Some((d, bytes?)))
                .collect();
            bundle
                .put_heads(&blobs)
                .map_err(|source| Corruption::MissingHead {
                    review: id.clone(),
                    source,
                })?;
        }
        Ok(Some(std::sync::Arc::new(bundle)))
    }

    async fn settle_lane(
        &self,
        id: &ReviewId,
        result: &std::sync::Arc<LaneResult>,
        event: &ProgressEvent,
    ) -> Result<bool, QueueError> {
        let mut conn = self.conn.clone();
        let set: i64 = SETTLE_AND_ANNOUNCE
            .key(self.layout.review(id, "lanes"))
            .key(self.layout.review(id, "events"))
            .key(self.layout.review(id, ""))
            .arg(&result.lane_id)
            .arg(encode("lane result", result)?)
            .arg(encode("progress event", event)?)
            .arg(EVENTS_MAX)
            .invoke_async(&mut conn)
            .await?;
        Ok(set == 1)
    }

    async fn lane_results(&self, id: &ReviewId) -> Result<LaneResults, QueueError> {
        let mut conn = self.conn.clone();
        let raw: HashMap<String, String> = redis::cmd("HGETALL")
            .arg(self.layout.review(id, "lanes"))
            .query_async(&mut conn)
            .await?;
        raw.into_iter()
            .map(|(k, v)| Ok((k, Arc::new(decode_json("lane result", &v)?))))
            .collect()
    }

    async fn settled_count(&self, id: &ReviewId) -> Result<usize, QueueError> {
        let mut conn = self.conn.clone();
        Ok(redis::cmd("HLEN")
            .arg(self.layout.review(id, "lanes"))
            .query_async(&mut conn)
            .await?)
    }

    async fn lane_settled(&self, id: &ReviewId, lane_id: &str) -> Result<bool, QueueError> {
        let mut conn = self.conn.clone();
        Ok(redis::cmd("HEXISTS")
            .arg(self.layout.review(id, "lanes"))
            .arg(lane_id)
            .query_async(&mut conn)
            .await?)
    }

    async fn advance_and_dispatch(
        &self,
        job: &LaneJob,
        from: u32,
        gate_rejection: bool,
    ) -> Result<bool, QueueError> {
        let mut conn = self.conn.clone();
        let shard = layout::shard_of(&job.review_id);
        let dispatched: i64 = ADVANCE_AND_DISPATCH
            .key(self.layout.review(&job.review_id, "attempts"))
            .key(self.layout.jobs(shard, &job.lane.engine))
            .key(self.layout.sharded(shard, "engines"))
            .key(self.layout.delayed(shard, &job.lane.engine))
            .key(self.layout.ready(shard))
            .arg(&job.lane.id)
            .arg(from)
            .arg(job.attempt)
            .arg(encode("lane job", job)?)
            .arg(if gate_rejection { "1" } else { "0" })
            .arg(&job.lane.engine)
            .arg(job.not_before_ms)
            .arg(self.clock.now_ms())
            .invoke_async(&mut conn)
            .await?;
        Ok(dispatched == 1)
    }

    async fn dispatch_planned(&self, job: &LaneJob) -> Result<bool, QueueError> {
        let mut conn = self.conn.clone();
        let id = &job.review_id;
        let shard = layout::shard_of(id);
        let dispatched: i64 = DISPATCH_PLANNED
            .key(self.layout.review(id, "attempts"))
            .key(self.layout.sharded(shard, "active"))
            .key(self.layout.jobs(shard, &job.lane.engine))
            .key(self.layout.sharded(shard, "engines"))
            .key(self.layout.ready(shard))
            .arg(&id.0)
            .arg(&job.lane.id)
            .arg(job.attempt)
            .arg(encode("lane job", job)?)
            .arg(&job.lane.engine)
            .invoke_async(&mut conn)
            .await?;
        Ok(dispatched == 1)
    }

    async fn charge_tokens(&self, id: &ReviewId, tokens: i64) -> Result<u64, QueueError> {
        let mut conn = self.conn.clone();
        let total: i64 = redis::cmd("HINCRBY")
            .arg(self.layout.review(id, ""))
            .arg("tokens_spent")
            .arg(tokens)
            .query_async(&mut conn)
            .await?;
        Ok(u64::try_from(total).unwrap_or(0))
    }

    async fn lane_attempts(
        &self,
        id: &ReviewId,
    ) -> Result<BTreeMap<String, LaneAttempts>, QueueError> {
        let mut conn = self.conn.clone();
        let raw: HashMap<String, u32> = redis::cmd("HGETALL")
            .arg(self.layout.review(id, "attempts"))
            .query_async(&mut conn)
            .await?;
        Ok(decode_attempts(raw))
    }

    async fn load_report(&self, id: &ReviewId) -> Result<Option<String>, QueueError> {
        let mut conn = self.conn.clone();
        let raw: Option<String> = redis::cmd("HGET")
            .arg(self.layout.review(id, ""))
            .arg("report")
            .query_async(&mut conn)
            .await?;
        Ok(raw)
    }

    async fn bump_stat(&self, name: &str, by: u64) -> Result<(), QueueError> {
        let mut conn = self.conn.clone();
        redis::cmd("HINCRBY")
            .arg(self.layout.global("stats"))
            .arg(name)
            .arg(by)
            .query_async::<()>(&mut conn)
            .await?;
        Ok(())
    }

    async fn stats(&self) -> Result<BTreeMap<String, u64>, QueueError> {
        let mut conn = self.conn.clone();
        let raw: HashMap<String, u64> = redis::cmd("HGETALL")
            .arg(self.layout.global("stats"))
            .query_async(&mut conn)
            .await?;
        Ok(raw.into_iter().collect())
    }

    async fn active_count(&self) -> Result<usize, QueueError> {
        let counts: Vec<usize> = self.each_shard("SCARD", "active").await?;
        Ok(counts.into_iter().sum())
    }

    async fn active_reviews(&self) -> Result<Vec<ReviewId>, QueueError> {
        let sets: Vec<Vec<String>> = self.each_shard("SMEMBERS", "active").await?;
        let mut ids: Vec<String> = sets.into_iter().flatten().collect();
        ids.sort();
        Ok(ids.into_iter().map(ReviewId).collect())
    }

    async fn push_event(&self, id: &ReviewId, event: &ProgressEvent) -> Result<(), QueueError> {
        self.push_events(id, std::slice::from_ref(event)).await
    }

    async fn push_events(&self, id: &ReviewId, events: &[ProgressEvent]) -> Result<(), QueueError> {
        if events.is_empty() {
            return Ok(());
        }
        let mut script = APPEND_EVENTS.prepare_invoke();
        script
            .key(self.layout.review(id, ""))
            .key(self.layout.review(id, "events"))
            .arg(EVENTS_MAX);
        for event in events {
            script.arg(encode("progress event", event)?);
        }
        let mut conn = self.conn.clone();
        script.invoke_async::<()>(&mut conn).await?;
        Ok(())
    }

    async fn read_events(
        &self,
        id: &ReviewId,
        after: &str,
        wait: Duration,
    ) -> Result<Vec<(String, ProgressEvent)>, QueueError> {
        let mut conn = self.blocking.checkout().await?;
        let reply: Option<StreamReadReply> = redis::cmd("XREAD")
            .arg("COUNT")
            .arg(256)
            .arg("BLOCK")
            .arg(block_ms(wait))
            .arg("STREAMS")
            .arg(self.layout.review(id, "events"))
            .arg(after)
            .query_async(&mut conn)
            .await?;
        self.blocking.give_back(conn);
        let mut out = Vec::new();
        for key in reply.map(|r| r.keys).unwrap_or_default() {
            for entry in key.ids {
                let raw: String = match entry.map.get("payload") {
                    Some(v) => {
                        redis::from_redis_value_ref(v).map_err(|e| QueueError::Redis(e.into()))?
                    }
                    None => continue,
                };
                out.push((entry.id.clone(), decode_json("progress event", &raw)?));
            }
        }
        Ok(out)
    }
}

/// The attempts hash holds, per lane, its awaited attempt under the lane id
/// and the attempt the completeness gate sent back under the lane id with
/// [`GATE_REJECTED_SUFFIX`] (so that one Lua step can check and set both).
fn decode_attempts(raw: HashMap<String, u32>) -> BTreeMap<String, LaneAttempts> {
    let mut lanes: BTreeMap<String, LaneAttempts> = BTreeMap::new();
    for (field, attempt) in raw {
        match field.strip_suffix(GATE_REJECTED_SUFFIX) {
            Some(lane) => lanes.entry(lane.to_owned()).or_default().gate_rejected = Some(attempt),
            None => lanes.entry(field).or_default().awaited = attempt,
        }
    }
    lanes
}
