//! `revu-coordinator`: serves the review API over gRPC, backed by Redis.

use anyhow::Context;
use revu_coordinator::auth::Authenticator;
use revu_coordinator::config::CoordinatorConfig;
use revu_coordinator::index_cache::IndexCacheStore;
use revu_coordinator::metrics::CoordinatorMetrics;
use revu_coordinator::server;
use revu_coordinator::service::Coordinator;
use std::sync::Arc;

fn main() -> std::process::ExitCode {
    revu_runtime::shutdown::block_on_main("revu-coordinator", async {
        run()
            .await
            .map_err(|e| revu_runtime::telemetry::one_line(e.chain()))
    })
}

async fn run() -> anyhow::Result<()> {
    let config: CoordinatorConfig = revu_runtime::config::load().await?;
    if config.source.dump_config {
        println!("{}", revu_runtime::config::dump(&config)?);
        return Ok(());
    }
    config.review.validate()?;
    config.index_cache.validate()?;
    config.access.check_exposure(config.listen, &config.tls)?;
    let tls_files = config.tls.files()?;
    revu_runtime::tls::install_crypto_provider();
    let telemetry =
        revu_runtime::telemetry::init_service("revu-coordinator", config.service.log_json)?;
    let result = coordinate(&config, tls_files).await;
    telemetry.shutdown().await;
    result
}

async fn coordinate(
    config: &CoordinatorConfig,
    tls_files: Option<revu_runtime::tls::ServerTlsFiles>,
) -> anyhow::Result<()> {
    let (metrics, mut registry) = CoordinatorMetrics::registered();
    // `/readyz` follows Redis, like the gRPC health: the probe to use when
    // the gRPC port speaks TLS, which kubelet gRPC probes cannot.
    let readiness = revu_runtime::metrics::Readiness::not_yet();
    readiness.register(&mut registry);
    let _metrics_endpoint = config
        .service
        .metrics_endpoint(registry.into_registry(), readiness.clone())
        .await?;
    let backend = config
        .service
        .connect_redis()
        .await?
        .with_review_retention(config.review_retention());
    let mut access = match &config.access.tokens_file {
        Some(path) => server::Access {
            auth: Authenticator::from_file(path).await?,
            tokens_file: Some(path.clone()),
            tls: None,
        },
        None => server::Access::default(),
    };
    if let Some(files) = tls_files {
        access.tls = Some(revu_runtime::tls::ReloadingServerTls::new(
            files,
            server::ALPN,
        )?);
    }
    metrics.expect_tenants(&access.auth.tenant_names(), &config.access.quotas().names());
    let mut coordinator = Coordinator::new(backend.clone(), config.review.clone())?
        .with_metrics(Arc::new(metrics))
        .with_messaging(backend.job_target())
        .with_quotas(config.access.quotas());
    let shared = &config.index_cache;
    if !shared.no_shared_index_cache {
        let store = match &shared.shared_index_cache_dir {
            Some(dir) => IndexCacheStore::dir(dir.clone(), shared.limits())?,
            None => IndexCacheStore::redis(backend.clone(), shared.limits()),
        };
        coordinator = coordinator.with_index_cache(store);
    }
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .with_context(|| format!("binding {}", config.listen))?;
    let served = server::serve(
        listener,
        coordinator,
        access,
        readiness,
        revu_runtime::shutdown::signal(),
    )
    .await;
    served?;
    tracing::info!("coordinator stopped");
    Ok(())
}
