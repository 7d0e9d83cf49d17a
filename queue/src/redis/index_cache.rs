//! The code index's cache entries a fleet shares ([`crate::index_cache`]),
//! kept in Redis per tenant.
//!
//! A tenant's entries live in three keys of one hash slot
//! ([`Layout::index_cache`]): `entries`, a hash of each entry's bytes by
//! its name's field; `used`, a sorted set of the same fields scored by
//! when each was last stored or looked up (ms); `bytes`, the entries'
//! total size. Each step is one script, so the three agree:
//!
//! - a lookup answers only for entries used within the age limit,
//!   refreshes the time of each it answers for, and stops short of its
//!   byte budget (never before its first entry);
//! - a store writes its entries, then removes the tenant's entries unused
//!   past the age limit (a bounded number per step) and, while the total
//!   is over the tenant's byte limit, the entry unused the longest;
//! - both refresh the keys' expiry to the age limit, so a tenant that
//!   stops using the cache leaves nothing behind.
//!
//! Times are the backend's clock's ([`RedisBackend::with_clock`]); only
//! the keys' own expiry follows the server's.
//!
//! [`Layout::index_cache`]: super::layout::Layout::index_cache

use super::RedisBackend;
use crate::QueueError;
use crate::index_cache::{EntryName, Found, IndexCacheLimits, Kept};
use redis::Script;
use std::sync::LazyLock;

/// Stale entries a store removes at most, so that one step stays short
/// however long the cache went unused; the rest go with the next stores.
const STALE_PER_STEP: u32 = 1000;

/// KEYS: entries, used, bytes. ARGV: now (ms), the oldest use still kept
/// (ms), the keys' TTL (ms), the answer's byte budget, `1` to say only
/// whether each is held, then the fields. Returns one value per field
/// looked up: the entry (or 1 with keys only), or nil.
static LOOK_UP: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
local oldest = tonumber(ARGV[2])
local budget = tonumber(ARGV[4])
local keys_only = ARGV[5] == '1'
local out = {}
local sent = 0
local held = 0
for i = 6, #ARGV do
  local f = ARGV[i]
  local used = redis.call('ZSCORE', KEYS[2], f)
  local value = false
  if used and tonumber(used) >= oldest then
    if keys_only then
      if redis.call('HEXISTS', KEYS[1], f) == 1 then
        value = 1
      end
    else
      local len = redis.call('HSTRLEN', KEYS[1], f)
      if sent > 0 and sent + len > budget then
        break
      end
      value = redis.call('HGET', KEYS[1], f)
      if value then
        sent = sent + len
      end
    end
    if value then
      redis.call('ZADD', KEYS[2], 'XX', ARGV[1], f)
      held = held + 1
    end
  end
  out[#out + 1] = value
end
if held > 0 then
  for k = 1, 3 do
    redis.call('PEXPIRE', KEYS[k], ARGV[3])
  end
end
return out
"#,
    )
});

/// KEYS: entries, used, bytes. ARGV: now (ms), the oldest use still kept
/// (ms), the keys' TTL (ms), the tenant's byte limit, the most stale
/// entries to remove, then (field, entry) pairs. Returns how many entries
/// were removed.
static KEEP: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
local cap = tonumber(ARGV[4])
local total = tonumber(redis.call('GET', KEYS[3]) or '0')
local function drop(f)
  total = total - redis.call('HSTRLEN', KEYS[1], f)
  redis.call('HDEL', KEYS[1], f)
  redis.call('ZREM', KEYS[2], f)
end
for i = 6, #ARGV, 2 do
  local f = ARGV[i]
  total = total - redis.call('HSTRLEN', KEYS[1], f) + string.len(ARGV[i + 1])
  redis.call('HSET', KEYS[1], f, ARGV[i + 1])
  redis.call('ZADD', KEYS[2], ARGV[1], f)
end
local evicted = 0
local stale = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[2], 'LIMIT', 0, ARGV[5])
for _, f in ipairs(stale) do
  drop(f)
  evicted = evicted + 1
end
while total > cap do
  local first = redis.call('ZRANGE', KEYS[2], 0, 0)
  if #first == 0 then
    break
  end
  drop(first[1])
  evicted = evicted + 1
end
if total < 0 or redis.call('ZCARD', KEYS[2]) == 0 then
  total = 0
end
redis.call('SET', KEYS[3], string.format('%d', total), 'PX', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return evicted
"#,
    )
});

/// What a step's times are: now, the oldest use still kept, the keys' TTL.
fn times(now_ms: u64, limits: &IndexCacheLimits) -> (u64, u64, u64) {
    let age = u64::try_from(limits.max_age.as_millis())
        .unwrap_or(u64::MAX)
        .max(1);
    (now_ms, now_ms.saturating_sub(age), age)
}

impl RedisBackend {
    /// The entries `tenant` holds for `names`, in order (with `keys_only`,
    /// an empty entry for each held), answering until `budget` bytes of
    /// entries; each found counts as a use.
    pub async fn look_up_index_entries(
        &self,
        tenant: Option<&str>,
        names: &[EntryName],
        keys_only: bool,
        budget: usize,
        limits: &IndexCacheLimits,
    ) -> Result<Found, QueueError> {
        if names.is_empty() {
            return Ok(Vec::new());
        }
        let (now, oldest, ttl) = times(self.clock.now_ms(), limits);
        let mut call = LOOK_UP.prepare_invoke();
        for suffix in ["entries", "used", "bytes"] {
            call.key(self.layout.index_cache(tenant, suffix));
        }
        call.arg(now)
            .arg(oldest)
            .arg(ttl)
            .arg(budget)
            .arg(if keys_only { "1" } else { "0" });
        for name in names {
            call.arg(name.field());
        }
        let mut conn = self.conn.clone();
        let values: Vec<redis::Value> = call.invoke_async(&mut conn).await?;
        Ok(values
            .into_iter()
            .map(|v| match v {
                redis::Value::BulkString(bytes) => Some(bytes),
                redis::Value::Int(_) => Some(Vec::new()),
                _ => None,
            })
            .collect())
    }

    /// Keeps `entries` for `tenant`, then removes what its limits no
    /// longer allow.
    pub async fn keep_index_entries(
        &self,
        tenant: Option<&str>,
        entries: &[(EntryName, Vec<u8>)],
        limits: &IndexCacheLimits,
    ) -> Result<Kept, QueueError> {
        let (now, oldest, ttl) = times(self.clock.now_ms(), limits);
        let mut call = KEEP.prepare_invoke();
        for suffix in ["entries", "used", "bytes"] {
            call.key(self.layout.index_cache(tenant, suffix));
        }
        call.arg(now)
            .arg(oldest)
            .arg(ttl)
            .arg(limits.max_tenant_bytes)
            .arg(STALE_PER_STEP);
        for (name, bytes) in entries {
            call.arg(name.field()).arg(bytes.as_slice());
        }
        let mut conn = self.conn.clone();
        let evicted: u64 = call.invoke_async(&mut conn).await?;
        Ok(Kept {
            stored: entries.len(),
            evicted: usize::try_from(evicted).unwrap_or(usize::MAX),
        })
    }
}
