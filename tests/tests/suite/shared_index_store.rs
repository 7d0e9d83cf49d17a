//! The shared index cache's Redis store on a real redis-server: a
//! tenant's entries stay within its byte limit (the least lately used go
//! first), are forgotten once unused past the age limit, are never read
//! by another tenant, and an answer stops at its byte budget. Time is a
//! clock the test moves.

use revu_domain::clock::Clock;
use revu_queue::index_cache::{EntryName, IndexCacheLimits};
use revu_queue::redis::RedisBackend;
use revu_tests::RedisServer;
use revu_tests::queue_fixtures::{OrFail, redis_backend};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// A clock the test moves by hand.
#[derive(Debug, Clone)]
struct Hands(Arc<AtomicU64>);

impl Clock for Hands {
    fn now_ms(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

impl Hands {
    fn set(&self, ms: u64) {
        self.0.store(ms, Ordering::Relaxed);
    }
}

const T0: u64 = 1_700_000_000_000;
const HOUR: u64 = 3600 * 1000;
const DAY: u64 = 24 * HOUR;

fn name(n: u8) -> EntryName {
    let blob = format!("{n:02x}{}", "0".repeat(38));
    EntryName::new("0.1.0-x1-l1", &blob, "python").or_fail()
}

async fn backend(server: &RedisServer) -> (RedisBackend, Hands) {
    let hands = Hands(Arc::new(AtomicU64::new(T0)));
    let backend = redis_backend(server).await.with_clock(hands.clone());
    (backend, hands)
}

async fn held(
    b: &RedisBackend,
    tenant: Option<&str>,
    names: &[EntryName],
    limits: &IndexCacheLimits,
) -> Vec<bool> {
    b.look_up_index_entries(tenant, names, true, usize::MAX, limits)
        .await
        .or_fail()
        .into_iter()
        .map(|f| f.is_some())
        .collect()
}

async fn total_bytes(server: &RedisServer, tenant: Option<&str>) -> u64 {
    let client = redis::Client::open(server.url.as_str()).or_fail();
    let mut conn = client.get_multiplexed_async_connection().await.or_fail();
    let total: Option<u64> = redis::cmd("GET")
        .arg(server.layout().index_cache(tenant, "bytes"))
        .query_async(&mut conn)
        .await
        .or_fail();
    total.unwrap_or(0)
}

#[tokio::test]
async fn redis_past_its_byte_limit_a_tenant_loses_the_entries_unused_the_longest() {
    let server = RedisServer::start();
    let (b, hands) = backend(&server).await;
    let limits = IndexCacheLimits {
        max_tenant_bytes: 1000,
        max_age: Duration::from_secs(7 * 24 * 3600),
    };
    let names: Vec<EntryName> = (0..5).map(name).collect();
    let mut evicted = 0;
    for (i, n) in names.iter().enumerate() {
        let at = T0 + u64::try_from(i).unwrap_or(0) * 2 * HOUR;
        // The first is used again between the third and the fourth coming:
        // the second and third are then unused the longest.
        if i == 3 {
            hands.set(at - HOUR);
            assert_eq!(held(&b, None, &names[..1], &limits).await, [true]);
        }
        hands.set(at);
        let kept = b
            .keep_index_entries(None, &[(n.clone(), vec![b'x'; 300])], &limits)
            .await
            .or_fail();
        assert_eq!(kept.stored, 1);
        evicted += kept.evicted;
    }
    assert_eq!(evicted, 2);
    assert_eq!(
        held(&b, None, &names, &limits).await,
        [true, false, false, true, true]
    );
    assert_eq!(total_bytes(&server, None).await, 900);
    // Storing an entry again replaces it: the total counts it once.
    b.keep_index_entries(None, &[(names[4].clone(), vec![b'z'; 100])], &limits)
        .await
        .or_fail();
    assert_eq!(total_bytes(&server, None).await, 700);
}

#[tokio::test]
async fn redis_an_entry_unused_past_the_age_limit_is_forgotten_and_a_use_keeps_one() {
    let server = RedisServer::start();
    let (b, hands) = backend(&server).await;
    let limits = IndexCacheLimits {
        max_tenant_bytes: 1 << 20,
        max_age: Duration::from_secs(7 * 24 * 3600),
    };
    let (a, c) = (name(1), name(2));
    let entries = [
        (a.clone(), b"entry a".to_vec()),
        (c.clone(), b"entry c".to_vec()),
    ];
    b.keep_index_entries(Some("team-a"), &entries, &limits)
        .await
        .or_fail();
    hands.set(T0 + 5 * DAY);
    let found = b
        .look_up_index_entries(
            Some("team-a"),
            std::slice::from_ref(&c),
            false,
            1 << 20,
            &limits,
        )
        .await
        .or_fail();
    assert_eq!(found, [Some(b"entry c".to_vec())]);
    hands.set(T0 + 8 * DAY);
    // a was last used 8 days ago, c 3 days ago.
    assert_eq!(
        held(&b, Some("team-a"), &[a.clone(), c.clone()], &limits).await,
        [false, true]
    );
    let kept = b
        .keep_index_entries(Some("team-a"), &[(name(3), b"entry".to_vec())], &limits)
        .await
        .or_fail();
    assert_eq!(kept.evicted, 1);
    assert_eq!(
        total_bytes(&server, Some("team-a")).await,
        u64::try_from(b"entry c".len() + b"entry".len()).unwrap_or(0)
    );
    // The keys themselves expire with the age limit, on the server's clock.
    let client = redis::Client::open(server.url.as_str()).or_fail();
    let mut conn = client.get_multiplexed_async_connection().await.or_fail();
    let ttl: i64 = redis::cmd("PTTL")
        .arg(server.layout().index_cache(Some("team-a"), "entries"))
        .query_async(&mut conn)
        .await
        .or_fail();
    assert!(
        ttl > 6 * 24 * 3600 * 1000 && ttl <= 7 * 24 * 3600 * 1000,
        "{ttl}"
    );
}

#[tokio::test]
async fn redis_a_tenant_never_reads_another_tenants_entries() {
    let server = RedisServer::start();
    let (b, _) = backend(&server).await;
    let limits = IndexCacheLimits::default();
    let n = name(7);
    b.keep_index_entries(Some("team-a"), &[(n.clone(), b"a's".to_vec())], &limits)
        .await
        .or_fail();
    let one = std::slice::from_ref(&n);
    assert_eq!(held(&b, Some("team-a"), one, &limits).await, [true]);
    assert_eq!(held(&b, Some("team-b"), one, &limits).await, [false]);
    assert_eq!(held(&b, None, one, &limits).await, [false]);
    // Another stamp is another entry.
    let other = EntryName::new("0.2.0-x1-l1", n.blob(), "python").or_fail();
    assert_eq!(
        held(&b, Some("team-a"), std::slice::from_ref(&other), &limits).await,
        [false]
    );
}

#[tokio::test]
async fn redis_an_answer_stops_at_its_budget_but_never_before_its_first_entry() {
    let server = RedisServer::start();
    let (b, _) = backend(&server).await;
    let limits = IndexCacheLimits::default();
    let names: Vec<EntryName> = (0..4).map(name).collect();
    let entries: Vec<(EntryName, Vec<u8>)> = names
        .iter()
        .skip(1)
        .map(|n| (n.clone(), vec![b'y'; 100]))
        .collect();
    b.keep_index_entries(None, &entries, &limits)
        .await
        .or_fail();
    let found = |budget| b.look_up_index_entries(None, &names, false, budget, &limits);
    let small = found(50).await.or_fail();
    assert_eq!(small.len(), 2);
    assert_eq!(small[0], None);
    assert_eq!(small[1].as_ref().map(Vec::len), Some(100));
    assert_eq!(found(250).await.or_fail().len(), 3);
    assert_eq!(found(300).await.or_fail().len(), 4);
    // Keys only: every key answered, none with its entry.
    let keys_only = b
        .look_up_index_entries(None, &names, true, 1, &limits)
        .await
        .or_fail();
    assert_eq!(keys_only, [None, Some(vec![]), Some(vec![]), Some(vec![])]);
}
