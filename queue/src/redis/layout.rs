//! Where each key lives, so that every atomic step touches one slot.
//!
//! Redis Cluster runs a script, a `MULTI` or a multi-key command only when
//! all of its keys hash to one slot, and a key's slot is taken from its
//! hash tag, the part between its first `{` and the `}` after it. revu
//! splits its keys into [`SHARDS`] shards, each under the tag `{p:N}` (the
//! key prefix and the shard number). A review and everything one step does
//! with it live in one shard:
//!
//! - the review's own keys (record and bundle hash, settled lanes, awaited
//!   attempts, events) and its idempotency key;
//! - the shard's job streams (one per engine), their delayed retries, the
//!   set of engines that have a stream there, and the shard's active set;
//! - the shard's result stream and dead-letter stream.
//!
//! A review's shard is read off its id ([`shard_of`]); an id made by
//! [`review_id_for`] for a submission under an idempotency key lands in
//! that key's shard, so the check of the key, the new review and its first
//! jobs are one script on one slot. Workers read the job streams of every
//! shard, and coordinators every shard's result stream. Keys outside any
//! shard (delivery counters, quota counters, the lane cache) are only ever
//! touched one at a time.

use revu_domain::lane::ReviewId;

/// Shards of the key space. Fixed: every coordinator and worker on one
/// Redis must agree on it, and eight spread the streams over up to eight
/// cluster masters.
pub const SHARDS: u16 = 8;

