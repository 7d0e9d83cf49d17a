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

/// Compare-and-set of a hash field: sets KEYS[1][ARGV[1]] to ARGV[3] when it
/// currently holds ARGV[2] (`"0"` matches an absent field). Returns 1 if set.
pub(super) static HASH_CAS: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if (cur or '0') ~= ARGV[2] then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1
"#,
    )
});
