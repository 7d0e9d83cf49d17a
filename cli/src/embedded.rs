//! The embedded mode: coordinator and workers in this process, joined by the
//! in-memory queue. Same stages, same queue contract, no servers.

use crate::error::CliError;
use revu_coordinator::config::ReviewSettings;
use revu_coordinator::service::{
    APART_MIN_BYTES, Coordinator, ReportHandoff, ServiceError, Submission,
};
use revu_domain::lane::ReviewId;
use revu_domain::report::Report;
use revu_domain::review::ProgressEvent;
use revu_queue::ReviewStore;
use revu_queue::memory::MemoryBackend;
use revu_worker::engines::Engines;
use revu_worker::engines::lint::LintSettings;
use revu_worker::engines::llm::LlmSettings;
use revu_worker::runner::Worker;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// How long past the review's deadline the verdict is awaited: at the
/// deadline the sweeper faults the missing lanes and finalizes, which
/// takes moments, so a review still without a verdict by then never gets
/// one (finalizing keeps failing).
const VERDICT_GRACE: Duration = Duration::from_secs(30);

/// The engines of the embedded mode: the rules (with the linters `lint`
/// turns on), and the `llm` engines when `llm` names a provider.
pub async fn engines(llm: &LlmSettings, lint: &LintSettings) -> Result<Engines, CliError> {
    let mut engines = Engines::built_in(lint);
    let linters = revu_worker::engines::lint::Linters::new(lint).map(Arc::new);
    for engine in llm
        .engines()
        .await
        .map_err(|e| CliError::Input(e.to_string()))?
    {
        engines = engines.with(Arc::new(engine.with_linters(linters.clone())));
    }
    Ok(engines)
}

/// A finished review: its stored report JSON, and the report itself when
/// this process built it (else the JSON is all there is).
#[derive(Debug)]
pub struct Finished {
    pub json: Arc<String>,
    pub report: Option<Arc<Report>>,
}

/// Whether every engine `settings` names is one of `engines`: a lane whose
/// engine no worker offers would only fault, so say so before a review.
pub fn check_engines(settings: &ReviewSettings, engines: &Engines) -> Result<(), CliError> {
    let unknown = |flag: &str, engine: &str| {
        CliError::Input(format!(
            "{flag} {engine}: not an engine of the embedded mode (use rules, lint, or llm with \
             --llm-provider and --llm-model, or a name given by --llm-engine)"
        ))
    };
    let choices = &settings.choices;
    if engines.get(&choices.engine).is_none() {
        return Err(unknown("--engine", &choices.engine));
    }
    for (flag, engine) in choices.optional_engines() {
        if engines.get(engine).is_none() {
            return Err(unknown(flag, engine));
        }
    }
    Ok(())
}

/// Runs one review to its report (its engines checked by
/// [`check_engines`]).
pub async fn review(
    submission: Submission,
    mut settings: ReviewSettings,
    engines: Engines,
    workers: usize,
) -> Result<Finished, CliError> {
    // Adjudication is on by default wherever one of these reviews.
    settings.model_engines = engines.models().into_iter().map(|(name, _)| name).collect();
    let deadline = settings.review_timeout();
    let large = submission.diff.len() >= APART_MIN_BYTES;
    let backend = MemoryBackend::new();
    let handoff = Arc::new(ReportHandoff::default());
    let coordinator = Coordinator::new(backend.clone(), settings)
        .map_err(|e| CliError::Internal(format!("grouping rules: {e}")))?
        .with_parse_ahead()
        .with_report_handoff(Arc::clone(&handoff));
    let lease = Duration::from_secs(revu_worker::config::defaults::LEASE_SECS);
    let worker = Worker::new(backend.clone(), engines, lease)
        .with_poll(Duration::from_millis(50))
        .with_stoppable_reads();
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
    // Run on the runtime's threads, not the one that waits for it: what a
    // submission allocates and frees then stays where the review's later
    // work reuses it, not in an allocator arena of the waiting thread's.
    let submitted = {
        let (coordinator, backend) = (coordinator.clone(), backend.clone());
        tokio::spawn(async move {
            run_one(&coordinator, &backend, submission, deadline, VERDICT_GRACE).await
        })
    };
    let result = submitted
        .await
        .unwrap_or_else(|e| Err(CliError::Internal(format!("the review's task failed: {e}"))))
        .map(|(id, json)| Finished {
            json,
            report: handoff.take(&id),
        });
    let _ = stop_tx.send(true);
    for t in tasks {
        let _ = t.await;
    }
    // What the review holds in memory (the diff, parsed, and every lane's
    // result) is freed, for a large diff, on a thread of its own while the
    // report is printed: that takes a tenth of such a review, and a process
    // about to exit need not wait for it.
    if large {
        let held = (coordinator, backend);
        let _ = std::thread::Builder::new()
            .name("revu-free".into())
            .spawn(move || drop(held));
    }
    result
}

