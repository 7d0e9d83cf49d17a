//! Lua scripts for the check-then-act steps that must be atomic.

use redis::Script;
use std::sync::LazyLock;

/// Resets the idle time of `ARGV[2]` (entry) if `ARGV[1]` (consumer) still
/// holds it; `ARGV[3]` is the idle time to set, in ms. Returns 1 if it did.
/// KEYS[1] stream, ARGV[4] group.
pub(super) static CLAIM_IF_HELD: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
local held = redis.call('XPENDING', KEYS[1], ARGV[4], ARGV[2], ARGV[2], 1)
if #held == 0 or held[1][2] ~= ARGV[1] then
  return 0
end
redis.call('XCLAIM', KEYS[1], ARGV[4], ARGV[1], 0, ARGV[2], 'IDLE', ARGV[3], 'JUSTID')
return 1
"#,
    )
});

/// Deletes consumer `ARGV[2]` of group `ARGV[1]` on stream KEYS[1] only if it
/// holds no pending entry, so no entry can be lost with it. Returns 1 if it did.
pub(super) static DELETE_IDLE_CONSUMER: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
local held = redis.call('XPENDING', KEYS[1], ARGV[1], '-', '+', 1, ARGV[2])
if #held > 0 then
  return 0
end
redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], ARGV[2])
return 1
"#,
    )
});

/// Appends one piece of a staged diff ([`CREATE_AND_DISPATCH`]) only if
/// the staging key holds exactly the bytes before it, and returns the
/// key's length: a piece sent twice is not appended twice, and a piece
/// lost (a failover that dropped writes not yet replicated) shows as a
/// length short of where the next piece goes, never as a hole.
///
/// KEYS[1] staging key. ARGV: the piece's offset, the piece, the key's
/// TTL in seconds (set with the first piece).
pub(super) static STAGE_PIECE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
local len = redis.call('STRLEN', KEYS[1])
if len == tonumber(ARGV[1]) then
  len = redis.call('APPEND', KEYS[1], ARGV[2])
  if ARGV[1] == '0' then
    redis.call('EXPIRE', KEYS[1], ARGV[3])
  end
end
return len
"#,
    )
});

/// Creates a review and dispatches its first lane attempts in one step, so a
/// crash can never leave an accepted review with lanes that were never
/// sent. With an idempotency key already taken, creates nothing and returns
/// the review id it holds; else returns "". A large diff comes staged in
/// a key of the review's slot, written in pieces beforehand: the script
/// checks its length and renames it to the review's diff key, where it
/// stays apart from the hash so that readers can take it in pieces (no
/// copy of it is made here); it deletes the staging key when it creates
/// nothing.
///
/// KEYS: idempotency key, review hash, attempts hash, active set, engines
/// set, staging key, diff key, ready set, then the job stream of each job
/// in turn.
/// ARGV: use-key flag ("1"/"0"), review id, record, bundle, diff (empty
/// when staged), key TTL, the staged diff's length ("-1": not staged),
/// the review's phase, the number N of head files, N (digest, contents)
/// pairs, then (lane id, engine, job JSON) triples.
pub(super) static CREATE_AND_DISPATCH: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
if ARGV[1] == '1' then
  local existing = redis.call('GET', KEYS[1])
  if existing then
    redis.call('DEL', KEYS[6])
    return existing
  end
end
if ARGV[7] ~= '-1' then
  local len = redis.call('STRLEN', KEYS[6])
  if len ~= tonumber(ARGV[7]) then
    redis.call('DEL', KEYS[6])
    return redis.error_reply('staged diff is ' .. len .. ' bytes, not ' .. ARGV[7])
  end
  redis.call('RENAME', KEYS[6], KEYS[7])
  redis.call('PERSIST', KEYS[7])
  redis.call('HSET', KEYS[2], 'record', ARGV[3], 'bundle', ARGV[4], 'phase', ARGV[8])
else
  redis.call('HSET', KEYS[2], 'record', ARGV[3], 'bundle', ARGV[4], 'diff', ARGV[5], 'phase', ARGV[8])
end
if ARGV[1] == '1' then
  redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[6])
end
local heads = tonumber(ARGV[9])
for i = 10, 9 + 2 * heads, 2 do
  redis.call('HSET', KEYS[2], 'head:' .. ARGV[i], ARGV[i + 1])
end
redis.call('SADD', KEYS[4], ARGV[2])
local job = 0
for i = 10 + 2 * heads, #ARGV, 3 do
  job = job + 1
  redis.call('HSET', KEYS[3], ARGV[i], '1')
  redis.call('SADD', KEYS[5], ARGV[i + 1])
  redis.call('SADD', KEYS[8], ARGV[i + 1])
  redis.call('XADD', KEYS[8 + job], '*', 'payload', ARGV[i + 2])
end
return ''
"#,
    )
});

