//! What time it is, asked of a clock the caller hands in.
//!
//! Deadlines, quota windows, leases and retries' due times are wall-clock
//! milliseconds compared with now. Code that reads now from a [`Clock`] it
//! was given, rather than from the system deep inside, follows whichever
//! clock its caller chose: the system's in production ([`SystemClock`],
//! every default), and in tests one that moves only when the test lets
//! time pass, so that a minute's quota window takes no minute to test.

use std::fmt::Debug;
use std::sync::Arc;

/// A source of the current wall-clock time.
pub trait Clock: Debug + Send + Sync {
    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> u64;
}

/// A clock shared by everything that reads it.
pub type SharedClock = Arc<dyn Clock>;

/// The system's wall clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> u64 {
        crate::review::now_ms()
    }
}

impl<C: Clock + ?Sized> Clock for Arc<C> {
    fn now_ms(&self) -> u64 {
        (**self).now_ms()
    }
}

/// The system's wall clock, shared: what every clock defaults to.
pub fn system() -> SharedClock {
    Arc::new(SystemClock)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_system_clock_reads_the_wall_clock() {
        let before = crate::review::now_ms();
        let read = SystemClock.now_ms();
        assert!(
            read >= before && read - before < 60_000,
            "{read} vs {before}"
        );
        // Shared, it reads the same clock.
        assert!(system().now_ms() >= read);
    }
}
