//! Following a submitted review to its report, across dropped connections.
//!
//! A review lives in the coordinators' store, not in the connection: when
//! the coordinator `revu submit` talks to restarts or fails over mid-review,
//! the connection drops but the review goes on. So a transient failure
//! (the stream broke, the coordinator is unreachable for a moment) is met
//! by reconnecting to the same address with backoff, resuming the watch
//! after the last event seen, and fetching the report, all within the
//! command's `--timeout`. The submission itself is retried under its
//! idempotency key, so a retry never makes a second review.

mod cause;

use crate::credentials::{ClientTls, Credentials};
use crate::error::CliError;
use crate::progress::Progress;
use cause::{Cause, Transport};
use revu_proto::reason::Reason;
use revu_proto::v1 as pb;
use revu_proto::v1::review_service_client::ReviewServiceClient;
use std::io::Write;
use std::time::{Duration, Instant};
use tonic::Code;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Channel, Endpoint};

pub type Client = ReviewServiceClient<InterceptedService<Channel, Credentials>>;

/// Largest message either way (a large diff, a large report).
const MESSAGE_LIMIT: usize = 256 * 1024 * 1024;
const FIRST_BACKOFF: Duration = Duration::from_millis(200);
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// A call's failure as the CLI reports it.
fn rpc_error(what: &str, status: &tonic::Status) -> CliError {
    let msg = format!("{what}: {}", status.message());
    // Only gRPC's own size limit answers OUT_OF_RANGE: the review service
    // never does, and its statuses carry a reason. The decoder speaks of
    // bytes, not of revu's limits.
    if status.code() == Code::OutOfRange && Reason::of(status).is_none() {
        return CliError::Input(format!(
            "{msg} (the coordinator takes requests up to its --max-diff-bytes plus \
             --max-head-bytes plus --max-index-bytes, plus 1 MiB)"
        ));
    }
    match status.code() {
        Code::InvalidArgument | Code::NotFound | Code::FailedPrecondition | Code::OutOfRange => {
            CliError::Input(msg)
        }
        Code::Unauthenticated => CliError::Input(format!(
            "{what}: unauthenticated: {} (give --token-file FILE or set REVU_TOKEN)",
            status.message()
        )),
        Code::PermissionDenied => {
            CliError::Input(format!("{what}: permission denied: {}", status.message()))
        }
        _ => CliError::Unavailable(format!("{msg} ({:?})", status.code())),
    }
}

/// A failed call's message with its causes, `message: cause: …`.
fn status_chain(status: &tonic::Status) -> String {
    let message = status.message();
    match std::error::Error::source(status).map(chain) {
        Some(causes) if causes.starts_with(message) => causes,
        Some(causes) if !message.is_empty() => format!("{message}: {causes}"),
        Some(causes) => causes,
        None => message.to_owned(),
    }
}

/// An error with its causes, `outer: inner: …`, each said once.
fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut next = Some(e);
    while let Some(err) = next {
        let text = err.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        next = err.source();
    }
    parts.join(": ")
}

/// `why` with what to do about `cause`, where there is something to do.
fn explain(why: String, cause: Option<Cause>) -> String {
    match cause.and_then(Cause::hint) {
        Some(hint) => format!("{why} ({hint})"),
        None => why,
    }
}

/// How to reach the coordinator at `address`, over `tls` when it is an
/// `https://` address.
fn endpoint(address: &str, tls: Option<ClientTls>) -> Result<(Endpoint, Transport), CliError> {
    let mut endpoint = Endpoint::from_shared(address.to_owned())
        .map_err(|e| CliError::Input(format!("bad coordinator address {address:?}: {e}")))?;
    let mut transport = Transport::Plaintext;
    if let Some(tls) = tls {
        transport = Transport::Tls {
            client_certificate: tls.client_certificate,
        };
        endpoint = endpoint
            .tls_config(tls.config)
            .map_err(|e| CliError::Input(format!("TLS for {address}: {}", chain(&e))))?;
    }
    let endpoint = endpoint
        .connect_timeout(Duration::from_secs(5))
        // A peer that vanishes without closing the connection is
        // noticed, not waited on until the deadline.
        .http2_keep_alive_interval(Duration::from_secs(10))
        .keep_alive_timeout(Duration::from_secs(10))
        .keep_alive_while_idle(true);
    Ok((endpoint, transport))
}

/// A channel to the coordinator at `address` that connects on its first
/// call, for calls that are not followed across failures. Call it within
/// a runtime.
pub fn lazy_channel(address: &str, tls: Option<ClientTls>) -> Result<Channel, CliError> {
    Ok(endpoint(address, tls)?.0.connect_lazy())
}