/// Suffix of the attempts-hash field that records which attempt of a lane
/// the completeness gate sent back; [`ADVANCE_AND_DISPATCH`] spells it too.
pub(super) const GATE_REJECTED_SUFFIX: &str = "!gate-rejected";

/// Moves a lane's awaited attempt from ARGV[2] to ARGV[3] and publishes the
/// job ARGV[4], only if the attempt is still ARGV[2]; with ARGV[5] == "1"
/// also requires that the completeness gate has not sent this lane back
/// before, and records that it now has. A job not due until ARGV[7] (ms)
/// later than ARGV[8] (now) waits in the engine's delayed set instead of
/// its stream. Returns 1 if it dispatched.
///
/// KEYS: attempts hash, the job's stream, engines set, the engine's delayed
/// set, ready set. ARGV[1]: lane id, ARGV[6]: the job's engine.
pub(super) static ADVANCE_AND_DISPATCH: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if (cur or '0') ~= ARGV[2] then
  return 0
end
if ARGV[5] == '1' then
  local marker = ARGV[1] .. '!gate-rejected'
  if redis.call('HEXISTS', KEYS[1], marker) == 1 then
    return 0
  end
  redis.call('HSET', KEYS[1], marker, ARGV[2])
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('SADD', KEYS[3], ARGV[6])
if tonumber(ARGV[7]) > tonumber(ARGV[8]) then
  redis.call('ZADD', KEYS[4], ARGV[7], ARGV[4])
else
  redis.call('XADD', KEYS[2], '*', 'payload', ARGV[4])
  redis.call('SADD', KEYS[5], ARGV[6])
end
return 1
"#,
    )
});

/// Dispatches the first attempt ARGV[4] of lane ARGV[2], already in the
/// plan of review ARGV[1]: sets the lane's awaited attempt to ARGV[3] and
/// publishes the job; only if the review is still active and the lane has
/// no awaited attempt yet. Returns 1 if it dispatched.
///
/// KEYS: attempts hash, active set, the job's stream, engines set, ready
/// set. ARGV[5]: the job's engine.
pub(super) static DISPATCH_PLANNED: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
if redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 0 then
  return 0
end
if redis.call('HEXISTS', KEYS[1], ARGV[2]) == 1 then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
redis.call('SADD', KEYS[4], ARGV[5])
redis.call('SADD', KEYS[5], ARGV[5])
redis.call('XADD', KEYS[3], '*', 'payload', ARGV[4])
return 1
"#,
    )
});

/// Moves review ARGV[1] from phase ARGV[2] to ARGV[3], only if the review
/// hash's `phase` field is ARGV[2]; with the move, stores the record
/// ARGV[4] (and the report ARGV[5], unless empty), appends the events and
/// publishes the first attempts of the jobs. A move to an end (ARGV[6] ==
/// "1") takes the review out of the active set and, when ARGV[7] is not
/// empty, makes its keys expire in ARGV[7] seconds (its idempotency key
/// only sooner, never later). Returns {1, ""} when it moved, {0, phase}
/// when the review is in another phase, {0, ""} when it is gone.
///
/// A review stored before reviews had a phase has no `phase` field: its
/// record is as that version left it, so every caller derives the same
/// phase from it, and the caller's ARGV[2] is taken as its phase. The
/// first move writes the field.
///
/// KEYS: review hash, attempts hash, events stream, active set, engines
/// set, ready set, diff key, lanes hash, idempotency key (the review hash
/// when it has none), then the job stream of each job in turn.
/// ARGV[8]: the events stream's cap; ARGV[9]: the number E of events, E
/// events, then (lane id, engine, job JSON) triples.
pub(super) static MOVE_PHASE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
if redis.call('EXISTS', KEYS[1]) == 0 then
  return {0, ''}
end
local current = redis.call('HGET', KEYS[1], 'phase')
if current and current ~= ARGV[2] then
  return {0, current}
end
redis.call('HSET', KEYS[1], 'phase', ARGV[3], 'record', ARGV[4])
if ARGV[5] ~= '' then
  redis.call('HSET', KEYS[1], 'report', ARGV[5])
end
local events = tonumber(ARGV[9])
for i = 10, 9 + events do
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[8], '*', 'payload', ARGV[i])
end
local job = 0
for i = 10 + events, #ARGV, 3 do
  job = job + 1
  redis.call('HSET', KEYS[2], ARGV[i], '1')
  redis.call('SADD', KEYS[5], ARGV[i + 1])
  redis.call('SADD', KEYS[6], ARGV[i + 1])
  redis.call('XADD', KEYS[9 + job], '*', 'payload', ARGV[i + 2])
end
if ARGV[6] == '1' then
  redis.call('SREM', KEYS[4], ARGV[1])
  if ARGV[7] ~= '' then
    for _, key in ipairs({KEYS[1], KEYS[2], KEYS[3], KEYS[7], KEYS[8]}) do
      redis.call('EXPIRE', key, ARGV[7])
    end
    if KEYS[9] ~= KEYS[1] then
      redis.call('EXPIRE', KEYS[9], ARGV[7], 'LT')
    end
  end
