//! Admission of a tenant's submission: its quotas, checked before any work.

use super::{Coordinator, ServiceError};
use revu_domain::clock::Clock;
use revu_domain::lane::ReviewId;
use revu_queue::{JobQueue, QuotaCharge, ReviewStore};

const MINUTE_MS: u64 = 60 * 1000;
const DAY_MS: u64 = 24 * 60 * MINUTE_MS;

/// What each tenant may ask for; `None` is no limit. Shared by every
/// coordinator on the same backend: the counts live there.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Quotas {
    /// Reviews running at once (`--tenant-max-inflight`).
    pub inflight: Option<u64>,
    /// Submissions per minute (`--tenant-submissions-per-minute`).
    pub submissions_per_minute: Option<u64>,
    /// Diff bytes per UTC day (`--tenant-diff-bytes-per-day`).
    pub diff_bytes_per_day: Option<u64>,
}

impl Quotas {
    /// The names of the quotas set, as metrics and errors give them.
    pub fn names(&self) -> Vec<&'static str> {
        [
            (self.inflight, "max-inflight"),
            (self.submissions_per_minute, SUBMISSIONS.quota),
            (self.diff_bytes_per_day, DIFF_BYTES.quota),
        ]
        .into_iter()
        .filter_map(|(limit, name)| limit.map(|_| name))
        .collect()
    }

    fn any(&self) -> bool {
        self.inflight.is_some()
            || self.submissions_per_minute.is_some()
            || self.diff_bytes_per_day.is_some()
    }
}

/// One windowed quota: its name in errors and metrics, its flag, its window.
struct Window {
    quota: &'static str,
    flag: &'static str,
    window_ms: u64,
}

const SUBMISSIONS: Window = Window {
    quota: "submissions-per-minute",
    flag: "--tenant-submissions-per-minute",
    window_ms: MINUTE_MS,
};
const DIFF_BYTES: Window = Window {
    quota: "diff-bytes-per-day",
    flag: "--tenant-diff-bytes-per-day",
    window_ms: DAY_MS,
};

impl<B: JobQueue + ReviewStore> Coordinator<B> {
    /// Admits a submission of `diff_bytes` from `tenant` under its quotas.
    /// `Ok(Some(id))` when its idempotency key already holds a review: a
    /// retried submission is answered with it and costs nothing.
    pub(super) async fn admit(
        &self,
        tenant: &str,
        idempotency_key: Option<&str>,
        diff_bytes: usize,
    ) -> Result<Option<ReviewId>, ServiceError> {
        if !self.quotas.any() {
            return Ok(None);
        }
        if let Some(key) = idempotency_key
            && let Some(existing) = self.backend.idempotent_review(Some(tenant), key).await?
        {
            return Ok(Some(existing));
        }
        if let Some(limit) = self.quotas.inflight {
            let active = self.backend.active_reviews().await?;
            let used = active
                .iter()
                .filter(|id| id.tenant() == Some(tenant))
                .count();
            let used = u64::try_from(used).unwrap_or(u64::MAX);
            if used >= limit {
                return Err(self.refuse(
                    tenant,
                    "max-inflight",
                    "--tenant-max-inflight",
                    used,
                    limit,
                ));
            }
        }
        let now = self.clock.now_ms();
        let bytes = u64::try_from(diff_bytes).unwrap_or(u64::MAX);
        for (window, limit, amount) in [
            (&SUBMISSIONS, self.quotas.submissions_per_minute, 1),
            (&DIFF_BYTES, self.quotas.diff_bytes_per_day, bytes),
        ] {
            let Some(limit) = limit else { continue };
            let charged = self
                .backend
                .charge_quota(tenant, window.quota, window.window_ms, now, amount, limit)
                .await?;
            if let QuotaCharge::Refused { used } = charged {
                return Err(self.refuse(tenant, window.quota, window.flag, used, limit));
            }
        }
        Ok(None)
    }