/// One coordinator address, connected to again after a failure.
#[derive(Debug)]
pub struct Link {
    endpoint: Endpoint,
    address: String,
    transport: Transport,
    deadline: Instant,
    backoff: Duration,
    credentials: Credentials,
}

impl Link {
    /// The coordinator at `address`, followed until `deadline`, called
    /// with `credentials`, over `tls` when it is an `https://` address.
    pub fn new(
        address: &str,
        deadline: Instant,
        credentials: Credentials,
        tls: Option<ClientTls>,
    ) -> Result<Link, CliError> {
        let (endpoint, transport) = endpoint(address, tls)?;
        Ok(Link {
            endpoint,
            address: address.to_owned(),
            transport,
            deadline,
            backoff: FIRST_BACKOFF,
            credentials,
        })
    }

    /// Connects once.
    pub async fn connect(&self) -> Result<Client, CliError> {
        let channel = self.endpoint.connect().await.map_err(|e| {
            CliError::Unavailable(format!(
                "cannot reach coordinator {}: {}",
                self.address,
                explain(chain(&e), cause::of(&e, self.transport))
            ))
        })?;
        Ok(
            ReviewServiceClient::with_interceptor(channel, self.credentials.clone())
                .max_decoding_message_size(MESSAGE_LIMIT)
                .max_encoding_message_size(MESSAGE_LIMIT),
        )
    }

    /// After a transient failure (`why`): waits a backoff and connects
    /// again, until it connects or the deadline passes.
    pub async fn reconnect<W: Write>(
        &mut self,
        why: &str,
        progress: &mut Progress<W>,
    ) -> Result<Client, CliError> {
        progress.note(&format!(
            "connection to {} lost ({why}); reconnecting",
            self.address
        ));
        let mut last = why.to_owned();
        loop {
            let now = Instant::now();
            if now >= self.deadline {
                return Err(CliError::Unavailable(format!(
                    "{last}; the coordinator did not answer again within --timeout"
                )));
            }
            tokio::time::sleep(self.backoff.min(self.deadline - now)).await;
            self.backoff = (self.backoff * 2).min(MAX_BACKOFF);
            match self.connect().await {
                Ok(client) => {
                    self.backoff = FIRST_BACKOFF;
                    progress.note(&format!("reconnected to {}", self.address));
                    return Ok(client);
                }
                Err(e) => last = e.to_string(),
            }
        }
    }

    /// Whether a failed call may succeed if made again: the connection
    /// broke or the coordinator is (for now) unreachable. A TLS refusal
    /// (the coordinator wants a client certificate, or does not accept
    /// this one) will not go away by asking again.
    fn transient(&self, status: &tonic::Status) -> bool {
        matches!(
            status.code(),
            Code::Unavailable
                | Code::Unknown
                | Code::Cancelled
                | Code::Aborted
                | Code::DeadlineExceeded
        ) && !self.cause(status).is_some_and(Cause::permanent)
    }

    /// What the transport says went wrong under `status`; nothing for a
    /// status the review service answered with (it carries a reason).
    fn cause(&self, status: &tonic::Status) -> Option<Cause> {
        if Reason::of(status).is_some() {
            return None;
        }
        cause::of(status, self.transport)
    }

    /// A call's failure, with what to do about it where the cause is
    /// known (plaintext to a TLS port shows up as a broken HTTP/2 stream).
    fn failed(&self, what: &str, status: &tonic::Status) -> CliError {
        match rpc_error(what, status) {
            CliError::Unavailable(_) => CliError::Unavailable(format!(
                "{what}: {} ({:?})",
                explain(status_chain(status), self.cause(status)),
                status.code()
            )),
            other => other,
        }
    }

    /// The time left before the deadline, for one wait.
    fn left(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }

    fn timed_out(&self, id: &str) -> CliError {
        CliError::Unavailable(format!("review {id} has no verdict within --timeout"))
    }
}

/// Submits `request`, retrying transient failures (under its idempotency
/// key, so never twice). The accepted review.
pub async fn submit<W: Write>(
    link: &mut Link,
    mut client: Client,
    request: pb::SubmitReviewRequest,
    traceparent: Option<tonic::metadata::MetadataValue<tonic::metadata::Ascii>>,
    progress: &mut Progress<W>,
) -> Result<(Client, pb::SubmitReviewResponse), CliError> {
    loop {
        let mut call = tonic::Request::new(request.clone());
        if let Some(tp) = &traceparent {
            call.metadata_mut().insert("traceparent", tp.clone());
        }
        match client.submit_review(call).await {
            Ok(accepted) => return Ok((client, accepted.into_inner())),
            Err(s) if link.transient(&s) => {
                client = link
                    .reconnect(&format!("submit: {}", s.message()), progress)
                    .await?;
            }
            Err(s) => return Err(link.failed("submit", &s)),
        }
    }
}

