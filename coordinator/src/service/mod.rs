//! The review service: submission, gathering, finalization, deadlines and
//! queries, over any backend that honours the queue contract.
//!
//! Review state lives in the backend, not here: any coordinator can gather
//! a review another one submitted, and a restarted one resumes where the
//! last left off.

mod adjudicate;
mod admit;
mod error;
mod finalize;
mod finalizing;
mod gather;
mod handoff;
mod lane_state;
mod observe;
#[cfg(test)]
mod paused;
mod phases;
mod query;
mod submit;
mod sweep;

pub use admit::Quotas;
pub use error::{InternalError, RequestError, ServiceError};
pub use handoff::ReportHandoff;
pub use query::ReviewStatus;
pub use revu_domain::bundle::APART_MIN_BYTES;
pub use submit::Submission;

use crate::config::ReviewSettings;
use crate::index_cache::IndexCacheStore;
use crate::metrics::CoordinatorMetrics;
use revu_domain::clock::{Clock, SharedClock};
use revu_domain::telemetry::MessagingTarget;
use revu_queue::{JobQueue, ReviewStore};
use revu_stages::grouping::{Grouper, GroupingError, default_domains};
use std::sync::Arc;

/// The coordinator's review logic over backend `B`.
#[derive(Debug, Clone)]
pub struct Coordinator<B> {
    backend: B,
    settings: Arc<ReviewSettings>,
    grouper: Arc<Grouper>,
    /// Consumer name of this incarnation on the result stream.
    consumer: Arc<str>,
    metrics: Arc<CoordinatorMetrics>,
    /// The job stream, as the producer spans name it.
    messaging: Arc<MessagingTarget>,
    /// What each tenant may ask for.
    quotas: Quotas,
    /// The reviews being finalized in this process.
    finalizing: finalizing::Finalizing,
    /// Whether a submission's diff is parsed while it is planned, for
    /// lanes in this process to read ([`Coordinator::with_parse_ahead`]).
    parse_ahead: bool,
    /// Where finished reports go for a reader in this process
    /// ([`Coordinator::with_report_handoff`]).
    handoff: Option<Arc<ReportHandoff>>,
    /// What deadlines, quota windows and retries' due times are read
    /// against ([`Coordinator::with_clock`]).
    clock: SharedClock,
    /// Where the code index's cache entries the fleet shares are kept,
    /// when the coordinator serves them ([`Coordinator::with_index_cache`]).
    index_cache: Option<IndexCacheStore>,
}

impl<B: JobQueue + ReviewStore> Coordinator<B> {
    pub fn new(backend: B, settings: ReviewSettings) -> Result<Self, GroupingError> {
        let grouper = Grouper::new(&default_domains(), settings.max_slice_files)?;
        Ok(Coordinator {
            backend,
            settings: Arc::new(settings),
            grouper: Arc::new(grouper),
            consumer: format!("coordinator-{}", uuid::Uuid::now_v7()).into(),
            metrics: Arc::default(),
            messaging: Arc::default(),
            quotas: Quotas::default(),
            finalizing: finalizing::Finalizing::default(),
            parse_ahead: false,
            handoff: None,
            clock: revu_domain::clock::system(),
            index_cache: None,
        })
    }

    /// Reads the time from `clock` (by default, the system's): a review's
    /// deadline is set and checked by it, a tenant's quota windows follow
    /// it, a retry is due by it. The backend, which stamps the jobs and
    /// reports it holds, reads the same clock.
    pub fn with_clock(mut self, clock: impl Clock + 'static) -> Self {
        self.clock = Arc::new(clock);
        self
    }

    /// Records into `metrics` (by default, into metrics nobody reads).
    pub fn with_metrics(mut self, metrics: Arc<CoordinatorMetrics>) -> Self {
        self.metrics = metrics;
        self
    }

    /// Names the job stream in the attributes of the producer spans.
    pub fn with_messaging(mut self, messaging: MessagingTarget) -> Self {
        self.messaging = Arc::new(messaging);
        self
    }

    /// Parses each accepted diff of [`APART_MIN_BYTES`] or more beside its
    /// planning, for a backend that shares the stored bundle with workers
    /// in this process (the in-memory one): their first lane then finds it parsed. A
    /// coordinator whose workers run elsewhere leaves this off, and never
    /// holds a parsed diff.
    pub fn with_parse_ahead(mut self) -> Self {
        self.parse_ahead = true;
        self
    }

    /// Hands each report this process finalizes to `handoff` as well as
    /// storing it, for a reader in the same process (the embedded mode)
    /// to render without parsing the stored JSON back. A reader takes each
    /// report once; one nobody takes stays until the coordinator goes.
    pub fn with_report_handoff(mut self, handoff: Arc<ReportHandoff>) -> Self {
        self.handoff = Some(handoff);
        self
    }

    /// Limits what each tenant may ask for (by default, nothing).
    pub fn with_quotas(mut self, quotas: Quotas) -> Self {
        self.quotas = quotas;
        self
    }

    /// Serves the code index's cache entries the fleet shares
    /// (`revu.v1.IndexCacheService`), kept in `store` (by default, none are
    /// served).
    pub fn with_index_cache(mut self, store: IndexCacheStore) -> Self {
        self.index_cache = Some(store);
        self
    }

    /// Where the shared index cache entries are kept, when they are served.
    pub fn index_cache(&self) -> Option<&IndexCacheStore> {
        self.index_cache.as_ref()
    }

    pub fn backend(&self) -> &B {
        &self.backend
    }

    pub fn metrics(&self) -> &CoordinatorMetrics {
        &self.metrics
    }

    /// The metrics, shared with what records into them beside the reviews.
    pub fn shared_metrics(&self) -> Arc<CoordinatorMetrics> {
        Arc::clone(&self.metrics)
    }

    pub fn settings(&self) -> &ReviewSettings {
        &self.settings
    }
}

/// Runs blocking work (parsing, assembling) off the async runtime.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ServiceError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| InternalError::Blocking(e).into())
}
