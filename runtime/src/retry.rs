//! The retry loop over a [`RetryPolicy`]: what the policy decides, run on
//! the async runtime's clock (so a test on paused time never waits).

use revu_domain::retry::{RetryPolicy, Retryable};
use std::future::Future;

/// Runs `op` until it succeeds, fails with an error that is not
/// transient, or has made the policy's `max_attempts` attempts; sleeps the
/// policy's delay between attempts (at least what the error asked for).
/// Returns the last error when it gives up.
pub async fn run<T, E, Fut>(policy: &RetryPolicy, mut op: impl FnMut() -> Fut) -> Result<T, E>
where
    E: Retryable,
    Fut: Future<Output = Result<T, E>>,
{
    let mut attempt = 1;
    loop {
        match op().await {
            Ok(v) => return Ok(v),
            Err(e) if policy.allows_another(attempt, e.retry()) => {
                let wait = policy
                    .delay(attempt)
                    .max(e.retry_after().unwrap_or_default());
                tokio::time::sleep(wait).await;
                attempt += 1;
            }
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use revu_domain::retry::Retry;
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::time::Duration;

    const POLICY: RetryPolicy = RetryPolicy {
        max_attempts: 4,
        base_delay_ms: 1_000,
        max_delay_ms: 60_000,
    };

    /// Fails with `errors` in turn, then succeeds; counts its calls.
    async fn flaky(calls: &AtomicU32, errors: &[Retry]) -> Result<u32, Retry> {
        let n = calls.fetch_add(1, Ordering::SeqCst);
        match errors.get(n as usize) {
            Some(e) => Err(*e),
            None => Ok(n + 1),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn transient_errors_are_retried_until_success_after_the_policy_delays() {
        let calls = AtomicU32::new(0);
        let errors = [Retry::Transient, Retry::Transient];
        let started = tokio::time::Instant::now();
        let got = run(&POLICY, || flaky(&calls, &errors)).await;
        assert_eq!(got, Ok(3));
        assert_eq!(calls.load(Ordering::SeqCst), 3);
        // Two waits: at least half of 1 s and of 2 s, at most their sum.
        let waited = started.elapsed();
        assert!(waited >= Duration::from_millis(1_500), "{waited:?}");
        assert!(waited <= Duration::from_millis(3_000), "{waited:?}");
    }

    #[tokio::test(start_paused = true)]
    async fn a_permanent_error_ends_at_once() {
        let calls = AtomicU32::new(0);
        let errors = [Retry::Transient, Retry::Permanent, Retry::Transient];
        let got = run(&POLICY, || flaky(&calls, &errors)).await;
        assert_eq!(got, Err(Retry::Permanent));
        assert_eq!(calls.load(Ordering::SeqCst), 2);
    }

    #[tokio::test(start_paused = true)]
    async fn attempts_are_bounded() {
        let calls = AtomicU32::new(0);
        let errors = [Retry::Transient; 10];
        let got = run(&POLICY, || flaky(&calls, &errors)).await;
        assert_eq!(got, Err(Retry::Transient));
        assert_eq!(calls.load(Ordering::SeqCst), POLICY.max_attempts);
    }
}
