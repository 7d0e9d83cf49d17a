//! Prometheus metrics shared by the binaries: the `/metrics` endpoint, the
//! label vocabulary and the fault-reason classes.
//!
//! The endpoint is a few lines of HTTP/1.1 over a Tokio listener: one GET
//! per connection, answered and closed. A scrape is small and rare, and
//! this keeps a web framework out of the tree.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::{MetricType, TypedMetric};
use prometheus_client::registry::{Metric, Registry, Unit};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

pub mod exposition;

/// Prefix of every metric name.
pub const PREFIX: &str = "revu";

/// Bucket bounds of a lane's duration, in seconds, from submission to
/// settling: from milliseconds (rules) to minutes (models, linters on big
/// changes).
pub const DURATION_BUCKETS: [f64; 14] = [
    0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0,
];

/// Bucket bounds of a stage's or one attempt's duration, in seconds: from
/// 100 µs (a stage of a one-line change, the rules on one file) to
/// minutes (a model on a big lane).
pub const FINE_BUCKETS: [f64; 19] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
    10.0, 30.0, 60.0, 180.0, 600.0,
];

/// Content type of the OpenMetrics text format `prometheus-client` writes.
const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";
/// Content type of the classic Prometheus text format.
const CLASSIC: &str = "text/plain; version=0.0.4; charset=utf-8";
/// Longest a client may take to send its request head.
const READ_TIMEOUT: Duration = Duration::from_secs(5);
/// Largest request head read.
const MAX_HEAD: usize = 8 * 1024;

/// Labels of a lane's duration: what ran it and how it ended.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct LaneLabels {
    /// `domain`, `specialist`, `adjudication`, `challenge`, `grouping` or
    /// `synthesis`.
    pub lane_kind: String,
    /// The domain (`api`, `docs`, …), the dimension (`security`, …), or
    /// the lane kind for the others.
    pub lane: String,
    pub engine: String,
    pub outcome: String,
}

impl LaneLabels {
    pub fn new(spec: &revu_domain::lane::LaneSpec, outcome: &str) -> Self {
        use revu_domain::lane::LaneKind;
        LaneLabels {
            lane_kind: spec.kind.label().to_owned(),
            lane: match &spec.kind {
                LaneKind::Domain { domain } => domain_label(domain),
                LaneKind::Specialist { dimension } => dimension.as_str().to_owned(),
                LaneKind::Adjudication
                | LaneKind::Challenge
                | LaneKind::Grouping
                | LaneKind::Synthesis => spec.kind.label().to_owned(),
            },
            engine: spec.engine.clone(),
            outcome: outcome.to_owned(),
        }
    }
}

/// Most distinct domain names one process gives the `lane` label. A
/// domain is named by the reviewed repository's `revu.toml`, so a
/// submitter chooses it: past this many, further domains are counted
/// under [`OTHER_DOMAINS`], and the series a scrape returns stay bounded
/// whatever is submitted.
pub const MAX_DOMAIN_LABELS: usize = 32;

/// The `lane` value of domains past [`MAX_DOMAIN_LABELS`]: no domain is
/// named so (a domain's name is letters, digits, `-`, `_` and `.`).
pub const OTHER_DOMAINS: &str = "~other";

/// The `lane` label value of `domain`: its name while fewer than
/// [`MAX_DOMAIN_LABELS`] names have been given, else [`OTHER_DOMAINS`].
pub fn domain_label(domain: &str) -> String {
    static SEEN: std::sync::Mutex<std::collections::BTreeSet<String>> =
        std::sync::Mutex::new(std::collections::BTreeSet::new());
    let mut seen = SEEN.lock().unwrap_or_else(|p| p.into_inner());
    if seen.contains(domain) {
        return domain.to_owned();
    }
    if seen.len() < MAX_DOMAIN_LABELS {
        seen.insert(domain.to_owned());
        return domain.to_owned();
    }
    OTHER_DOMAINS.to_owned()
}

/// Most `lane` label values one process gives: the capped domains and
/// [`OTHER_DOMAINS`], the six dimensions, and the adjudication, challenge,
/// grouping and synthesis lanes (every challenge lane is labelled
/// `challenge`). A lane goes to one engine (the routing is the operator's),
/// so this also bounds the (lane, engine) pairs.
pub const MAX_LANE_LABELS: usize =
    MAX_DOMAIN_LABELS + 1 + revu_domain::finding::Dimension::ALL.len() + 4;