end
return {1, ''}
"#,
    )
});

/// Settles lane ARGV[1] with the result ARGV[2] in the lanes hash KEYS[1]
/// unless it has one or the review (its hash KEYS[3]) is gone, and then
/// appends the event ARGV[3] to the events stream KEYS[2] (capped near
/// ARGV[4] entries). Returns 1 if it settled.
pub(super) static SETTLE_AND_ANNOUNCE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
if redis.call('EXISTS', KEYS[3]) == 0 then
  return 0
end
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then
  return 0
end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[4], '*', 'payload', ARGV[3])
return 1
"#,
    )
});

/// Appends the events ARGV[2..] to the events stream KEYS[2] (capped near
/// ARGV[1] entries) while the review, its hash KEYS[1], exists: an event
/// for a review that expired would otherwise make a new stream that never
/// does. Returns how many it appended.
pub(super) static APPEND_EVENTS: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
for i = 2, #ARGV do
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[1], '*', 'payload', ARGV[i])
end
return #ARGV - 1
"#,
    )
});

/// Moves the jobs that are due (score at most ARGV[3], now in ms; at most
/// ARGV[4] of them per engine) from each delayed set to its job stream,
/// then reads one new entry for consumer ARGV[2] of group ARGV[1] from the
/// first stream, in order, that its shard's ready set names. Returns
/// {next, stream, id, fields} with the entry, or {next} without; `next`
/// is the earliest score still waiting in any of the sets, or -1 when
/// none waits. One round trip, and never more than one entry.
///
/// The ready set of a shard names the engines whose streams there may
/// hold entries no worker has read: every step that appends a job adds
/// its engine, and a read here that finds the stream empty removes it.
/// A stream left out only waits for the caller's blocking read, which
/// covers every stream; a stream named in vain costs one read.
///
/// KEYS: for each shard in turn, its ready set, then the delayed set and
/// the job stream of each engine. ARGV[5]: the number E of engines, then
/// the E engine names, in the order the keys give them.
pub(super) static TAKE_JOB: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
local now = tonumber(ARGV[3])
local engines = tonumber(ARGV[5])
local stride = 1 + 2 * engines
local next = -1
for base = 1, #KEYS, stride do
  for e = 1, engines do
    local delayed = KEYS[base + 2 * e - 1]
    local first = redis.call('ZRANGE', delayed, 0, 0, 'WITHSCORES')
    if first[2] and tonumber(first[2]) <= now then
      local due = redis.call('ZRANGEBYSCORE', delayed, '-inf', ARGV[3], 'LIMIT', 0, tonumber(ARGV[4]))
      for _, job in ipairs(due) do
        redis.call('XADD', KEYS[base + 2 * e], '*', 'payload', job)
        redis.call('ZREM', delayed, job)
      end
      redis.call('SADD', KEYS[base], ARGV[5 + e])
      first = redis.call('ZRANGE', delayed, 0, 0, 'WITHSCORES')
    end
    if first[2] then
      local at = tonumber(first[2])
      if next < 0 or at < next then
        next = at
      end
    end
  end
end
for base = 1, #KEYS, stride do
  local ready = {}
  for _, engine in ipairs(redis.call('SMEMBERS', KEYS[base])) do
    ready[engine] = true
  end
  for e = 1, engines do
    if ready[ARGV[5 + e]] then
      local stream = KEYS[base + 2 * e]
      local got = redis.call('XREADGROUP', 'GROUP', ARGV[1], ARGV[2], 'COUNT', 1, 'STREAMS', stream, '>')
      if got then
        local entry = got[1][2][1]
        return {next, stream, entry[1], entry[2]}
      end
      redis.call('SREM', KEYS[base], ARGV[5 + e])
    end
  end
end
return {next}
"#,
    )
});

/// Reads one new entry for consumer ARGV[2] of group ARGV[1] from the
/// first stream of KEYS that has one. Returns {stream, id, fields}, or an
/// empty array.
pub(super) static TAKE_ONE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
for i = 1, #KEYS do
  local got = redis.call('XREADGROUP', 'GROUP', ARGV[1], ARGV[2], 'COUNT', 1, 'STREAMS', KEYS[i], '>')
  if got then
    local entry = got[1][2][1]
    return {KEYS[i], entry[1], entry[2]}
  end
end
return {}
"#,
    )
});

/// Adds ARGV[1] to the quota counter KEYS[1] unless that takes it past
/// ARGV[2]; the counter expires ARGV[3] ms after its first charge (its
/// window's end, or later). Returns {1, used} when charged, {0, used}
/// when refused.
pub(super) static CHARGE_QUOTA: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if used + tonumber(ARGV[1]) > tonumber(ARGV[2]) then
  return {0, used}
end
used = redis.call('INCRBY', KEYS[1], ARGV[1])
if used == tonumber(ARGV[1]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
return {1, used}
"#,
    )
});
