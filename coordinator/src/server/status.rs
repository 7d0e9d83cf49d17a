//! The one table from service errors to gRPC status codes, and the reason
//! ([`revu_proto::reason`]) each status carries for clients to branch on.

use crate::index_cache::IndexCacheError;
use crate::service::ServiceError;
use revu_domain::retry::Retryable;
use revu_proto::reason::Reason;
use tonic::{Code, Status};

/// The gRPC code and the reason of each service error.
pub fn code(err: &ServiceError) -> (Code, Reason) {
    match err {
        ServiceError::InvalidDiff(_) => (Code::InvalidArgument, Reason::InvalidDiff),
        ServiceError::InvalidRequest(_) => (Code::InvalidArgument, Reason::InvalidRequest),
        ServiceError::Limit(_) => (Code::InvalidArgument, Reason::InputLimit),
        ServiceError::NotFound(_) => (Code::NotFound, Reason::ReviewNotFound),
        ServiceError::Busy { .. } => (Code::ResourceExhausted, Reason::TooManyInFlight),
        ServiceError::Quota { .. } => (Code::ResourceExhausted, Reason::TenantQuota),
        ServiceError::Backend(e) if e.is_transient() => (Code::Unavailable, Reason::Backend),
        ServiceError::Backend(_) => (Code::Internal, Reason::Backend),
        ServiceError::Internal(_) => (Code::Internal, Reason::Internal),
    }
}

/// The gRPC code and the reason of each error of the shared index cache.
pub fn index_cache_code(err: &IndexCacheError) -> (Code, Reason) {
    match err {
        IndexCacheError::Backend(e) if e.is_transient() => (Code::Unavailable, Reason::Backend),
        IndexCacheError::Backend(_) | IndexCacheError::Dir { .. } => {
            (Code::Internal, Reason::Backend)
        }
        IndexCacheError::Blocking(_) => (Code::Internal, Reason::Internal),
    }
}

impl From<IndexCacheError> for Status {
    fn from(err: IndexCacheError) -> Self {
        let (code, reason) = index_cache_code(&err);
        reason.status(code, err.to_string())
    }
}

impl From<ServiceError> for Status {
    fn from(err: ServiceError) -> Self {
        let (code, reason) = code(&err);
        reason.status(code, err.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::{InternalError, RequestError};
    use revu_domain::lane::ReviewId;
    use revu_queue::QueueError;

    /// One error of each kind.
    fn each() -> Vec<ServiceError> {
        vec![
            ServiceError::InvalidDiff(
                revu_domain::diff::parse(b"@@ -1 +1 @@\n")
                    .err()
                    .unwrap_or_else(|| panic!("a hunk without a file parsed")),
            ),
            ServiceError::Limit(revu_stages::limits::LimitExceeded {
                what: "diff bytes".into(),
                value: 2,
                limit: 1,
                flag: "--max-diff-bytes",
            }),
            RequestError::HeadPath.into(),
            ServiceError::NotFound(ReviewId::new()),
            ServiceError::Busy {
                inflight: 2,
                limit: 2,
            },
            ServiceError::Quota {
                tenant: "team-a".into(),
                quota: "max-inflight",
                used: 2,
                limit: 2,
                flag: "--tenant-max-inflight",
            },
            QueueError::Closed.into(),
            QueueError::BadEntry("x".into()).into(),
            InternalError::NoBundle(ReviewId::new()).into(),
        ]
    }

    #[test]
    fn every_status_carries_its_reason_and_the_message_stays() {
        for err in each() {
            let said = err.to_string();
            let (code, reason) = code(&err);
            let status = Status::from(err);
            assert_eq!(status.code(), code, "{said}");
            assert_eq!(Reason::of(&status), Some(reason), "{said}");
            assert_eq!(status.message(), said);
        }
    }

    #[test]
    fn a_shared_index_cache_that_may_answer_later_is_unavailable() {
        let transient = IndexCacheError::Backend(QueueError::Closed);
        assert_eq!(
            index_cache_code(&transient),
            (Code::Unavailable, Reason::Backend)
        );
        let disk = IndexCacheError::Dir {
            path: "/cache".into(),
            source: std::io::Error::other("no space left"),
        };
        let status = Status::from(disk);
        assert_eq!(status.code(), Code::Internal);
        assert_eq!(Reason::of(&status), Some(Reason::Backend));
        assert!(status.message().contains("/cache"), "{}", status.message());
    }

    #[test]
    fn no_service_error_is_out_of_range() {
        // The CLI reads OUT_OF_RANGE without a reason as a message past
        // gRPC's size limit.
        for err in each() {
            assert_ne!(code(&err).0, Code::OutOfRange, "{err}");
        }
    }

    #[test]
    fn a_store_that_may_answer_later_is_unavailable() {
        let (transient, _) = code(&QueueError::Closed.into());
        assert_eq!(transient, Code::Unavailable);
        let (permanent, _) = code(&QueueError::BadEntry("x".into()).into());
        assert_eq!(permanent, Code::Internal);
    }
}