/// Submits the review and waits for its report, for at most its
/// `deadline` plus `grace`.
async fn run_one(
    coordinator: &Coordinator<MemoryBackend>,
    backend: &MemoryBackend,
    submission: Submission,
    deadline: Duration,
    grace: Duration,
) -> Result<(ReviewId, Arc<String>), CliError> {
    let (id, _) = coordinator.submit(submission).await.map_err(|e| match e {
        ServiceError::InvalidDiff(e) => CliError::Input(format!("invalid diff: {e}")),
        ServiceError::Limit(_) | ServiceError::InvalidRequest(_) => CliError::Input(e.to_string()),
        other => CliError::Internal(other.to_string()),
    })?;
    let json = tokio::time::timeout(deadline + grace, report(backend, &id))
        .await
        .unwrap_or_else(|_| {
            Err(CliError::Internal(format!(
                "review {id} has no verdict past its deadline of {deadline:?} \
                 (--review-timeout-secs) and {grace:?} of grace: finalizing it keeps failing"
            )))
        })?;
    Ok((id, json))
}

/// Waits for the review's final event, then loads its report.
async fn report(backend: &MemoryBackend, id: &ReviewId) -> Result<Arc<String>, CliError> {
    let mut after = "0".to_owned();
    loop {
        let events = backend
            .read_events(id, &after, Duration::from_secs(1))
            .await
            .map_err(|e| CliError::Internal(e.to_string()))?;
        for (event_id, event) in events {
            after = event_id;
            if matches!(
                event,
                ProgressEvent::Verdict { .. } | ProgressEvent::Cancelled
            ) {
                return backend.report(id).ok_or_else(|| {
                    CliError::Internal(format!("review {id} finished without a report"))
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_review_that_never_finalizes_fails_at_its_deadline_plus_grace() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/docs-only.patch");
        let diff = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        // No gatherer, sweeper or worker: the review is accepted and its
        // lanes dispatched, but nothing ever settles or finalizes it.
        let backend = MemoryBackend::new();
        let coordinator = Coordinator::new(backend.clone(), ReviewSettings::default())
            .unwrap_or_else(|e| panic!("{e}"));
        let submission = Submission {
            diff,
            ..Submission::default()
        };
        // The default deadline and the grace: on paused time, they pass
        // as soon as nothing else is left to wait for.
        let (deadline, grace) = (ReviewSettings::default().review_timeout(), VERDICT_GRACE);
        let given_up = deadline + grace;
        let started = tokio::time::Instant::now();
        let waited = tokio::time::timeout(
            given_up + Duration::from_secs(60),
            run_one(&coordinator, &backend, submission, deadline, grace),
        )
        .await;
        let took = started.elapsed();
        let err = match waited {
            Ok(Err(e)) => e,
            Ok(Ok((_, report))) => panic!("a report without finalizing: {report}"),
            Err(_) => panic!("still waiting for the verdict a minute past {given_up:?}"),
        };
        assert_eq!(err.exit_code(), 3, "{err}");
        assert!(matches!(err, CliError::Internal(_)), "{err:?}");
        let reason = err.to_string();
        assert!(
            reason.contains(&format!("deadline of {deadline:?}")),
            "{reason}"
        );
        assert!(!reason.contains('\n'), "one line: {reason}");
        assert!(took >= given_up, "gave up early, after {took:?}");
        assert!(
            took < given_up + Duration::from_secs(1),
            "gave up late, after {took:?}"
        );
    }
}
