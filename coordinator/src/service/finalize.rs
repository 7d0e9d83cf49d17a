//! Finalization: once every lane settled, verify, decide and store the report.

use super::{Coordinator, ServiceError, blocking, observe};
use revu_common::bundle::ReviewBundle;
use revu_common::lane::ReviewId;
use revu_common::queue::{JobQueue, ReviewStore};
use revu_common::report::Report;
use revu_common::review::{GROUPING_LANE, ProgressEvent, Stage};
use revu_common::telemetry::names::{attr, span};
use revu_stages::assemble::assemble;
use revu_stages::render;
use std::sync::Arc;
use std::time::Instant;
use tracing::field::Empty;

impl<B: JobQueue + ReviewStore> Coordinator<B> {
    /// Finalizes the review if it is running and every planned lane settled
    /// (first dispatching the domain lanes of a refined review, then the
    /// adjudication lane and the synthesis lane, when the review has them).
    /// Safe to call repeatedly and from several coordinators: the report is
    /// a pure function of stored state, so a second writer writes the same.
    /// In one process, one call at a time works on a review: a call that
    /// comes meanwhile leaves it to that one, which then looks again.
    pub(super) async fn try_finalize(&self, id: &ReviewId) -> Result<(), ServiceError> {
        let Some(claim) = self.finalizing.claim(id) else {
            return Ok(());
        };
        loop {
            self.finalize_once(id).await?;
            if !claim.asked_again() {
                return Ok(());
            }
        }
    }

    /// One look at the review: [`Coordinator::try_finalize`]'s work.
    async fn finalize_once(&self, id: &ReviewId) -> Result<(), ServiceError> {
        // Asked together, so that on Redis they go out in one round trip.
        let (record, settled) =
            tokio::join!(self.backend.load_record(id), self.backend.settled_count(id));
        let Some(record) = record? else {
            return Err(ServiceError::NotFound(id.clone()));
        };
        if record.state.is_terminal() {
            return Ok(());
        }
        // Fewer settled lanes than planned ones: a lane is still out, and
        // reading every result (each lane's report, as each settles) would
        // make a review of N lanes read N * N / 2 of them. A refined
        // review's grouping lane is looked at below whatever else runs.
        if record.plan.grouping.is_none() && settled? < record.plan.lanes.len() {
            return Ok(());
        }
        // Every lane settled: the results and the bundle the verdict needs
        // are asked for together. A refined review reads its bundle only
        // where it needs it.
        let (results, prefetched) = if record.plan.grouping.is_none() {
            let (results, bundle) =
                tokio::join!(self.backend.lane_results(id), self.backend.load_bundle(id));
            (results?, Some(bundle))
        } else {
            (self.backend.lane_results(id).await?, None)
        };
        let stored = |bundle: Option<Arc<ReviewBundle>>| {
            bundle
                .ok_or_else(|| ServiceError::Internal(format!("review {id} has no stored bundle")))
        };
        let load_bundle = || async { stored(self.backend.load_bundle(id).await?) };
        // The domain lanes of a refined review start when its grouping
        // lane settled, whatever else is still running.
        if let Some(grouping) = &record.plan.grouping
            && results.contains_key(GROUPING_LANE)
        {
            if !grouping.applied {
                let bundle = load_bundle().await?;
                return self.plan_domain_lanes(&record, &results, &bundle).await;
            }
            self.dispatch_undispatched(&record, &results).await?;
        }
        if record
            .plan
            .lanes
            .iter()
            .any(|l| !results.contains_key(&l.id))
        {
            return Ok(());
        }
        let bundle = match prefetched {
            Some(bundle) => stored(bundle?)?,
            None => load_bundle().await?,
        };
        if self.start_adjudication(&record, &results, &bundle).await?
            || self.start_synthesis(&record, &results, &bundle).await?
        {
            return Ok(());
        }
        self.backend
            .push_event(
                id,
                &ProgressEvent::StageStarted {
                    stage: Stage::Verify,
                },
            )
            .await?;
        let fin = observe::finalize_span(&record);
        let plan = record.plan.clone();
        let review_id = id.clone();
        let parent = fin.clone();
        let (report, json, verify_span, timings) = blocking(move || {
            let verify_span = tracing::info_span!(
                parent: &parent,
                span::VERIFY,
                { attr::VERDICT } = Empty,
                { attr::GATE } = Empty,
                { attr::FINDINGS_VERIFIED } = Empty,
                { attr::FINDINGS_BLOCKER } = Empty,
                { attr::FINDINGS_IMPORTANT } = Empty,
                { attr::FINDINGS_DROPPED } = Empty,
            );
            let started = Instant::now();
            let report = verify_span.in_scope(|| {
                let parsed = bundle.parsed_diff().map_err(|e| e.to_string())?;
                Ok::<_, String>(assemble(&review_id, &plan, &results, &parsed, &bundle))
            })?;
            let verified = started.elapsed();
            let started = Instant::now();
            let json = tracing::info_span!(parent: &parent, span::RENDER)
                .in_scope(|| render::json(&report));
            Ok::<_, String>((report, json, verify_span, (verified, started.elapsed())))
        })
        .await?
        .map_err(|e| ServiceError::Internal(format!("stored diff no longer parses: {e}")))?;
        self.metrics.stage("verify", timings.0);
        self.metrics.stage("render", timings.1);
        observe::record_report([&fin, &verify_span], &report);
        drop(verify_span);
        let report = Arc::new(report);
        // Put before the verdict goes out: the embedded mode's command
        // takes it once it hears the verdict.
        if let Some(handoff) = &self.handoff {
            handoff.put(id, Arc::clone(&report));
        }
        let closing = [
            ProgressEvent::StageFinished {
                stage: Stage::Render,
            },
            verdict_event(&report),
        ];
        // The store takes the JSON: a large report is megabytes.
        self.backend.finish_review(&record, json, &closing).await?;
        self.observe_finished(&report);
        tracing::info!(
            parent: &fin,
            review_id = %id,
            verdict = %report.verdict,
            gate = %report.gate,
            findings = report.findings.len(),
            "review finished"
        );
        Ok(())
    }
}

/// The event that tells watchers the review's verdict: its last.
pub(super) fn verdict_event(report: &Report) -> ProgressEvent {
    ProgressEvent::Verdict {
        verdict: report.verdict,
        gate: report.gate,
    }
}
