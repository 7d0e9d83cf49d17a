//! A [`Clock`] that reads tokio's time, for tests on paused time.
//!
//! On a runtime whose time is paused (`#[tokio::test(start_paused =
//! true)]`), tokio's clock stands still until every task waits on a timer,
//! then jumps to the next one. A [`TokioClock`] handed to the coordinator,
//! the workers and the in-memory backend moves with it: a lease's idle
//! time, a retry's delay, a deadline or a quota window passes as soon as
//! the test sleeps through it, and the timers of the code under test (a
//! heartbeat, a queue read's wait, the sweeper's tick) fire on the same
//! time. Services run on [`revu_domain::clock::SystemClock`].

use revu_domain::clock::Clock;
use tokio::time::Instant;

/// Wall-clock time as tokio's clock moves: a starting wall time plus
/// the tokio time elapsed since. Copies read the same time.
#[derive(Debug, Clone, Copy)]
pub struct TokioClock {
    /// The wall time (ms since the Unix epoch) at `start`.
    start_ms: u64,
    start: Instant,
}

impl TokioClock {
    /// A clock that reads `start_ms` now, and moves on with tokio's time.
    /// A test that starts at a chosen time knows where the minute and
    /// day boundaries of a quota window fall.
    pub fn starting_at(start_ms: u64) -> Self {
        TokioClock {
            start_ms,
            start: Instant::now(),
        }
    }
}

impl Default for TokioClock {
    /// A clock that reads the system's time now.
    fn default() -> Self {
        TokioClock::starting_at(revu_domain::review::now_ms())
    }
}

impl Clock for TokioClock {
    fn now_ms(&self) -> u64 {
        let elapsed = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.start_ms.saturating_add(elapsed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test(start_paused = true)]
    async fn it_stands_still_until_time_passes_then_moves_with_it() {
        let clock = TokioClock::starting_at(1_000);
        let copy = clock;
        assert_eq!(clock.now_ms(), 1_000);
        tokio::time::sleep(Duration::from_secs(90)).await;
        assert_eq!(clock.now_ms(), 91_000);
        assert_eq!(copy.now_ms(), 91_000, "copies read the same time");
        tokio::time::advance(Duration::from_millis(5)).await;
        assert_eq!(clock.now_ms(), 91_005);
    }
}
