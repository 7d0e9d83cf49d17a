//! `revu-worker`: consumes lane jobs from Redis and runs review engines.

use revu_worker::config::WorkerConfig;
use revu_worker::metrics::WorkerMetrics;
use revu_worker::runner::Worker;
use std::sync::Arc;
use std::time::Duration;

fn main() -> std::process::ExitCode {
    revu_runtime::shutdown::block_on_main("revu-worker", async {
        run()
            .await
            .map_err(|e| revu_runtime::telemetry::one_line(e.chain()))
    })
}

async fn run() -> anyhow::Result<()> {
    let config: WorkerConfig = revu_runtime::config::load().await?;
    if config.source.dump_config {
        println!("{}", revu_runtime::config::dump(&config)?);
        return Ok(());
    }
    config.validate()?;
    revu_runtime::tls::install_crypto_provider();
    let telemetry = revu_runtime::telemetry::init_service("revu-worker", config.service.log_json)?;
    let result = work(&config).await;
    telemetry.shutdown().await;
    result
}

async fn work(config: &WorkerConfig) -> anyhow::Result<()> {
    let (metrics, mut registry) = WorkerMetrics::registered();
    // Ready once Redis has answered, not before.
    let readiness = revu_runtime::metrics::Readiness::not_yet();
    readiness.register(&mut registry);
    let _metrics_endpoint = config
        .service
        .metrics_endpoint(registry.into_registry(), readiness.clone())
        .await?;
    let backend = config.service.connect_redis().await?;
    let checker = tokio::spawn(readiness.follow(backend.clone()));
    let engines = config.engines().await?;
    for (engine, model) in engines.models() {
        metrics.expect_model(&engine, &model);
    }
    let worker = Worker::new(backend.clone(), engines, config.lease())
        .with_lane_timeout(config.lane_timeout())
        .with_lane_cache(std::time::Duration::from_secs(config.lane_cache_ttl_secs))
        .with_failpoint(config.failpoint)
        .with_metrics(Arc::new(metrics))
        .with_messaging(backend.job_target());
    worker
        .run(
            config.concurrency,
            Duration::from_secs(config.drain_secs),
            revu_runtime::shutdown::signal(),
        )
        .await;
    checker.abort();
    Ok(())
}