/// 64-bit FNV-1a: stable across builds and platforms.
fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in *part {
            hash ^= u64::from(*b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        // Keeps ("ab", "c") apart from ("a", "bc").
        hash ^= 0xff;
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// The shard of review `id`: its last hexadecimal digit modulo [`SHARDS`]
/// (the random tail of a UUID), or a hash of the id when it ends in
/// anything else.
pub fn shard_of(id: &ReviewId) -> u16 {
    match id.0.chars().last().and_then(|c| c.to_digit(16)) {
        Some(d) => u16::try_from(d).unwrap_or(0) % SHARDS,
        None => u16::try_from(fnv1a(&[id.0.as_bytes()]) % u64::from(SHARDS)).unwrap_or(0),
    }
}

/// The shard of idempotency key `key` of `tenant`.
pub fn key_shard(tenant: Option<&str>, key: &str) -> u16 {
    let tenant = tenant.unwrap_or_default();
    u16::try_from(fnv1a(&[tenant.as_bytes(), key.as_bytes()]) % u64::from(SHARDS)).unwrap_or(0)
}

/// A new review id in `tenant`'s namespace; under an idempotency key, one
/// in that key's shard.
pub fn review_id_for(tenant: Option<&str>, idempotency_key: Option<&str>) -> ReviewId {
    let Some(key) = idempotency_key else {
        return ReviewId::new_in(tenant);
    };
    let mut local = uuid::Uuid::now_v7().simple().to_string();
    // A v7 UUID's last digit is random: setting it keeps the id as unique.
    local.pop();
    let digit = char::from_digit(u32::from(key_shard(tenant, key)), 16).unwrap_or('0');
    local.push(digit);
    let id = uuid::Uuid::try_parse(&local)
        .map(|u| u.to_string())
        .unwrap_or(local);
    ReviewId::scoped(tenant, &id)
}

/// Key names for one prefix.
#[derive(Debug, Clone)]
pub struct Layout {
    prefix: String,
}

impl Layout {
    /// A layout under `prefix`, which may not hold `{` or `}` (they would
    /// change the hash tags).
    pub fn new(prefix: &str) -> Result<Self, crate::SettingsError> {
        if prefix.is_empty() || prefix.contains(['{', '}']) {
            return Err(crate::SettingsError::KeyPrefix {
                prefix: prefix.to_owned(),
            });
        }
        Ok(Layout {
            prefix: prefix.to_owned(),
        })
    }

    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// A key outside every shard: `{p}:{suffix}`.
    pub fn global(&self, suffix: &str) -> String {
        format!("{}:{suffix}", self.prefix)
    }

    /// A key of shard `shard`: `{p:N}:{suffix}`.
    pub fn sharded(&self, shard: u16, suffix: &str) -> String {
        format!("{{{}:{shard}}}:{suffix}", self.prefix)
    }

    pub fn jobs(&self, shard: u16, engine: &str) -> String {
        self.sharded(shard, &format!("jobs:{engine}"))
    }

    /// Jobs of `engine` waiting out a retry delay, scored by when they are
    /// due (ms).
    pub fn delayed(&self, shard: u16, engine: &str) -> String {
        self.sharded(shard, &format!("delayed:{engine}"))
    }

    /// The engines whose job streams in `shard` may hold jobs no worker
    /// has read: a hint that spares a take reading every stream.
    pub fn ready(&self, shard: u16) -> String {
        self.sharded(shard, "ready")
    }

    /// Where tenant `tenant`'s keys start inside a shard (`tenant:{t}:`),
    /// or nothing for the open namespace.
    fn namespace(tenant: Option<&str>) -> String {
        tenant.map(|t| format!("tenant:{t}:")).unwrap_or_default()
    }

    /// Key `suffix` of review `id` (its hash when `suffix` is empty).
    pub fn review(&self, id: &ReviewId, suffix: &str) -> String {
        let base = format!("{}review:{}", Self::namespace(id.tenant()), id.local());
        let name = if suffix.is_empty() {
            base
        } else {
            format!("{base}:{suffix}")
        };
        self.sharded(shard_of(id), &name)
    }

    /// The key holding the review `tenant` submitted under `key`.
    pub fn idempotency(&self, tenant: Option<&str>, key: &str) -> String {
        self.sharded(
            key_shard(tenant, key),
            &format!("{}idem:{key}", Self::namespace(tenant)),
        )
    }

    /// A quota counter of `tenant`, outside the shards.
    pub fn quota(&self, tenant: &str, name: &str, window: u64) -> String {
        self.global(&format!("tenant:{tenant}:quota:{name}:{window}"))
    }

    /// Key `suffix` of the code index's cache entries `tenant` shares
    /// (`entries`, `used`, `bytes`): all of one tenant's in one slot of
    /// their own, outside the shards (`{p:index}` for the open namespace,
    /// `{p:tenant:T:index}` for a tenant).
    pub fn index_cache(&self, tenant: Option<&str>, suffix: &str) -> String {
        match tenant {
            None => format!("{{{}:index}}:{suffix}", self.prefix),
            Some(t) => format!("{{{}:tenant:{t}:index}}:{suffix}", self.prefix),
        }
    }
}

/// Every shard, in order.
pub fn shards() -> impl Iterator<Item = u16> + Clone {
    0..SHARDS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_made_for_a_key_lands_in_its_shard() {
        for (tenant, key) in [(None, "ci-1"), (Some("acme"), "k"), (None, "")] {
            for _ in 0..64 {
                let id = review_id_for(tenant, Some(key));
                assert_eq!(shard_of(&id), key_shard(tenant, key), "{id}");
                assert_eq!(id.tenant(), tenant);
                assert!(uuid::Uuid::try_parse(id.local()).is_ok(), "{id}");
            }
        }
    }

    #[test]
    fn ids_spread_over_every_shard() {
        let mut seen = [0u32; SHARDS as usize];
        for _ in 0..800 {
            seen[usize::from(shard_of(&ReviewId::new()))] += 1;
        }
        assert!(seen.iter().all(|n| *n > 40), "{seen:?}");
    }

    #[test]
    fn a_review_and_its_key_share_one_tag() {
        let layout = Layout::new("revu").unwrap_or_else(|e| panic!("{e}"));
        let id = review_id_for(Some("acme"), Some("build-7"));
        let tag = format!("{{revu:{}}}", shard_of(&id));
        for key in [
            layout.review(&id, ""),
            layout.review(&id, "events"),
            layout.idempotency(Some("acme"), "build-7"),
            layout.jobs(shard_of(&id), "rules"),
        ] {
            assert!(key.starts_with(&tag), "{key}");
        }
        assert_eq!(
            layout.review(&id, "lanes"),
            format!("{tag}:tenant:acme:review:{}:lanes", id.local())
        );
    }

    #[test]
    fn a_tenants_index_cache_is_one_slot_apart_from_every_other() {
        let layout = Layout::new("revu").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(layout.index_cache(None, "used"), "{revu:index}:used");
        assert_eq!(
            layout.index_cache(Some("team-a"), "entries"),
            "{revu:tenant:team-a:index}:entries"
        );
        let tag = |key: String| key.split_once('}').map(|(t, _)| t.to_owned());
        assert_eq!(
            tag(layout.index_cache(Some("a"), "entries")),
            tag(layout.index_cache(Some("a"), "bytes"))
        );
        assert_ne!(
            tag(layout.index_cache(Some("a"), "entries")),
            tag(layout.index_cache(Some("b"), "entries"))
        );
        assert_ne!(
            tag(layout.index_cache(None, "entries")),
            tag(layout.index_cache(Some("index"), "entries"))
        );
    }

    #[test]
    fn braces_in_the_prefix_are_refused() {
        assert!(Layout::new("re{vu").is_err());
        assert!(Layout::new("").is_err());
        assert!(Layout::new("revu-staging").is_ok());
    }

    #[test]
    fn ids_not_ending_in_hex_still_have_a_shard() {
        let s = shard_of(&ReviewId("review-x".into()));
        assert!(s < SHARDS);
        assert_eq!(s, shard_of(&ReviewId("review-x".into())));
    }
}
