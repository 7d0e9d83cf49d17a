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

use crate::credentials::Credentials;
use crate::error::CliError;
use crate::progress::Progress;
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

/// Whether a failed call may succeed if made again: the connection broke
/// or the coordinator is (for now) unreachable. A TLS refusal (the
/// coordinator wants a client certificate, or does not accept this one)
/// will not go away by asking again.
pub fn transient(status: &tonic::Status) -> bool {
    matches!(
        status.code(),
        Code::Unavailable
            | Code::Unknown
            | Code::Cancelled
            | Code::Aborted
            | Code::DeadlineExceeded
    ) && !status_chain(status).contains("fatal alert")
}

/// A call's failure as the CLI reports it.
fn rpc_error(what: &str, status: &tonic::Status) -> CliError {
    let msg = format!("{what}: {}", status.message());
    if status.message().contains("message length too large") {
        // The server's gRPC decoder speaks of bytes, not of revu's limits.
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

/// A connection failure with what to do about it, where the cause is
/// known: TLS the client does not trust, or TLS on one side only.
fn explain(address: &str, why: &str) -> String {
    let lower = why.to_ascii_lowercase();
    let hint = if lower.contains("alert") && lower.contains("certificaterequired") {
        Some(
            "the coordinator requires a client certificate: give --client-cert FILE and --client-key FILE",
        )
    } else if lower.contains("alert")
        && (lower.contains("badcertificate") || lower.contains("unknownca"))
    {
        Some("the coordinator did not accept the client certificate")
    } else if lower.contains("certificate") || lower.contains("unknownissuer") {
        Some(
            "the coordinator's TLS certificate is not trusted; give the CA that signed it with --ca-cert FILE",
        )
    } else if address.starts_with("https://")
        && (lower.contains("corrupt message") || lower.contains("invalid content type"))
    {
        Some("the coordinator does not speak TLS on this port; use http://")
    } else if address.starts_with("http://")
        && (lower.contains("h2 protocol error")
            || lower.contains("connection reset")
            || lower.contains("broken pipe")
            || lower.contains("frame with invalid size"))
    {
        Some("the coordinator may require TLS; use https:// (and --ca-cert FILE for a private CA)")
    } else {
        None
    };
    match hint {
        Some(h) => format!("{why} ({h})"),
        None => why.to_owned(),
    }
}

/// One coordinator address, connected to again after a failure.
#[derive(Debug)]
pub struct Link {
    endpoint: Endpoint,
    address: String,
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
        tls: Option<tonic::transport::ClientTlsConfig>,
    ) -> Result<Link, CliError> {
        let mut endpoint = Endpoint::from_shared(address.to_owned())
            .map_err(|e| CliError::Input(format!("bad coordinator address {address:?}: {e}")))?;
        if let Some(tls) = tls {
            endpoint = endpoint
                .tls_config(tls)
                .map_err(|e| CliError::Input(format!("TLS for {address}: {}", chain(&e))))?;
        }
        let endpoint = endpoint
            .connect_timeout(Duration::from_secs(5))
            // A peer that vanishes without closing the connection is
            // noticed, not waited on until the deadline.
            .http2_keep_alive_interval(Duration::from_secs(10))
            .keep_alive_timeout(Duration::from_secs(10))
            .keep_alive_while_idle(true);
        Ok(Link {
            endpoint,
            address: address.to_owned(),
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
                explain(&self.address, &chain(&e))
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

    /// A call's failure, with what to do about it where the cause is
    /// known (plaintext to a TLS port shows up as a broken HTTP/2 stream).
    fn failed(&self, what: &str, status: &tonic::Status) -> CliError {
        match rpc_error(what, status) {
            CliError::Unavailable(_) => CliError::Unavailable(format!(
                "{what}: {} ({:?})",
                explain(&self.address, &status_chain(status)),
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
            Err(s) if transient(&s) => {
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
                        Ok(Err(s)) if transient(&s) => {
                            break Some(format!("watch: {}", s.message()));
                        }
                        Ok(Err(s)) => return Err(link.failed("watch", &s)),
                    }
                }
            }
            Err(s) if transient(&s) => Some(format!("watch: {}", s.message())),
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
            Err(s) if transient(&s) => {
                client = link
                    .reconnect(&format!("get: {}", s.message()), progress)
                    .await?;
            }
            Err(s) => return Err(link.failed("get", &s)),
        }
    }
}
