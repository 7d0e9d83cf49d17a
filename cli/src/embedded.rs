//! The embedded mode: coordinator and workers in this process, joined by the
//! in-memory queue. Same stages, same queue contract, no servers.

use crate::error::CliError;
use revu_common::queue::ReviewStore;
use revu_common::queue::memory::MemoryBackend;
use revu_common::review::ProgressEvent;
use revu_coordinator::config::ReviewSettings;
use revu_coordinator::service::{Coordinator, ServiceError, Submission};
use revu_worker::engines::Engines;
use revu_worker::runner::Worker;
use std::time::Duration;
use tokio::sync::watch;

/// Runs one review to its report JSON.
pub async fn review(
    submission: Submission,
    settings: ReviewSettings,
    workers: usize,
) -> Result<String, CliError> {
    let engines = Engines::default();
    // A lane whose engine no worker offers would only fault; say so now.
    if let Some(engine) = &settings.adjudicate
        && engines.get(engine).is_none()
    {
        return Err(CliError::Input(format!(
            "--adjudicate {engine}: not an engine of the embedded mode (use rules)"
        )));
    }
    let backend = MemoryBackend::new();
    let coordinator = Coordinator::new(backend.clone(), settings)
        .map_err(|e| CliError::Internal(format!("grouping rules: {e}")))?;
    let worker = Worker::new(backend.clone(), engines, Duration::from_secs(60))
        .with_poll(Duration::from_millis(50));
    let (stop_tx, stop_rx) = watch::channel(false);
    let stopped = |mut rx: watch::Receiver<bool>| async move {
        let _ = rx.wait_for(|s| *s).await;
    };
    let tasks = [
        {
            let c = coordinator.clone();
            let rx = stop_rx.clone();
            tokio::spawn(async move { c.run_gatherer(stopped(rx)).await })
        },
        {
            let c = coordinator.clone();
            let rx = stop_rx.clone();
            tokio::spawn(
                async move { c.run_sweeper(Duration::from_millis(500), stopped(rx)).await },
            )
        },
        {
            let rx = stop_rx.clone();
            tokio::spawn(async move {
                worker
                    .run(workers, Duration::from_secs(5), stopped(rx))
                    .await
            })
        },
    ];
    let result = run_one(&coordinator, &backend, submission).await;
    let _ = stop_tx.send(true);
    for t in tasks {
        let _ = t.await;
    }
    result
}

async fn run_one(
    coordinator: &Coordinator<MemoryBackend>,
    backend: &MemoryBackend,
    submission: Submission,
) -> Result<String, CliError> {
    let (id, _) = coordinator.submit(submission).await.map_err(|e| match e {
        ServiceError::InvalidDiff(e) => CliError::Input(format!("invalid diff: {e}")),
        ServiceError::DiffTooLarge { .. } | ServiceError::InvalidRequest(_) => {
            CliError::Input(e.to_string())
        }
        other => CliError::Internal(other.to_string()),
    })?;
    let mut after = "0".to_owned();
    loop {
        let events = backend
            .read_events(&id, &after, Duration::from_secs(1))
            .await
            .map_err(|e| CliError::Internal(e.to_string()))?;
        for (event_id, event) in events {
            after = event_id;
            if matches!(
                event,
                ProgressEvent::Verdict { .. } | ProgressEvent::Cancelled
            ) {
                return backend
                    .load_report(&id)
                    .await
                    .map_err(|e| CliError::Internal(e.to_string()))?
                    .ok_or_else(|| {
                        CliError::Internal(format!("review {id} finished without a report"))
                    });
            }
        }
    }
}
