//! The review store's side of the queue contract: tenants and their
//! idempotency keys, quotas, the lane result cache, and large diffs and
//! records read back whole.

use super::*;

pub(crate) async fn tenants_have_their_own_reviews_and_idempotency_keys<
    B: JobQueue + ReviewStore,
>(
    b: B,
) {
    let bundle = Arc::new(ReviewBundle::default());
    let mine = b.new_review_id(Some("team-a"), Some("ci-42"));
    let created = b
        .create_review(&record(&mine), &bundle, Some("ci-42"), &[])
        .await;
    assert_eq!(created.or_fail(), CreateOutcome::Created);
    // The same key from another tenant, and from no tenant, is another review.
    let theirs = b.new_review_id(Some("team-b"), Some("ci-42"));
    let created = b
        .create_review(&record(&theirs), &bundle, Some("ci-42"), &[])
        .await;
    assert_eq!(created.or_fail(), CreateOutcome::Created);
    let open = b.new_review_id(None, Some("ci-42"));
    let created = b
        .create_review(&record(&open), &bundle, Some("ci-42"), &[])
        .await;
    assert_eq!(created.or_fail(), CreateOutcome::Created);
    assert_eq!(
        b.idempotent_review(Some("team-a"), "ci-42").await.or_fail(),
        Some(mine.clone())
    );
    assert_eq!(
        b.idempotent_review(None, "ci-42").await.or_fail(),
        Some(open)
    );
    assert_eq!(
        b.idempotent_review(Some("team-c"), "ci-42").await.or_fail(),
        None
    );
    // team-b naming team-a's review by the id team-a was shown finds nothing.
    let guessed = ReviewId::scoped(Some("team-b"), mine.local());
    assert!(b.load_record(&guessed).await.or_fail().is_none());
    assert!(b.load_record(&mine).await.or_fail().is_some());
    let mut active = b.active_reviews().await.or_fail();
    active.retain(|id| id.tenant() == Some("team-a"));
    assert_eq!(active, vec![mine]);
}

pub(crate) async fn quotas_charge_within_a_window_and_refuse_past_the_limit<
    B: JobQueue + ReviewStore,
>(
    b: B,
) {
    use revu_queue::QuotaCharge::{Charged, Refused};
    let minute = 60_000;
    let at = 1_700_000_000_000 / minute * minute + 10;
    let charge = |tenant: &'static str, amount, now| {
        let b = b.clone();
        async move {
            b.charge_quota(tenant, "submissions", minute, now, amount, 3)
                .await
                .or_fail()
        }
    };
    assert_eq!(charge("a", 2, at).await, Charged { used: 2 });
    assert_eq!(charge("a", 2, at + 1).await, Refused { used: 2 });
    assert_eq!(charge("a", 1, at + 2).await, Charged { used: 3 });
    assert_eq!(
        charge("b", 3, at + 3).await,
        Charged { used: 3 },
        "per tenant"
    );
    assert_eq!(
        charge("a", 1, at + minute).await,
        Charged { used: 1 },
        "next window"
    );
}

pub(crate) async fn the_lane_cache_keeps_a_body_until_it_expires<B: JobQueue + ReviewStore>(b: B) {
    assert_eq!(b.cached_lane("k1").await.or_fail(), None);
    b.cache_lane("k1", r#"{"summary":"ok"}"#, Duration::from_secs(60))
        .await
        .or_fail();
    b.cache_lane("k2", "{}", Duration::from_millis(30))
        .await
        .or_fail();
    assert_eq!(
        b.cached_lane("k1").await.or_fail().as_deref(),
        Some(r#"{"summary":"ok"}"#)
    );
    tokio::time::sleep(Duration::from_millis(80)).await;
    assert_eq!(b.cached_lane("k2").await.or_fail(), None, "expired");
    assert!(b.cached_lane("k1").await.or_fail().is_some());
}

/// A diff of several megabytes (over the size a Redis store writes in
/// pieces before creating the review) is stored whole and byte-exact, also
/// when a second submission under the same key finds the review there.
pub(crate) async fn a_large_diff_is_stored_whole<B: JobQueue + ReviewStore>(b: B) {
    let diff: Vec<u8> = (0..3_500_000u32)
        .map(|i| match i % 1_048_576 {
            // A byte that is not UTF-8 on each side of every piece boundary.
            0 | 1_048_575 => 0xff,
            _ => b"diff --git a/x b/x\n+line\n"[(i % 25) as usize],
        })
        .collect();
    let bundle = Arc::new(ReviewBundle {
        diff: diff.clone().into(),
        ..Default::default()
    });
    let first = b.new_review_id(None, Some("big"));
    let created = b
        .create_review(
            &record(&first),
            &bundle,
            Some("big"),
            &[job(&first, "domain:a")],
        )
        .await;
    assert_eq!(created.or_fail(), CreateOutcome::Created);
    // Its first lane went out with it.
    let taken = take(&b, "taker").await;
    assert_eq!(taken.payload.or_fail().review_id, first);
    let second = b.new_review_id(None, Some("big"));
    let again = b
        .create_review(&record(&second), &bundle, Some("big"), &[])
        .await;
    assert_eq!(again.or_fail(), CreateOutcome::Existing(first.clone()));
    let loaded = b.load_bundle(&first).await.or_fail();
    let stored = loaded.as_ref().map(|l| l.diff.as_bytes().to_vec());
    assert!(
        stored.as_deref() == Some(&diff[..]),
        "diff not kept exactly"
    );
    assert!(b.load_bundle(&second).await.or_fail().is_none());
}

/// A large change's record (its plan lists every file) reads back whole,
/// again from what the backend kept, and changed once it is saved changed.
pub(crate) async fn a_large_record_reads_back_whole<B: JobQueue + ReviewStore>(b: B) {
    let id = b.new_review_id(None, None);
    let mut large = record(&id);
    let files: Vec<String> = (0..8_000)
        .map(|i| format!("services/billing/src/module_{i:05}.rs"))
        .collect();
    Arc::make_mut(&mut large.plan).lanes = files
        .chunks(40)
        .map(|slice| {
            let mut spec = job(&id, &slice[0]).lane;
            spec.files = slice.to_vec();
            spec
        })
        .collect();
    let raw = serde_json::to_string(&large).or_fail();
    assert!(raw.len() > 256 * 1024, "{} bytes: not large", raw.len());
    let created = b
        .create_review(&large, &Arc::new(ReviewBundle::default()), None, &[])
        .await;
    assert_eq!(created.or_fail(), CreateOutcome::Created);
    for read in ["first", "second"] {
        let loaded = b.load_record(&id).await.or_fail();
        assert!(loaded.as_ref() == Some(&large), "{read} read differs");
    }
    let mut later = large.clone();
    later.deadline_ms = 1;
    b.save_record(&later).await.or_fail();
    let loaded = b.load_record(&id).await.or_fail();
    assert!(loaded.as_ref() == Some(&later), "the saved change not read");
    let cancelled = move_to(&b, &later, ReviewPhase::Cancelled, &[]).await;
    let loaded = b.load_record(&id).await.or_fail();
    assert!(loaded.as_ref() == Some(&cancelled), "the move not read");
}
