//! `revu-coordinator`: serves the review API over gRPC, backed by Redis.

use anyhow::Context;
use clap::Parser;
use revu_common::queue::redis::RedisBackend;
use revu_coordinator::config::CoordinatorConfig;
use revu_coordinator::server;
use revu_coordinator::service::Coordinator;

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
    revu_common::telemetry::init_logs(config.log_json, "info");

    let backend = RedisBackend::connect(&config.redis, &config.key_prefix)
        .await
        .with_context(|| format!("connecting to redis at {}", config.redis))?;
    let coordinator = Coordinator::new(backend, config.review.clone())?;
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .with_context(|| format!("binding {}", config.listen))?;
    server::serve(listener, coordinator, revu_common::shutdown::signal()).await?;
    tracing::info!("coordinator stopped");
    Ok(())
}
