//! Why the coordinator refused a call, in a form a client branches on.
//!
//! Every status the review service answers with carries a
//! `google.rpc.ErrorInfo` in its details (`grpc-status-details-bin`): its
//! `domain` is [`DOMAIN`], its `reason` one of [`Reason`]. A status without
//! one did not come from the service: the gRPC layer made it (a message
//! past a size limit, a broken connection) on either side of the wire.
//! The message stays for people; clients decide on the reason and the code.

use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

type Metadata = std::collections::HashMap<String, String>;

/// The `ErrorInfo` domain of revu's reasons.
pub const DOMAIN: &str = "revu.dev";

/// What went wrong, one per kind of service error. The wire names are
/// stable: clients match on them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reason {
    /// The diff does not parse.
    InvalidDiff,
    /// The request is past one of the coordinator's input limits.
    InputLimit,
    /// A field of the request is wrong (not the diff).
    InvalidRequest,
    /// The call carries no credential the coordinator knows.
    Unauthenticated,
    /// No such review (for this caller).
    ReviewNotFound,
    /// The coordinator has as many reviews in flight as it takes.
    TooManyInFlight,
    /// The caller's tenant reached one of its quotas.
    TenantQuota,
    /// The coordinator's store failed.
    Backend,
    /// Something inside the coordinator went wrong.
    Internal,
}

impl Reason {
    pub const ALL: [Reason; 9] = [
        Reason::InvalidDiff,
        Reason::InputLimit,
        Reason::InvalidRequest,
        Reason::Unauthenticated,
        Reason::ReviewNotFound,
        Reason::TooManyInFlight,
        Reason::TenantQuota,
        Reason::Backend,
        Reason::Internal,
    ];

    /// The wire name (`ErrorInfo.reason`: `[A-Z0-9_]+`).
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::InvalidDiff => "INVALID_DIFF",
            Reason::InputLimit => "INPUT_LIMIT",
            Reason::InvalidRequest => "INVALID_REQUEST",
            Reason::Unauthenticated => "UNAUTHENTICATED",
            Reason::ReviewNotFound => "REVIEW_NOT_FOUND",
            Reason::TooManyInFlight => "TOO_MANY_IN_FLIGHT",
            Reason::TenantQuota => "TENANT_QUOTA",
            Reason::Backend => "BACKEND",
            Reason::Internal => "INTERNAL",
        }
    }

    /// The reason a wire name stands for.
    pub fn parse(name: &str) -> Option<Reason> {
        Reason::ALL.into_iter().find(|r| r.as_str() == name)
    }

    /// A status of `code` saying `message`, carrying this reason.
    pub fn status(self, code: Code, message: impl Into<String>) -> Status {
        let info = ErrorDetails::with_error_info(self.as_str(), DOMAIN, Metadata::new());
        Status::with_error_details(code, message, info)
    }

    /// The reason `status` carries, when the review service made it.
    pub fn of(status: &Status) -> Option<Reason> {
        let info = status.get_details_error_info()?;
        (info.domain == DOMAIN)
            .then(|| Reason::parse(&info.reason))
            .flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_are_unique_upper_snake_and_parse_back() {
        let mut names: Vec<&str> = Reason::ALL.iter().map(|r| r.as_str()).collect();
        for (reason, name) in Reason::ALL.iter().zip(&names) {
            assert_eq!(Reason::parse(name), Some(*reason));
            assert!(
                name.bytes()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_'),
                "{name}"
            );
        }
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Reason::ALL.len());
        assert_eq!(Reason::parse("NOT_A_REASON"), None);
    }

    #[test]
    fn a_reason_crosses_the_wire_in_the_status_details() {
        for reason in Reason::ALL {
            let sent = reason.status(Code::InvalidArgument, "said for people");
            // What a client decodes from the response's headers.
            let response = sent.into_http::<()>();
            let received = Status::from_header_map(response.headers())
                .unwrap_or_else(|| panic!("{reason:?}: no status in {response:?}"));
            assert_eq!(received.code(), Code::InvalidArgument);
            assert_eq!(received.message(), "said for people");
            assert_eq!(Reason::of(&received), Some(reason));
        }
    }

    #[test]
    fn statuses_the_service_did_not_make_carry_none() {
        let codec = Status::out_of_range("decoded message length too large");
        assert_eq!(Reason::of(&codec), None);
        let foreign = Status::with_error_details(
            Code::InvalidArgument,
            "another service",
            ErrorDetails::with_error_info("INVALID_DIFF", "example.com", Metadata::new()),
        );
        assert_eq!(Reason::of(&foreign), None);
    }
}
