//! `revu.v1.ReviewService` over the review service.

use super::convert;
use crate::auth::Authenticator;
use crate::service::{Coordinator, ServiceError};
use revu_domain::lane::ReviewId;
use revu_proto::v1 as pb;
use revu_proto::v1::review_service_server::ReviewService;
use revu_queue::{JobQueue, ReviewStore};
use std::pin::Pin;
use std::time::Duration;
use tokio_stream::Stream;
use tonic::{Request, Response, Status};
use tracing::Instrument;

/// The gRPC face of a [`Coordinator`].
#[derive(Debug, Clone)]
pub struct ReviewApi<B> {
    coordinator: Coordinator<B>,
    auth: Authenticator,
}

impl<B: JobQueue + ReviewStore> ReviewApi<B> {
    pub fn new(coordinator: Coordinator<B>, auth: Authenticator) -> Self {
        ReviewApi { coordinator, auth }
    }

    /// The caller's tenant, or `UNAUTHENTICATED`.
    fn tenant<T>(&self, request: &Request<T>) -> Result<Option<String>, Status> {
        caller(&self.auth, request).inspect_err(|_| {
            self.coordinator.metrics().unauthenticated.inc();
        })
    }
}

/// The tenant of a call, from its token or the client certificate of its
/// connection, or `UNAUTHENTICATED`.
pub(super) fn caller<T>(
    auth: &Authenticator,
    request: &Request<T>,
) -> Result<Option<String>, Status> {
    type TlsInfo =
        tonic::transport::server::TlsConnectInfo<tonic::transport::server::TcpConnectInfo>;
    let certs = request
        .extensions()
        .get::<TlsInfo>()
        .and_then(TlsInfo::peer_certs);
    let leaf = certs.as_ref().and_then(|c| c.first()).map(|c| c.as_ref());
    auth.tenant(request.metadata(), leaf)
}

/// `INVALID_ARGUMENT` for a field of the call, with its reason for clients.
pub(super) fn malformed(why: String) -> Status {
    revu_proto::reason::Reason::InvalidRequest.status(tonic::Code::InvalidArgument, why)
}

/// The review a caller of `tenant` means by `raw` (the id it was given):
/// ids live in the tenant's namespace, so another tenant's id is a review
/// that does not exist.
fn review_id(tenant: Option<&str>, raw: &str) -> Result<ReviewId, Status> {
    if raw.is_empty() || raw.len() > 64 || !raw.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
    {
        return Err(malformed(format!("malformed review id {raw:?}")));
    }
    Ok(ReviewId::scoped(tenant, raw))
}

/// Where a watch starts: after `raw`, an event id the watcher saw (`ms-n`
/// on Redis, a position in memory), or from the start when empty.
fn event_cursor(raw: String) -> Result<String, Status> {
    if raw.is_empty() {
        return Ok("0".to_owned());
    }
    let parts: Vec<&str> = raw.split('-').collect();
    let digits = |p: &&str| !p.is_empty() && p.len() <= 20 && p.bytes().all(|b| b.is_ascii_digit());
    if parts.len() > 2 || !parts.iter().all(digits) {
        return Err(malformed(format!(
            "malformed after_event_id {raw:?}: an event_id of this review's events"
        )));
    }
    Ok(raw)
}

/// The server span of a `SubmitReview` call: the root of the review's trace
/// inside revu, a child of the caller's span when it sent a `traceparent`.
fn submit_span(metadata: &tonic::metadata::MetadataMap) -> tracing::Span {
    use revu_domain::telemetry::names::{attr, span};
    let span = tracing::info_span!(
        span::SUBMIT,
        otel.kind = "server",
        otel.status_code = tracing::field::Empty,
        { attr::RPC_SYSTEM } = "grpc",
        { attr::RPC_SERVICE } = "revu.v1.ReviewService",
        { attr::RPC_METHOD } = "SubmitReview",
        { attr::REVIEW_ID } = tracing::field::Empty,
        { attr::REVIEW_EXISTING } = tracing::field::Empty,
        { attr::TENANT } = tracing::field::Empty,
    );
    let header = |name: &str| metadata.get(name).and_then(|v| v.to_str().ok());
    revu_runtime::telemetry::set_remote_parent(&span, header("traceparent"), header("tracestate"));
    span
}

type EventStream = Pin<Box<dyn Stream<Item = Result<pb::ReviewEvent, Status>> + Send>>;

