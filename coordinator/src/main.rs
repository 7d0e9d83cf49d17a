//! `revu-coordinator`: serves the review API over gRPC, backed by Redis.

use anyhow::Context;
use revu_common::queue::redis::RedisBackend;
use revu_coordinator::auth::Authenticator;
use revu_coordinator::config::CoordinatorConfig;
use revu_coordinator::metrics::CoordinatorMetrics;
use revu_coordinator::server;
use revu_coordinator::service::Coordinator;
use std::sync::Arc;

fn main() -> std::process::ExitCode {
    revu_common::shutdown::block_on_main("revu-coordinator", async {
        run()
            .await
            .map_err(|e| revu_common::telemetry::one_line(e.chain()))
    })
}

async fn run() -> anyhow::Result<()> {
    let config: CoordinatorConfig = revu_common::config::load().await?;
    if config.source.dump_config {
        println!("{}", revu_common::config::dump(&config)?);
        return Ok(());
    }
    config.review.validate().map_err(anyhow::Error::msg)?;
    config
        .access
        .check_exposure(config.listen)
        .map_err(anyhow::Error::msg)?;
    let telemetry =
        revu_common::telemetry::init_service("revu-coordinator", config.service.log_json)?;
    let result = coordinate(&config).await;
    telemetry.shutdown().await;
    result
}

async fn coordinate(config: &CoordinatorConfig) -> anyhow::Result<()> {
    let (metrics, registry) = CoordinatorMetrics::registered();
    let _metrics_endpoint =
        revu_common::metrics::endpoint(config.service.metrics_listen, registry.into_registry())
            .await?;
    let backend = RedisBackend::connect(&config.service.redis, &config.service.key_prefix)
        .await
        .with_context(|| {
            format!(
                "connecting to redis at {}",
                revu_common::config::redact_url(&config.service.redis)
            )
        })?;
    let access = match &config.access.tokens_file {
        Some(path) => server::Access {
            auth: Authenticator::from_file(path).await?,
            tokens_file: Some(path.clone()),
        },
        None => server::Access::default(),
    };
    let coordinator = Coordinator::new(backend.clone(), config.review.clone())?
        .with_metrics(Arc::new(metrics))
        .with_messaging(backend.job_target())
        .with_quotas(config.access.quotas());
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .with_context(|| format!("binding {}", config.listen))?;
    server::serve(
        listener,
        coordinator,
        access,
        revu_common::shutdown::signal(),
    )
    .await?;
    tracing::info!("coordinator stopped");
    Ok(())
}
