//! A gRPC client for tests, over the generated `revu.v1` stubs.

use revu_proto::v1 as pb;
use revu_proto::v1::review_service_client::ReviewServiceClient;
use std::time::{Duration, Instant};
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

/// Sends `authorization: Bearer TOKEN` with every call, when it has a token.
#[derive(Debug, Clone, Default)]
pub struct Bearer(Option<tonic::metadata::MetadataValue<tonic::metadata::Ascii>>);

impl tonic::service::Interceptor for Bearer {
    fn call(&mut self, mut r: tonic::Request<()>) -> Result<tonic::Request<()>, tonic::Status> {
        if let Some(v) = &self.0 {
            r.metadata_mut().insert("authorization", v.clone());
        }
        Ok(r)
    }
}

/// A connected client.
#[derive(Debug, Clone)]
pub struct Client {
    inner: ReviewServiceClient<InterceptedService<Channel, Bearer>>,
}

impl Client {
    /// Connects, retrying for up to `within` while the server starts.
    pub async fn connect(endpoint: &str, within: Duration) -> Client {
        Self::connect_as(endpoint, None, within).await
    }

    /// Connects as the holder of `token` (none: without a token).
    pub async fn connect_as(endpoint: &str, token: Option<&str>, within: Duration) -> Client {
        let bearer = Bearer(token.map(|t| {
            format!("Bearer {t}")
                .parse()
                .unwrap_or_else(|e| panic!("token {t:?}: {e}"))
        }));
        let started = Instant::now();
        loop {
            match Channel::from_shared(endpoint.to_owned())
                .unwrap_or_else(|e| panic!("bad endpoint {endpoint}: {e}"))
                .connect()
                .await
            {
                Ok(channel) => {
                    return Client {
                        inner: ReviewServiceClient::with_interceptor(channel, bearer),
                    };
                }
                Err(e) if started.elapsed() < within => {
                    let _ = e;
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err(e) => panic!("no coordinator at {endpoint} within {within:?}: {e}"),
            }
        }
    }

    /// Submits a diff; returns the review id.
    pub async fn submit(
        &mut self,
        diff: Vec<u8>,
        idempotency_key: &str,
    ) -> Result<String, tonic::Status> {
        let resp = self
            .inner
            .submit_review(pb::SubmitReviewRequest {
                diff: diff.into(),
                idempotency_key: idempotency_key.to_owned(),
                ..Default::default()
            })
            .await?;
        Ok(resp.into_inner().review_id)
    }

    /// Submits `request` as it is; returns the review id.
    pub async fn submit_request(
        &mut self,
        request: pb::SubmitReviewRequest,
    ) -> Result<String, tonic::Status> {
        Ok(self
            .inner
            .submit_review(request)
            .await?
            .into_inner()
            .review_id)
    }

    /// Submits a diff as a traced caller would: with a W3C `traceparent`
    /// in the request metadata. Returns the review id.
    pub async fn submit_traced(
        &mut self,
        diff: Vec<u8>,
        traceparent: &str,
    ) -> Result<String, tonic::Status> {
        let mut request = tonic::Request::new(pb::SubmitReviewRequest {
            diff: diff.into(),
            ..Default::default()
        });
        let value = traceparent
            .parse()
            .map_err(|e| tonic::Status::invalid_argument(format!("traceparent: {e}")))?;
        request.metadata_mut().insert("traceparent", value);
        let resp = self.inner.submit_review(request).await?;
        Ok(resp.into_inner().review_id)
    }

    pub async fn cancel(&mut self, id: &str) -> Result<pb::CancelReviewResponse, tonic::Status> {
        Ok(self
            .inner
            .cancel_review(pb::CancelReviewRequest {
                review_id: id.to_owned(),
            })
            .await?
            .into_inner())
    }

    pub async fn get(&mut self, id: &str) -> Result<pb::GetReviewResponse, tonic::Status> {
        Ok(self
            .inner
            .get_review(pb::GetReviewRequest {
                review_id: id.to_owned(),
            })
            .await?
            .into_inner())
    }

    /// Polls until the review is in a terminal state; tolerates the
    /// coordinator being away for a while. Panics after `within`.
    pub async fn wait_terminal(&mut self, id: &str, within: Duration) -> pb::GetReviewResponse {
        let started = Instant::now();
        loop {
            match self.get(id).await {
                Ok(r)
                    if r.state == pb::ReviewState::Finished as i32
                        || r.state == pb::ReviewState::Cancelled as i32 =>
                {
                    return r;
                }
                Ok(_) | Err(_) => {}
            }
            assert!(
                started.elapsed() < within,
                "review {id} not finished within {within:?}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Starts watching review `id` and reads its first event: how the
    /// coordinator answers a watch, without following it.
    pub async fn watch_first(&mut self, id: &str) -> Result<pb::ReviewEvent, tonic::Status> {
        let mut stream = self
            .inner
            .watch_review(pb::WatchReviewRequest {
                review_id: id.to_owned(),
                after_event_id: String::new(),
            })
            .await?
            .into_inner();
        match tokio::time::timeout(Duration::from_secs(10), stream.message()).await {
            Ok(Ok(Some(e))) => Ok(e),
            Ok(Ok(None)) => Err(tonic::Status::unknown("the watch ended with no event")),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(tonic::Status::deadline_exceeded("no event within 10 s")),
        }
    }

    /// Every progress event of a finished review, from the start.
    pub async fn events(&mut self, id: &str) -> Vec<pb::ReviewEvent> {
        let mut stream = self
            .inner
            .watch_review(pb::WatchReviewRequest {
                review_id: id.to_owned(),
                after_event_id: String::new(),
            })
            .await
            .unwrap_or_else(|e| panic!("watch {id}: {e}"))
            .into_inner();
        let mut out = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            match tokio::time::timeout(Duration::from_secs(10), stream.message()).await {
                Ok(Ok(Some(e))) => out.push(e),
                Ok(Ok(None)) => return out,
                Ok(Err(e)) => panic!("watch {id}: {e}"),
                Err(_) => panic!("watch {id}: no event for 10s and the stream did not end"),
            }
        }
        panic!("watch {id}: stream did not end within 30s");
    }
}

impl Client {
    /// Reads the review's events from the start until one of `wanted`
    /// kind arrives (true) or the stream ends (false). Callers bound it
    /// with a timeout.
    pub async fn events_until(&mut self, id: &str, wanted: pb::review_event::Kind) -> bool {
        let Ok(resp) = self
            .inner
            .watch_review(pb::WatchReviewRequest {
                review_id: id.to_owned(),
                after_event_id: String::new(),
            })
            .await
        else {
            return false;
        };
        let mut stream = resp.into_inner();
        while let Ok(Some(e)) = stream.message().await {
            if kind(&e) == wanted {
                return true;
            }
        }
        false
    }
}

/// The kind of an event, by name (`LaneFinished`, …).
pub fn kind(e: &pb::ReviewEvent) -> pb::review_event::Kind {
    pb::review_event::Kind::try_from(e.kind).unwrap_or(pb::review_event::Kind::Unspecified)
}