/// Series of one label set of a histogram with `buckets` bounds: one per
/// bound, `+Inf`, `_sum` and `_count`.
pub const fn histogram_series(buckets: usize) -> usize {
    buckets + 3
}

/// Labels of a dead letter: why the lane or job was given up on.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct DeadLetterLabels {
    /// A [`revu_domain::lane::FaultKind`] label.
    pub reason: String,
}

/// The dead letters counted by reason, every reason starting at 0, so
/// that the first dead letter of each shows as an increase (Prometheus
/// sees no increase in a series that first appears at 1).
pub fn dead_letters_by_reason() -> Family<DeadLetterLabels, Counter> {
    let family = Family::<DeadLetterLabels, Counter>::default();
    for kind in revu_domain::lane::FaultKind::ALL {
        family
            .get_or_create(&DeadLetterLabels {
                reason: kind.label().to_owned(),
            })
            .inc_by(0);
    }
    family
}

/// Labels of something that happened to a lane for a reason.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ReasonLabels {
    pub engine: String,
    /// A [`revu_domain::lane::FaultKind`] label.
    pub reason: String,
}

/// A registry that also remembers the sample names of what it registered
/// (`_total` for counters; `_bucket`, `_sum`, `_count` for histograms), so
/// that dashboards can be checked against what the code exports even
/// before a family has its first sample.
#[derive(Debug)]
pub struct Catalog {
    registry: Registry,
    names: Vec<String>,
}

impl Default for Catalog {
    fn default() -> Self {
        Catalog {
            registry: Registry::with_prefix(PREFIX),
            names: Vec::new(),
        }
    }
}

impl Catalog {
    /// Registers `metric` as `revu_{name}` (plus `_{unit}`).
    pub fn register<M>(&mut self, name: &str, help: &str, unit: Option<Unit>, metric: M)
    where
        M: Metric + TypedMetric,
    {
        let mut full = format!("{PREFIX}_{name}");
        match unit {
            Some(unit) => {
                full = format!("{full}_{}", unit.as_str());
                self.registry.register_with_unit(name, help, unit, metric);
            }
            None => self.registry.register(name, help, metric),
        }
        match M::TYPE {
            MetricType::Counter => self.names.push(format!("{full}_total")),
            MetricType::Histogram => {
                for suffix in ["_bucket", "_sum", "_count"] {
                    self.names.push(format!("{full}{suffix}"));
                }
            }
            _ => self.names.push(full),
        }
    }

    /// The names samples of the registered metrics carry.
    pub fn sample_names(&self) -> &[String] {
        &self.names
    }

    pub fn into_registry(self) -> Registry {
        self.registry
    }
}

