//! The gRPC server: `revu.v1.ReviewService`, `revu.v1.IndexCacheService`
//! (when the coordinator shares index cache entries), `grpc.health.v1` and
//! server reflection (`v1` and `v1alpha`).

mod convert;
mod grpc;
mod index_cache;
mod status;
mod tls;

pub use grpc::ReviewApi;
pub use index_cache::IndexCacheApi;

use crate::auth::Authenticator;
use crate::service::Coordinator;
use revu_proto::v1::index_cache_service_server::IndexCacheServiceServer;
use revu_proto::v1::review_service_server::ReviewServiceServer;
use revu_queue::{JobQueue, ReviewStore};
use revu_runtime::tls::ReloadingServerTls;
use std::future::Future;
use std::path::PathBuf;
use tokio::net::TcpListener;
use tokio_stream::wrappers::TcpListenerStream;

/// How often the queue gauges are read from the backend.
const GAUGE_SAMPLE_EVERY: std::time::Duration = std::time::Duration::from_secs(5);
/// Fewest lane-report gatherers a coordinator runs side by side.
const GATHERERS: usize = 4;
/// How often the health status checks the backend.
const HEALTH_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

/// Errors starting or running the server.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("reflection: {0}")]
    Reflection(#[from] tonic_reflection::server::Error),
    #[error("transport: {0}")]
    Transport(#[from] tonic::transport::Error),
}

/// Who may call and how they connect: the authenticator, the tokens file
/// it follows, and TLS.
#[derive(Debug, Clone, Default)]
pub struct Access {
    pub auth: Authenticator,
    /// Read again when it changes.
    pub tokens_file: Option<PathBuf>,
    /// TLS only on the port when set; its files are read again when they
    /// change.
    pub tls: Option<ReloadingServerTls>,
}

/// What the gRPC port negotiates over TLS.
pub const ALPN: &[&[u8]] = &[b"h2"];

/// How often the tokens file and the TLS files are checked for changes.
const FILES_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

/// Serves the API on `listener` until `shutdown` resolves, with the
/// gatherer and the sweeper running beside it.
/// `readiness` (the metrics endpoint's `/readyz`) follows Redis with the
/// gRPC health, from the same check.
pub async fn serve<B: JobQueue + ReviewStore>(
    listener: TcpListener,
    coordinator: Coordinator<B>,
    access: Access,
    readiness: revu_runtime::metrics::Readiness,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let (health_reporter, health_service) = tonic_health::server::health_reporter();
    health_reporter
        .set_serving::<ReviewServiceServer<ReviewApi<B>>>()
        .await;
    let reflection_v1 = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(revu_proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()?;
    let reflection_v1alpha = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(revu_proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1alpha()?;

    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let stopped = |mut rx: tokio::sync::watch::Receiver<bool>| async move {
        let _ = rx.wait_for(|s| *s).await;
    };
    // One gatherer per stream a blocking read can cover at once (several
    // on a Redis Cluster, so that every shard's reports wake one), and
    // never fewer than GATHERERS: a report takes several round trips to
    // apply, and the lanes of a large review report together.
    let gatherers: Vec<_> = (0..coordinator.result_readers().max(GATHERERS))
        .map(|_| {
            let c = coordinator.clone();
            let rx = stop_rx.clone();
            tokio::spawn(async move { c.run_gatherer(stopped(rx)).await })
        })
        .collect();
    let sweeper = {
        let c = coordinator.clone();
        let rx = stop_rx.clone();
        tokio::spawn(async move {
            c.run_sweeper(std::time::Duration::from_secs(1), stopped(rx))
                .await
        })
    };

    let health = {
        let c = coordinator.clone();
        let rx = stop_rx.clone();
        let reporter = health_reporter.clone();
        let readiness = readiness.clone();
        tokio::spawn(async move {
            watch_health::<B>(c, reporter, readiness, HEALTH_EVERY, stopped(rx)).await
        })
    };

    let sampler = {
        let c = coordinator.clone();
        let rx = stop_rx.clone();
        tokio::spawn(async move { c.run_sampler(GAUGE_SAMPLE_EVERY, stopped(rx)).await })
    };

    let certificates = access.tls.clone().map(|tls| {
        let rx = stop_rx.clone();
        tokio::spawn(async move { tls.follow(FILES_EVERY, stopped(rx)).await })
    });
    let tokens = access.tokens_file.map(|path| {
        let auth = access.auth.clone();
        let rx = stop_rx.clone();
        tokio::spawn(async move { auth.follow_file(path, FILES_EVERY, stopped(rx)).await })
    });

    let shared_index = match coordinator.index_cache() {
        Some(store) => {
            health_reporter
                .set_serving::<IndexCacheServiceServer<IndexCacheApi>>()
                .await;
            let api = IndexCacheApi::new(
                store.clone(),
                access.auth.clone(),
                coordinator.shared_metrics(),
            );
            Some(
                IndexCacheServiceServer::new(api)
                    .max_decoding_message_size(revu_proto::index_cache::MESSAGE_LIMIT)
                    .max_encoding_message_size(revu_proto::index_cache::MESSAGE_LIMIT),
            )
        }
        None => None,
    };
    let limit = coordinator.settings().max_request_bytes();
    let api = ReviewServiceServer::new(ReviewApi::new(coordinator, access.auth))
        .max_decoding_message_size(limit)
        .max_encoding_message_size(limit);
    tracing::info!(
        addr = %listener.local_addr().map(|a| a.to_string()).unwrap_or_default(),
        tls = access.tls.is_some(),
        "coordinator serving"
    );
    let router = tonic::transport::Server::builder()
        .add_service(health_service)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(api)
        .add_optional_service(shared_index);
    let result = match access.tls {
        Some(tls) => {
            router
                .serve_with_incoming_shutdown(tls::incoming(listener, tls), shutdown)
                .await
        }
        None => {
            let incoming = without_nagle(TcpListenerStream::new(listener));
            router
                .serve_with_incoming_shutdown(incoming, shutdown)
                .await
        }
    };
    let _ = stop_tx.send(true);
    for gatherer in gatherers {
        let _ = gatherer.await;
    }
    let _ = tokio::join!(sweeper, sampler, health);
    for follower in [tokens, certificates].into_iter().flatten() {
        let _ = follower.await;
    }
    Ok(result?)
}

/// Accepted connections with Nagle's algorithm off: a watch stream's small
/// messages go out at once instead of waiting for the peer's delayed ACK
/// (tens of milliseconds per message on loopback). Tonic's own
/// `tcp_nodelay` applies only to listeners it binds itself.
fn without_nagle(
    incoming: TcpListenerStream,
) -> impl tokio_stream::Stream<Item = std::io::Result<tokio::net::TcpStream>> {
    use tokio_stream::StreamExt;
    incoming.map(|accepted| {
        if let Ok(stream) = &accepted
            && let Err(e) = stream.set_nodelay(true)
        {
            tracing::debug!(error = %e, "TCP_NODELAY not set");
        }
        accepted
    })
}

/// Keeps the gRPC health status true to the backend: `NOT_SERVING` (for
/// the review service and the server as a whole) while Redis does not
/// answer, `SERVING` again once it does.
async fn watch_health<B: JobQueue + ReviewStore>(
    coordinator: Coordinator<B>,
    reporter: tonic_health::server::HealthReporter,
    readiness: revu_runtime::metrics::Readiness,
    every: std::time::Duration,
    shutdown: impl Future<Output = ()>,
) {
    use tonic_health::ServingStatus;
    // The server starts after Redis answered once.
    readiness.set(true);
    let follow = revu_queue::watch_reachable(coordinator.backend(), every, true, |up| {
        let reporter = reporter.clone();
        readiness.set(up);
        async move {
            let status = if up {
                tracing::info!("backend answers again; health SERVING");
                ServingStatus::Serving
            } else {
                tracing::warn!("backend does not answer; health NOT_SERVING");
                ServingStatus::NotServing
            };
            reporter
                .set_service_status(
                    <ReviewServiceServer<ReviewApi<B>> as tonic::server::NamedService>::NAME,
                    status,
                )
                .await;
            reporter.set_service_status("", status).await;
        }
    });
    tokio::select! {
        () = shutdown => {}
        () = follow => {}
    }
}