    fn refuse(
        &self,
        tenant: &str,
        quota: &'static str,
        flag: &'static str,
        used: u64,
        limit: u64,
    ) -> ServiceError {
        self.metrics.quota_refused(tenant, quota);
        ServiceError::Quota {
            tenant: tenant.to_owned(),
            quota,
            used,
            limit,
            flag,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ReviewSettings;
    use crate::service::paused::{coordinator, submission};
    use revu_queue::memory::MemoryBackend;
    use std::time::Duration;

    /// 2023-11-14 22:13:00 UTC: a minute starts.
    const A_MINUTE: u64 = 1_699_999_980_000;
    /// 2023-11-15 00:00:00 UTC: a day starts.
    const A_DAY: u64 = 1_700_006_400_000;

    fn limited(quotas: Quotas, start_ms: u64) -> Coordinator<MemoryBackend> {
        coordinator(ReviewSettings::default(), start_ms)
            .1
            .with_quotas(quotas)
    }

    async fn accepted(c: &Coordinator<MemoryBackend>, tenant: &str) {
        let submitted = c.submit(submission("docs-only.patch", Some(tenant))).await;
        assert!(submitted.is_ok(), "{tenant}: {submitted:?}");
    }

    /// The quota that refused `tenant`'s next submission, how much of it
    /// was used, and what the refusal said.
    async fn refused(c: &Coordinator<MemoryBackend>, tenant: &str) -> (&'static str, u64, String) {
        match c.submit(submission("docs-only.patch", Some(tenant))).await {
            Err(e @ ServiceError::Quota { quota, used, .. }) => (quota, used, e.to_string()),
            other => panic!("{tenant}: expected a quota refusal, got {other:?}"),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn submissions_count_per_minute_of_the_clock_and_start_again_with_the_next() {
        let quotas = Quotas {
            submissions_per_minute: Some(3),
            ..Quotas::default()
        };
        let c = limited(quotas, A_MINUTE + 50_000);
        for _ in 0..3 {
            accepted(&c, "team-a").await;
        }
        let (quota, used, said) = refused(&c, "team-a").await;
        assert_eq!((quota, used), ("submissions-per-minute", 3));
        assert!(
            said.contains("team-a")
                && said.contains("(3 used of 3)")
                && said.contains("--tenant-submissions-per-minute"),
            "{said}"
        );
        // Another tenant counts on its own.
        accepted(&c, "team-b").await;
        // The last millisecond of the minute: still refused.
        tokio::time::sleep(Duration::from_millis(9_999)).await;
        assert_eq!(refused(&c, "team-a").await.1, 3);
        // The next minute counts from nothing.
        tokio::time::sleep(Duration::from_millis(1)).await;
        for _ in 0..3 {
            accepted(&c, "team-a").await;
        }
        assert_eq!(refused(&c, "team-a").await.1, 3);
    }

    #[tokio::test(start_paused = true)]
    async fn diff_bytes_count_per_utc_day_and_start_again_with_the_next() {
        let bytes = submission("docs-only.patch", None).diff.len();
        let per_day = u64::try_from(bytes * 5 / 2).unwrap_or(u64::MAX);
        let quotas = Quotas {
            diff_bytes_per_day: Some(per_day),
            ..Quotas::default()
        };
        let c = limited(quotas, A_DAY - 60_000);
        accepted(&c, "team-a").await;
        accepted(&c, "team-a").await;
        let (quota, used, said) = refused(&c, "team-a").await;
        assert_eq!(quota, "diff-bytes-per-day");
        assert_eq!(used, u64::try_from(2 * bytes).unwrap_or(u64::MAX));
        assert!(said.contains("--tenant-diff-bytes-per-day"), "{said}");
        tokio::time::sleep(Duration::from_millis(59_999)).await;
        refused(&c, "team-a").await;
        // Midnight UTC.
        tokio::time::sleep(Duration::from_millis(1)).await;
        accepted(&c, "team-a").await;
    }
}