/// Errors of the metrics endpoint.
#[derive(Debug, thiserror::Error)]
pub enum MetricsError {
    #[error("binding metrics listener {addr}: {source}")]
    Bind {
        addr: std::net::SocketAddr,
        source: std::io::Error,
    },
    #[error("metrics TLS: {0}")]
    Tls(#[from] crate::tls::TlsError),
    #[error("metrics TLS: {0}")]
    Setting(#[from] crate::config::SettingError),
}

/// Binds the metrics listener (a separate step, so a bad address fails at
/// startup rather than in a background task).
pub async fn bind(addr: std::net::SocketAddr) -> Result<TcpListener, MetricsError> {
    TcpListener::bind(addr)
        .await
        .map_err(|source| MetricsError::Bind { addr, source })
}

/// The `/metrics` endpoint of a binary: when `addr` is set, binds it (so a
/// bad address fails at startup) and serves `registry` in the background
/// until the returned guard is dropped. `GET /readyz` answers 200.
pub async fn endpoint(
    addr: Option<std::net::SocketAddr>,
    registry: Registry,
) -> Result<Option<EndpointGuard>, MetricsError> {
    endpoint_with_readiness(addr, registry, Readiness::default(), None).await
}

/// [`endpoint`], with `GET /readyz` answering what `readiness` says (200
/// when ready, 503 when not), over HTTPS when `tls` names a certificate
/// and key (read again when they change).
pub async fn endpoint_with_readiness(
    addr: Option<std::net::SocketAddr>,
    registry: Registry,
    readiness: Readiness,
    tls: Option<crate::tls::ServerTlsFiles>,
) -> Result<Option<EndpointGuard>, MetricsError> {
    let Some(addr) = addr else { return Ok(None) };
    let tls = tls
        .map(|files| crate::tls::ReloadingServerTls::new(files, HTTP_ALPN))
        .transpose()?;
    let listener = bind(addr).await?;
    let task = tokio::spawn(async move {
        let registry = Arc::new(registry);
        match tls {
            Some(tls) => {
                let follow = tls.follow(Duration::from_secs(1), std::future::pending());
                tokio::join!(
                    follow,
                    serve_with(
                        listener,
                        registry,
                        readiness,
                        Some(tls.clone()),
                        std::future::pending()
                    )
                );
            }
            None => {
                serve_with(listener, registry, readiness, None, std::future::pending()).await;
            }
        }
    });
    Ok(Some(EndpointGuard(task)))
}

/// What the metrics endpoint negotiates over TLS.
const HTTP_ALPN: &[&[u8]] = &[b"http/1.1"];

/// Whether a binary can do its work now (its backend answers), shared
/// between what checks it, the `/readyz` that reports it and the
/// `revu_ready` gauge. Ready until told otherwise.
#[derive(Debug, Clone)]
pub struct Readiness {
    ready: Arc<std::sync::atomic::AtomicBool>,
    gauge: prometheus_client::metrics::gauge::Gauge,
}

impl Default for Readiness {
    fn default() -> Self {
        let r = Readiness {
            ready: Arc::new(std::sync::atomic::AtomicBool::new(true)),
            gauge: prometheus_client::metrics::gauge::Gauge::default(),
        };
        r.gauge.set(1);
        r
    }
}

impl Readiness {
    /// Not ready until told so (a binary that has yet to reach its backend).
    pub fn not_yet() -> Self {
        let r = Readiness::default();
        r.set(false);
        r
    }

    pub fn set(&self, ready: bool) {
        self.ready
            .store(ready, std::sync::atomic::Ordering::Relaxed);
        self.gauge.set(i64::from(ready));
    }

    pub fn get(&self) -> bool {
        self.ready.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Registers `revu_ready` (1 when ready, 0 when not) in `catalog`.
    pub fn register(&self, catalog: &mut Catalog) {
        catalog.register(
            "ready",
            "Whether this process can do its work now: 1 while its Redis answers, 0 while not",
            None,
            self.gauge.clone(),
        );
    }

    /// Keeps this true to `backend`: not ready while it does not answer (a
    /// `PING` a second), ready again once it does. Runs until dropped.
    pub async fn follow<B: revu_queue::JobQueue>(self, backend: B) {
        revu_queue::watch_reachable(&backend, std::time::Duration::from_secs(1), false, |up| {
            if up {
                tracing::info!("redis answers; ready");
            } else {
                tracing::warn!("redis does not answer; not ready");
            }
            self.set(up);
            std::future::ready(())
        })
        .await;
    }
}

/// Stops the metrics endpoint when dropped.
#[derive(Debug)]
pub struct EndpointGuard(tokio::task::JoinHandle<()>);

impl Drop for EndpointGuard {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The registry in the text exposition format.
pub fn encode(registry: &Registry) -> String {
    let mut body = String::new();
    if let Err(e) = prometheus_client::encoding::text::encode(&mut body, registry) {
        tracing::warn!(error = %e, "encoding metrics failed");
    }
    body
}

/// Serves `GET /metrics` from `registry` on `listener` until `shutdown`.
pub async fn serve(
    listener: TcpListener,
    registry: Arc<Registry>,
    shutdown: impl Future<Output = ()>,
) {
    serve_with(listener, registry, Readiness::default(), None, shutdown).await;
}

/// [`serve`], with `GET /readyz` answering what `readiness` says.
async fn serve_with(
    listener: TcpListener,
    registry: Arc<Registry>,
    readiness: Readiness,
    tls: Option<crate::tls::ReloadingServerTls>,
    shutdown: impl Future<Output = ()>,
) {
    if let Ok(addr) = listener.local_addr() {
        tracing::info!(%addr, tls = tls.is_some(), "metrics serving on /metrics");
    }
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            () = &mut shutdown => return,
            accepted = listener.accept() => accepted,
        };
        match accepted {
            Ok((stream, _)) => {
                let (registry, readiness) = (registry.clone(), readiness.clone());
                let acceptor = tls
                    .as_ref()
                    .map(|t| tokio_rustls::TlsAcceptor::from(t.current()));
                tokio::spawn(async move {
                    let answered = match acceptor {
                        Some(acceptor) => {
                            match tokio::time::timeout(READ_TIMEOUT, acceptor.accept(stream)).await
                            {
                                Ok(Ok(tls_stream)) => {
                                    answer(tls_stream, &registry, &readiness).await
                                }
                                Ok(Err(e)) => Err(e),
                                Err(_) => Err(std::io::ErrorKind::TimedOut.into()),
                            }
                        }
                        None => answer(stream, &registry, &readiness).await,
                    };
                    if let Err(e) = answered {
                        tracing::debug!(error = %e, "metrics request failed");
                    }
                });
            }
            Err(e) => {
                tracing::warn!(error = %e, "accepting a metrics connection failed");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

/// A request head, once it is complete.
fn complete_head(head: &[u8]) -> Option<&str> {
    let end = head.windows(4).position(|w| w == b"\r\n\r\n")?;
    std::str::from_utf8(&head[..end]).ok()
}

async fn answer<S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin>(
    mut stream: S,
    registry: &Registry,
    readiness: &Readiness,
) -> std::io::Result<()> {
    let mut head = Vec::with_capacity(512);
    let mut chunk = [0u8; 1024];
    let request = loop {
        let n = tokio::time::timeout(READ_TIMEOUT, stream.read(&mut chunk))
            .await
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::TimedOut))??;
        if n == 0 {
            return Ok(());
        }
        head.extend_from_slice(&chunk[..n]);
        if let Some(request) = complete_head(&head) {
            break request.to_owned();
        }
        if head.len() > MAX_HEAD {
            break String::new();
        }
    };
    let mut lines = request.lines();
    let mut parts = lines.next().unwrap_or("").split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let path = target.split('?').next().unwrap_or("");
    let (status, content_type, body) = match (method, path) {
        ("GET" | "HEAD", "/metrics") => {
            let accept = lines
                .filter_map(|l| l.split_once(':'))
                .find(|(name, _)| name.trim().eq_ignore_ascii_case("accept"))
                .map_or("", |(_, value)| value);
            match exposition::wants_openmetrics(accept) {
                true => ("200 OK", OPENMETRICS, encode(registry)),
                false => ("200 OK", CLASSIC, exposition::classic(&encode(registry))),
            }
        }
        ("GET" | "HEAD", "/readyz") if readiness.get() => {
            ("200 OK", "text/plain", "ready\n".to_owned())
        }
        ("GET" | "HEAD", "/readyz") => (
            "503 Service Unavailable",
            "text/plain",
            "not ready: the backend does not answer\n".to_owned(),
        ),
        ("GET" | "HEAD", _) => ("404 Not Found", "text/plain", "not found\n".to_owned()),
        _ => (
            "405 Method Not Allowed",
            "text/plain",
            "only GET\n".to_owned(),
        ),
    };
    let mut response = format!(
        "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    if method != "HEAD" {
        response.extend_from_slice(body.as_bytes());
    }
    stream.write_all(&response).await?;
    stream.shutdown().await
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use tokio::net::TcpStream;

    #[tokio::test]
    async fn serves_metrics_and_nothing_else() {
        let mut registry = Registry::with_prefix(PREFIX);
        let counter = prometheus_client::metrics::counter::Counter::<u64>::default();
        registry.register("probes", "test counter", counter.clone());
        counter.inc();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(serve(listener, Arc::new(registry), async {
            let _ = stopped.await;
        }));
        let get = |path: &'static str| async move {
            let mut s = TcpStream::connect(addr).await.unwrap();
            s.write_all(format!("GET {path} HTTP/1.1\r\nhost: x\r\n\r\n").as_bytes())
                .await
                .unwrap();
            let mut out = String::new();
            s.read_to_string(&mut out).await.unwrap();
            out
        };
        let ok = get("/metrics").await;
        assert!(ok.starts_with("HTTP/1.1 200 OK\r\n"), "{ok}");
        assert!(ok.contains("revu_probes_total 1\n"), "{ok}");
        assert!(get("/").await.starts_with("HTTP/1.1 404"));
        let _ = stop.send(());
        server.await.unwrap();
    }
}
