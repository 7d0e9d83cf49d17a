//! The one table from service errors to gRPC status codes.

use crate::service::ServiceError;
use revu_domain::retry::Retryable;
use tonic::{Code, Status};

/// The gRPC code of each service error.
pub fn code(err: &ServiceError) -> Code {
    match err {
        ServiceError::InvalidDiff(_) | ServiceError::InvalidRequest(_) => Code::InvalidArgument,
        ServiceError::Limit(_) => Code::InvalidArgument,
        ServiceError::NotFound(_) => Code::NotFound,
        ServiceError::Busy { .. } | ServiceError::Quota { .. } => Code::ResourceExhausted,
        ServiceError::Backend(e) if e.is_transient() => Code::Unavailable,
        ServiceError::Backend(_) | ServiceError::Internal(_) => Code::Internal,
    }
}

impl From<ServiceError> for Status {
    fn from(err: ServiceError) -> Self {
        Status::new(code(&err), err.to_string())
    }
}
