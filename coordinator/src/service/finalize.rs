//! Finalization: once every lane of a review's phase settled, the review
//! moves on (see [`revu_domain::review::ReviewPhase`] for the table): to
//! its domain lanes, its adjudication lane, its synthesis lane, or, when
//! none is ahead, to Finalizing, where the report is verified, decided and
//! stored with the move to Finished.

use super::{Coordinator, InternalError, ServiceError, blocking, observe};
use revu_domain::diff::DiffError;
use revu_domain::lane::ReviewId;
use revu_domain::report::Report;
use revu_domain::review::{
    GROUPING_LANE, ProgressEvent, ReviewPhase, ReviewRecord, Stage, StepsAhead,
};
use revu_domain::telemetry::names::{attr, span};
use revu_queue::{JobQueue, MoveOutcome, PhaseMove, ReviewStore};
use revu_stages::assemble::assemble;
use revu_stages::render;
use std::sync::Arc;
use std::time::Instant;
use tracing::field::Empty;

impl<B: JobQueue + ReviewStore> Coordinator<B> {
    /// Moves the review on if the lanes of its phase have all settled, and
    /// finalizes it once no lane is ahead. Safe to call repeatedly and from
    /// several coordinators: each move is made once, from the phase it
    /// leaves, and what it writes is a pure function of stored state. In
    /// one process, one call at a time works on a review: a call that comes
    /// meanwhile leaves it to that one, which then looks again.
    pub(super) async fn try_finalize(&self, id: &ReviewId) -> Result<(), ServiceError> {
        let Some(claim) = self.finalizing.claim(id) else {
            return Ok(());
        };
        loop {
            let again = self.finalize_once(id).await?;
            if !again && !claim.asked_again() {
                return Ok(());
            }
        }
    }

    /// One look at the review: [`Coordinator::try_finalize`]'s work.
    /// Returns whether to look again at once: the review moved to its
    /// domain lanes, and a refinement may have left none to wait for.
    async fn finalize_once(&self, id: &ReviewId) -> Result<bool, ServiceError> {
        // Asked together, so that on Redis they go out in one round trip.
        let (record, settled) =
            tokio::join!(self.backend.load_record(id), self.backend.settled_count(id));
        let Some(record) = record? else {
            return Err(ServiceError::NotFound(id.clone()));
        };
        // Whether a lane the phase waits for is still out. Counting is
        // enough: reading every result (each lane's report, as each
        // settles) would make a review of N lanes read N * N / 2 of them.
        let waiting = match record.phase {
            ReviewPhase::Finished | ReviewPhase::Cancelled => return Ok(false),
            ReviewPhase::Grouping => !self.backend.lane_settled(id, GROUPING_LANE).await?,
            ReviewPhase::Finalizing => false,
            _ => settled? < record.plan.lanes.len(),
        };
        if waiting {
            if record.phase == ReviewPhase::Reviewing && record.plan.grouping.is_some() {
                self.dispatch_undispatched(&record).await?;
            }
            return Ok(false);
        }
        // The results and the bundle every next step needs, together.
        let (results, bundle) =
            tokio::join!(self.backend.lane_results(id), self.backend.load_bundle(id));
        let (results, bundle) = (results?, bundle?);
        let bundle = bundle.ok_or_else(|| InternalError::NoBundle(id.clone()))?;
        let next = match record.phase {
            // A finalization a stopped coordinator began: carried on.
            ReviewPhase::Finalizing => None,
            phase => {
                let candidates = if phase == ReviewPhase::Reviewing {
                    self.adjudication_candidates(&record, &results, &bundle)
                        .await?
                } else {
                    Vec::new()
                };
                let ahead = StepsAhead {
                    adjudication: !candidates.is_empty(),
                    synthesis: record.plan.synthesis.is_some(),
                };
                match phase.once_settled(ahead) {
                    Some(ReviewPhase::Reviewing) => {
                        let moved = self.plan_domain_lanes(&record, &results, &bundle).await?;
                        return Ok(moved == MoveOutcome::Moved);
                    }
                    Some(ReviewPhase::Adjudicating) => {
                        self.start_adjudication(&record, candidates).await?;
                        return Ok(false);
                    }
                    Some(ReviewPhase::Synthesizing) => {
                        self.start_synthesis(&record, &results, &bundle).await?;
                        return Ok(false);
                    }
                    next => next,
                }
            }
        };
        let record = match next {
            None => record,
            Some(ReviewPhase::Finalizing) => {
                let finalizing = record.in_phase(ReviewPhase::Finalizing);
                let verify = [ProgressEvent::StageStarted {
                    stage: Stage::Verify,
                }];
                let step = PhaseMove::new(record.phase, &finalizing, &verify);
                if self.backend.move_phase(step).await? != MoveOutcome::Moved {
                    // Another coordinator finalizes it, or it was cancelled.
                    return Ok(false);
                }
                finalizing
            }
            Some(other) => {
                return Err(InternalError::NoStep {
                    review: id.clone(),
                    from: record.phase,
                    to: other,
                }
                .into());
            }
        };
        self.finalize(record, results, bundle).await?;
        Ok(false)
    }

    /// Verifies, decides and renders the report of `record` (in
    /// Finalizing) and stores it with the move to Finished.
    async fn finalize(
        &self,
        record: ReviewRecord,
        results: revu_domain::review::LaneResults,
        bundle: Arc<revu_domain::bundle::ReviewBundle>,
    ) -> Result<(), ServiceError> {
        let id = &record.id;
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
                let parsed = bundle.parsed_diff()?;
                Ok::<_, DiffError>(assemble(&review_id, &plan, &results, &parsed, &bundle))
            })?;
            let verified = started.elapsed();
            let started = Instant::now();
            let json = tracing::info_span!(parent: &parent, span::RENDER)
                .in_scope(|| render::json(&report));
            Ok::<_, DiffError>((report, json, verify_span, (verified, started.elapsed())))
        })
        .await?
        .map_err(InternalError::StoredDiff)?;
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
        match self.backend.finish_review(&record, json, &closing).await? {
            MoveOutcome::Moved => {
                self.observe_finished(&report);
                tracing::info!(
                    parent: &fin,
                    review_id = %id,
                    verdict = %report.verdict,
                    gate = %report.gate,
                    findings = report.findings.len(),
                    "review finished"
                );
            }
            MoveOutcome::Lost { current } => {
                if let Some(handoff) = &self.handoff {
                    handoff.take(id);
                }
                tracing::info!(parent: &fin, review_id = %id, ?current, "review not finished: it left finalizing first");
            }
        }
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
