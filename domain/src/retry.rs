//! The one retry policy: bounded attempts, exponential backoff with full
//! jitter. Used for lane re-dispatch and for calls to the backend.
//!
//! Whether to try again is the error's to say: every error that may be
//! retried implements [`Retryable`] (the queue's, the engines', the
//! coordinator's), so no call site classifies errors of its own.

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Whether an error may go away on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retry {
    Transient,
    Permanent,
}

/// An error that says whether trying again may help: the one way retries
/// are decided.
pub trait Retryable {
    /// Whether the same call may succeed later.
    fn retry(&self) -> Retry;

    /// How long the other side asked to be left alone (a rate limit's
    /// `Retry-After`), when it said.
    fn retry_after(&self) -> Option<Duration> {
        None
    }

    /// Whether [`Retryable::retry`] says it may go away.
    fn is_transient(&self) -> bool {
        self.retry() == Retry::Transient
    }
}

impl Retryable for Retry {
    fn retry(&self) -> Retry {
        *self
    }
}

impl Retry {
    /// `Transient` when `transient`, else `Permanent`.
    pub fn when(transient: bool) -> Retry {
        if transient {
            Retry::Transient
        } else {
            Retry::Permanent
        }
    }
}

/// [`Retry`] as the boolean `transient` that reports and records carry.
pub mod as_transient {
    use super::Retry;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(retry: &Retry, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bool(*retry == Retry::Transient)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Retry, D::Error> {
        bool::deserialize(d).map(Retry::when)
    }
}

impl crate::lane::LaneAttemptOutcome {
    /// Whether a failed attempt may be retried (a report never is).
    pub fn retry(&self) -> Retry {
        match self {
            crate::lane::LaneAttemptOutcome::Failed { retry, .. } => *retry,
            crate::lane::LaneAttemptOutcome::Reported { .. } => Retry::Permanent,
        }
    }
}

/// A bounded exponential backoff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetryPolicy {
    /// Attempts in all, the first included.
    pub max_attempts: u32,
    /// Delay before the second attempt, in milliseconds.
    pub base_delay_ms: u64,
    /// Cap on any single delay, in milliseconds.
    pub max_delay_ms: u64,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 3,
            base_delay_ms: 500,
            max_delay_ms: 30_000,
        }
    }
}

impl RetryPolicy {
    /// Whether `attempt` (1-based, just failed) may be followed by another.
    pub fn allows_another(&self, attempt: u32, retry: Retry) -> bool {
        retry == Retry::Transient && attempt < self.max_attempts
    }

    /// The ceiling of the delay after `attempt` failed: base · 2^(attempt-1), capped.
    pub fn ceiling(&self, attempt: u32) -> Duration {
        let shift = attempt.saturating_sub(1).min(32);
        let ms = self
            .base_delay_ms
            .saturating_mul(1u64 << shift)
            .min(self.max_delay_ms);
        Duration::from_millis(ms)
    }

    /// The delay after `attempt` failed: uniform in [ceiling/2, ceiling]
    /// ("equal jitter"), so retries of many lanes do not arrive together
    /// but never come back immediately.
    pub fn delay(&self, attempt: u32) -> Duration {
        let ceiling = self.ceiling(attempt);
        let half = ceiling / 2;
        let spread = u64::try_from((ceiling - half).as_millis()).unwrap_or(0);
        half + Duration::from_millis(if spread == 0 {
            0
        } else {
            rand::random_range(0..=spread)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attempts_are_bounded_and_permanent_errors_never_retry() {
        let p = RetryPolicy::default();
        assert!(p.allows_another(1, Retry::Transient));
        assert!(p.allows_another(2, Retry::Transient));
        assert!(!p.allows_another(3, Retry::Transient));
        assert!(!p.allows_another(1, Retry::Permanent));
    }

    #[test]
    fn delay_grows_exponentially_within_jitter_and_cap() {
        let p = RetryPolicy {
            max_attempts: 10,
            base_delay_ms: 100,
            max_delay_ms: 1_000,
        };
        assert_eq!(p.ceiling(1), Duration::from_millis(100));
        assert_eq!(p.ceiling(3), Duration::from_millis(400));
        assert_eq!(p.ceiling(9), Duration::from_millis(1_000));
        for attempt in 1..10 {
            let d = p.delay(attempt);
            assert!(d >= p.ceiling(attempt) / 2 && d <= p.ceiling(attempt));
        }
    }
}
