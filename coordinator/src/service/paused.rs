//! What the service's tests on paused time share: a coordinator and its
//! in-memory backend on tokio's clock, and submissions of the examples.

use super::{Coordinator, Submission};
use crate::config::ReviewSettings;
use revu_queue::memory::MemoryBackend;
use revu_runtime::clock::TokioClock;

/// A coordinator with `settings`, and its backend, both on tokio's clock
/// starting at `start_ms`: on a runtime on paused time, deadlines, quota
/// windows and retries' delays pass as the test sleeps.
pub(super) fn coordinator(
    settings: ReviewSettings,
    start_ms: u64,
) -> (MemoryBackend, Coordinator<MemoryBackend>) {
    let clock = TokioClock::starting_at(start_ms);
    let backend = MemoryBackend::with_clock(clock);
    let coordinator = Coordinator::new(backend.clone(), settings)
        .unwrap_or_else(|e| panic!("grouping rules: {e}"))
        .with_clock(clock);
    (backend, coordinator)
}

/// A submission of `examples/{name}` from `tenant`.
pub(super) fn submission(name: &str, tenant: Option<&str>) -> Submission {
    let path = format!("{}/../examples/{name}", env!("CARGO_MANIFEST_DIR"));
    Submission {
        diff: std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}")),
        tenant: tenant.map(str::to_owned),
        ..Submission::default()
    }
}
