//! `revu-coordinator`: serves the review API over gRPC, backed by Redis.

use anyhow::Context;
use clap::Parser;
use revu_common::queue::redis::RedisBackend;
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
    let config = CoordinatorConfig::parse();
    if config.dump_config {
        println!("{}", serde_json::to_string_pretty(&config)?);
        return Ok(());
    }
    config.review.validate().map_err(anyhow::Error::msg)?;
    // Colours for a terminal only: a log file or collector gets plain text.
    let ansi = revu_common::telemetry::stderr_colours(std::env::var_os("NO_COLOR").as_deref());
    let telemetry =
        revu_common::telemetry::init_service("revu-coordinator", config.log_json, ansi)?;
    let result = coordinate(&config).await;
    telemetry.shutdown().await;
    result
}

async fn coordinate(config: &CoordinatorConfig) -> anyhow::Result<()> {
    let (metrics, registry) = CoordinatorMetrics::registered();
    let _metrics_endpoint =
        revu_common::metrics::endpoint(config.metrics_listen, registry.into_registry()).await?;
    let backend = RedisBackend::connect(&config.redis, &config.key_prefix)
        .await
        .with_context(|| format!("connecting to redis at {}", config.redis))?;
    let coordinator = Coordinator::new(backend.clone(), config.review.clone())?
        .with_metrics(Arc::new(metrics))
        .with_messaging(backend.job_target());
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .with_context(|| format!("binding {}", config.listen))?;
    server::serve(listener, coordinator, revu_common::shutdown::signal()).await?;
    tracing::info!("coordinator stopped");
    Ok(())
}
