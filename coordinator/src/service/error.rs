//! The review service's errors: what a caller did wrong, what the store
//! said, what went wrong inside. [`crate::server`] maps each to a gRPC code
//! and a reason in one table.

use revu_domain::diff::DiffError;
use revu_domain::lane::ReviewId;
use revu_domain::retry::{Retry, Retryable};
use revu_domain::review::ReviewPhase;
use revu_queue::QueueError;
use revu_stages::conventions::RepoConfigError;

/// Errors of the review service.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    #[error("invalid diff: {0}")]
    InvalidDiff(#[from] DiffError),
    #[error(transparent)]
    Limit(#[from] revu_stages::limits::LimitExceeded),
    #[error("invalid request: {0}")]
    InvalidRequest(#[from] RequestError),
    /// Named by the id its caller used: the tenant part stays unsaid.
    #[error("review {} not found", .0.local())]
    NotFound(ReviewId),
    #[error("{inflight} reviews in flight; the limit is {limit}, retry later")]
    Busy { inflight: usize, limit: usize },
    #[error("tenant {tenant}: quota {quota} reached ({used} used of {limit}); raised with {flag}")]
    Quota {
        tenant: String,
        quota: &'static str,
        used: u64,
        limit: u64,
        flag: &'static str,
    },
    #[error("backend: {0}")]
    Backend(#[from] QueueError),
    #[error("internal: {0}")]
    Internal(#[from] InternalError),
}

/// A field of a request that cannot be taken (the diff aside).
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    #[error("unknown rigor value {0}")]
    UnknownRigor(i32),
    #[error("head file with an empty or overlong path")]
    HeadPath,
    /// An idempotency key or a label longer than `limit` bytes.
    #[error("idempotency key and labels are limited to {limit} bytes")]
    TokenTooLong { limit: usize },
    #[error("code_index is not a valid code index: {0}")]
    CodeIndex(#[source] serde_json::Error),
    /// A nested REVIEW.md's directory, as sent.
    #[error("nested_conventions: {dir:?} is not a directory below the root")]
    NestedDir { dir: String },
    /// A package's directory, as sent.
    #[error("packages: {dir:?} is not a directory below the root")]
    PackageDir { dir: String },
    /// A package's manifest that is none of those revu knows.
    #[error("packages: {manifest:?} of {dir} is not one of {}", revu_domain::packages::MANIFESTS.join(", "))]
    PackageManifest { dir: String, manifest: String },
    /// An intent source, as sent.
    #[error("intent_sources: {0:?} is not one of flag, file, github, gitlab, commits")]
    IntentSource(String),
    #[error(transparent)]
    RepoConfig(#[from] RepoConfigError),
}

/// Stored state or a step of the service that contradicts what the
/// service expects; never the caller's doing.
#[derive(Debug, thiserror::Error)]
pub enum InternalError {
    #[error("review {0} has no stored bundle")]
    NoBundle(ReviewId),
    /// A diff that parsed when it was accepted.
    #[error("stored diff no longer parses: {0}")]
    StoredDiff(#[source] DiffError),
    #[error("review {review}: no step moves {from} to {to}")]
    NoStep {
        review: ReviewId,
        from: ReviewPhase,
        to: ReviewPhase,
    },
    #[error("review {0} is not adjudicated")]
    NotAdjudicated(ReviewId),
    #[error("review {0} is grouping without a settled grouping lane")]
    GroupingUnsettled(ReviewId),
    #[error("review {0} has no synthesis planned")]
    NoSynthesis(ReviewId),
    #[error("review {0}: its phase moved on at every look")]
    PhaseRace(ReviewId),
    #[error("blocking task failed: {0}")]
    Blocking(#[source] tokio::task::JoinError),
}

impl From<revu_stages::prepare::PrepareError> for ServiceError {
    fn from(e: revu_stages::prepare::PrepareError) -> Self {
        use revu_stages::prepare::PrepareError;
        match e {
            PrepareError::Diff(d) => ServiceError::InvalidDiff(d),
            PrepareError::RepoConfig(c) => ServiceError::InvalidRequest(c.into()),
            PrepareError::Limit(l) => ServiceError::Limit(l),
        }
    }
}

impl Retryable for ServiceError {
    /// Transient when the backend could not be reached (a later call may
    /// succeed) or is full for now; permanent for a request that is wrong.
    fn retry(&self) -> Retry {
        match self {
            ServiceError::Backend(q) => q.retry(),
            ServiceError::Busy { .. } => Retry::Transient,
            ServiceError::InvalidDiff(_)
            | ServiceError::Limit(_)
            | ServiceError::InvalidRequest(_)
            | ServiceError::NotFound(_)
            | ServiceError::Quota { .. }
            | ServiceError::Internal(_) => Retry::Permanent,
        }
    }
}