/// Watches review `id` to its end and fetches its report, reconnecting
/// and resuming after the last event seen whenever the connection drops.
pub async fn report<W: Write>(
    link: &mut Link,
    mut client: Client,
    id: &str,
    progress: &mut Progress<W>,
) -> Result<String, CliError> {
    let mut after = String::new();
    loop {
        let watched = client
            .watch_review(pb::WatchReviewRequest {
                review_id: id.to_owned(),
                after_event_id: after.clone(),
            })
            .await;
        let broke = match watched {
            Ok(stream) => {
                let mut events = stream.into_inner();
                loop {
                    match tokio::time::timeout(link.left(), events.message()).await {
                        Err(_) => return Err(link.timed_out(id)),
                        Ok(Ok(Some(e))) => {
                            after.clone_from(&e.event_id);
                            progress.event(&e);
                        }
                        Ok(Ok(None)) => break None,
                        Ok(Err(s)) if link.transient(&s) => {
                            break Some(format!("watch: {}", s.message()));
                        }
                        Ok(Err(s)) => return Err(link.failed("watch", &s)),
                    }
                }
            }
            Err(s) if link.transient(&s) => Some(format!("watch: {}", s.message())),
            Err(s) => return Err(link.failed("watch", &s)),
        };
        if let Some(why) = broke {
            client = link.reconnect(&why, progress).await?;
            continue;
        }
        match client
            .get_review(pb::GetReviewRequest {
                review_id: id.to_owned(),
            })
            .await
        {
            Ok(got) => {
                let got = got.into_inner();
                match pb::ReviewState::try_from(got.state) {
                    Ok(pb::ReviewState::Finished) => return Ok(got.report_json),
                    Ok(pb::ReviewState::Cancelled) => {
                        return Err(CliError::Unavailable(format!("review {id} was cancelled")));
                    }
                    // The stream ended before the verdict (the coordinator
                    // is draining): watch again, after a pause.
                    _ => {
                        if link.left().is_zero() {
                            return Err(link.timed_out(id));
                        }
                        tokio::time::sleep(link.backoff.min(link.left())).await;
                    }
                }
            }
            Err(s) if link.transient(&s) => {
                client = link
                    .reconnect(&format!("get: {}", s.message()), progress)
                    .await?;
            }
            Err(s) => return Err(link.failed("get", &s)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(transport: Transport) -> Link {
        let mut link = Link::new(
            "http://127.0.0.1:1",
            Instant::now(),
            Credentials::default(),
            None,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        link.transport = transport;
        link
    }

    #[test]
    fn grpc_size_limit_names_revus_limits_and_the_service_is_never_taken_for_it() {
        let codec = tonic::Status::out_of_range(
            "Error, decoded message length too large: found 9 bytes, the limit is: 8 bytes",
        );
        let said = rpc_error("submit", &codec);
        assert_eq!(said.exit_code(), 2);
        assert!(said.to_string().contains("--max-diff-bytes plus"), "{said}");
        // A status of the service is its own answer, whatever its code.
        let service = Reason::InputLimit.status(Code::OutOfRange, "diff bytes is 9");
        let said = rpc_error("submit", &service);
        assert!(
            !said.to_string().contains("--max-diff-bytes plus"),
            "{said}"
        );
    }

    #[test]
    fn a_refusal_of_the_tls_handshake_is_not_asked_again() {
        let tls = link(Transport::Tls {
            client_certificate: false,
        });
        let broken = |inner: std::io::Error| {
            let mut status = tonic::Status::unknown("transport error");
            status.set_source(std::sync::Arc::new(inner));
            status
        };
        let alert = broken(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            rustls::Error::AlertReceived(rustls::AlertDescription::CertificateRequired),
        ));
        assert!(!tls.transient(&alert));
        let said = tls.failed("submit", &alert).to_string();
        assert!(said.contains("requires a client certificate"), "{said}");
        // The connection reset as a coordinator restarts: asked again.
        let reset = broken(std::io::ErrorKind::ConnectionReset.into());
        assert!(tls.transient(&reset));
        // What the service answered is never read as the transport's.
        let backend = Reason::Backend.status(Code::Unavailable, "backend: redis: closed");
        assert!(tls.transient(&backend));
        assert_eq!(tls.cause(&backend), None);
    }

    #[test]
    fn plaintext_that_broke_against_a_tls_port_suggests_https() {
        let plain = link(Transport::Plaintext);
        let mut status = tonic::Status::internal("h2 protocol error: http2 error");
        status.set_source(std::sync::Arc::new(h2::Error::from(
            h2::Reason::FRAME_SIZE_ERROR,
        )));
        let said = plain.failed("submit", &status).to_string();
        assert!(said.contains("may require TLS; use https://"), "{said}");
        assert_eq!(plain.failed("submit", &status).exit_code(), 3);
    }
}