#[tonic::async_trait]
impl<B: JobQueue + ReviewStore> ReviewService for ReviewApi<B> {
    async fn submit_review(
        &self,
        request: Request<pb::SubmitReviewRequest>,
    ) -> Result<Response<pb::SubmitReviewResponse>, Status> {
        let span = submit_span(request.metadata());
        let tenant = self.tenant(&request).inspect_err(|s| {
            span.record("otel.status_code", "error");
            tracing::info!(parent: &span, reason = s.message(), "submission unauthenticated");
        })?;
        if let Some(t) = &tenant {
            span.record(revu_domain::telemetry::names::attr::TENANT, t.as_str());
        }
        let mut submission = convert::submission(request.into_inner())?;
        submission.tenant = tenant;
        let (id, existing) = self
            .coordinator
            .submit(submission)
            .instrument(span.clone())
            .await
            .map_err(|e| {
                span.record("otel.status_code", "error");
                tracing::info!(parent: &span, error = %e, "submission refused");
                Status::from(e)
            })?;
        Ok(Response::new(pb::SubmitReviewResponse {
            review_id: id.local().to_owned(),
            existing,
        }))
    }

    async fn get_review(
        &self,
        request: Request<pb::GetReviewRequest>,
    ) -> Result<Response<pb::GetReviewResponse>, Status> {
        let tenant = self.tenant(&request)?;
        let id = review_id(tenant.as_deref(), &request.into_inner().review_id)?;
        let status = self.coordinator.status(&id).await?;
        Ok(Response::new(convert::status(status)))
    }

    type WatchReviewStream = EventStream;

    async fn watch_review(
        &self,
        request: Request<pb::WatchReviewRequest>,
    ) -> Result<Response<Self::WatchReviewStream>, Status> {
        let tenant = self.tenant(&request)?;
        let request = request.into_inner();
        let id = review_id(tenant.as_deref(), &request.review_id)?;
        let mut after = event_cursor(request.after_event_id)?;
        // Fail fast on an unknown id, before the stream starts.
        self.coordinator.state(&id).await?;
        let coordinator = self.coordinator.clone();
        let (tx, rx) = tokio::sync::mpsc::channel(64);
        tokio::spawn(async move {
            loop {
                let batch = match coordinator
                    .events(&id, &after, Duration::from_secs(5))
                    .await
                {
                    Ok(b) => b,
                    Err(e) => {
                        let _ = tx.send(Err(Status::from(e))).await;
                        return;
                    }
                };
                if batch.is_empty() {
                    // Nothing new: stop once the review can produce no more.
                    match coordinator.state(&id).await {
                        Ok(state) if state.is_terminal() => return,
                        Ok(_) => {}
                        Err(ServiceError::NotFound(_)) => return,
                        Err(e) => {
                            let _ = tx.send(Err(Status::from(e))).await;
                            return;
                        }
                    }
                    if tx.is_closed() {
                        return;
                    }
                }
                for (event_id, event) in batch {
                    let last = event.is_final();
                    after.clone_from(&event_id);
                    if tx.send(Ok(convert::event(event_id, event))).await.is_err() || last {
                        return;
                    }
                }
            }
        });
        Ok(Response::new(Box::pin(
            tokio_stream::wrappers::ReceiverStream::new(rx),
        )))
    }

    async fn cancel_review(
        &self,
        request: Request<pb::CancelReviewRequest>,
    ) -> Result<Response<pb::CancelReviewResponse>, Status> {
        let tenant = self.tenant(&request)?;
        let id = review_id(tenant.as_deref(), &request.into_inner().review_id)?;
        let state = self.coordinator.cancel(&id).await?;
        Ok(Response::new(pb::CancelReviewResponse {
            state: convert::state(state) as i32,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::event_cursor;

    #[test]
    fn a_watch_resumes_after_an_event_id_of_either_backend() {
        assert_eq!(event_cursor(String::new()).ok().as_deref(), Some("0"));
        assert_eq!(
            event_cursor("1733051234567-3".into()).ok().as_deref(),
            Some("1733051234567-3")
        );
        assert_eq!(event_cursor("12".into()).ok().as_deref(), Some("12"));
        for bad in ["$", "1-2-3", "-1", "12a", "+"] {
            let status = event_cursor(bad.into()).err();
            assert_eq!(
                status.map(|s| s.code()),
                Some(tonic::Code::InvalidArgument),
                "{bad}"
            );
        }
    }
}
