//! The phase moves that add lanes (see [`revu_domain::review::ReviewPhase`]):
//! the grouping lane's slices become the domain lanes once it settles
//! (Grouping to Reviewing), and the synthesis lane, whose walkthrough the
//! report carries, is dispatched once every other lane settled (to
//! Synthesizing). Neither has a say over findings or verdict: a failed
//! grouping lane leaves the deterministic proposal in place, a failed
//! synthesis lane leaves the report without a walkthrough.
//!
//! Each move stores the grown plan and dispatches the new lanes' first
//! attempts in one atomic step, from the phase it leaves: of coordinators
//! racing to make it (or a sweep repeating it), one does, once.

use super::submit::dispatched;
use super::{Coordinator, InternalError, ServiceError, blocking, observe};
use revu_domain::bundle::ReviewBundle;
use revu_domain::diff;
use revu_domain::lane::{LaneJob, LaneKind, LaneSpec, ReviewId};
use revu_domain::review::{
    GROUPING_LANE, LaneEnd, LaneResults, ProgressEvent, ReviewPhase, ReviewRecord, SYNTHESIS_LANE,
    Stage, SynthesisPlan,
};
use revu_queue::{JobQueue, MoveOutcome, PhaseMove, ReviewStore};
use revu_stages::assemble::assemble;
use revu_stages::conventions::RepoContext;
use revu_stages::cover;
use revu_stages::prepare::place_domain_lanes;
use std::sync::Arc;

/// Where [`Coordinator::move_to`] left a review.
#[derive(Debug)]
pub(super) enum Reached {
    /// Moved; the record after the move.
    Moved(ReviewRecord),
    /// Not moved: the review is in the phase of this record.
    Found(ReviewRecord),
}

impl<B: JobQueue + ReviewStore> Coordinator<B> {
    /// Plans the domain lanes of a refined review whose grouping lane
    /// settled, and moves it to Reviewing with them dispatched. The slices
    /// are a pure function of stored state, so whichever coordinator makes
    /// the move plans what any other would have.
    pub(super) async fn plan_domain_lanes(
        &self,
        record: &ReviewRecord,
        results: &LaneResults,
        bundle: &ReviewBundle,
    ) -> Result<MoveOutcome, ServiceError> {
        let (Some(grouping), Some(result)) = (&record.plan.grouping, results.get(GROUPING_LANE))
        else {
            return Err(InternalError::GroupingUnsettled(record.id.clone()).into());
        };
        let refined = match &result.end {
            LaneEnd::Complete { body } => Ok(body.slices.clone()),
            end => Err(format!(
                "the grouping lane {}: {}",
                match end {
                    LaneEnd::Incomplete { .. } => "is incomplete",
                    LaneEnd::Cancelled => "was cancelled",
                    LaneEnd::PipelineFault { .. } | LaneEnd::Complete { .. } => "faulted",
                },
                result.banner().unwrap_or("no usable report")
            )),
        };
        // More slices than the lane limit leaves room for: refused like any
        // other refinement that cannot stand, for the proposal.
        let room = self
            .settings
            .max_lanes
            .saturating_sub(record.plan.lanes.len());
        let refined = refined.and_then(|slices| {
            let proposed = slices.iter().filter(|s| !s.files.is_empty()).count();
            revu_stages::limits::within(|| "refined slices".into(), proposed, room, "--max-lanes")
                .map(|()| slices)
                .map_err(|e| e.to_string())
        });
        let paths = record.plan.reviewed_paths();
        let outcome = cover::after_grouping(&paths, grouping.proposal.clone(), refined);
        let repo = RepoContext::load(bundle.conventions.as_deref(), bundle.repo_config.as_deref())
            .unwrap_or_default()
            .with_nested(&bundle.nested_conventions);
        let mut next = record.in_phase(ReviewPhase::Reviewing);
        let plan = Arc::make_mut(&mut next.plan);
        place_domain_lanes(plan, &outcome.slices, &self.settings.plan(), &repo);
        plan.cover_fallback = outcome.fallback.clone();
        if let Some(g) = &mut plan.grouping {
            g.applied = true;
        }
        if let Some(why) = &outcome.fallback {
            tracing::info!(review_id = %record.id, why, "grouping refinement not used");
        }
        let lanes: Vec<LaneSpec> = next
            .plan
            .lanes
            .iter()
            .filter(|l| matches!(l.kind, LaneKind::Domain { .. }))
            .cloned()
            .collect();
        self.advance(record.phase, &next, &lanes, Vec::new()).await
    }

    /// Dispatches the planned lanes that never reached the queue: the
    /// version before review phases added a refined review's domain lanes
    /// one at a time, so one it left stopped midway has some undispatched.
    pub(super) async fn dispatch_undispatched(
        &self,
        record: &ReviewRecord,
    ) -> Result<(), ServiceError> {
        let attempts = self.backend.lane_attempts(&record.id).await?;
        for lane in record
            .plan
            .lanes
            .iter()
            .filter(|l| !attempts.contains_key(&l.id))
        {
            let mut job = record.plan.job(&record.id, lane, 1, record.deadline_ms);
            let publish = observe::publish_span(&mut job, &self.messaging);
            let sent = self.backend.dispatch_planned(&job).await?;
            observe::record_sent(&publish, sent);
            if sent {
                tracing::info!(review_id = %record.id, lane = %lane.id, engine = %lane.engine, "lane dispatched");
                self.announce_dispatch(&job).await?;
            }
        }
        Ok(())
    }

    /// Moves a review whose other lanes have all settled to Synthesizing,
    /// dispatching the synthesis lane with the findings the report would
    /// have now.
    pub(super) async fn start_synthesis(
        &self,
        record: &ReviewRecord,
        results: &LaneResults,
        bundle: &ReviewBundle,
    ) -> Result<MoveOutcome, ServiceError> {
        let Some(synthesis) = &record.plan.synthesis else {
            return Err(InternalError::NoSynthesis(record.id.clone()).into());
        };
        let (id, plan, settled, bundle) = (
            record.id.clone(),
            record.plan.clone(),
            results.clone(),
            bundle.clone(),
        );
        let findings = blocking(move || {
            let parsed = bundle.parsed_diff()?;
            Ok::<_, diff::DiffError>(assemble(&id, &plan, &settled, &parsed, &bundle).findings)
        })
        .await?
        .map_err(InternalError::StoredDiff)?;
        let lane = LaneSpec {
            id: SYNTHESIS_LANE.to_owned(),
            kind: LaneKind::Synthesis,
            engine: synthesis.engine.clone(),
            files: record
                .plan
                .facts
                .files
                .iter()
                .map(|f| f.path.clone())
                .collect(),
            guidance: Vec::new(),
        };
        let mut next = record.in_phase(ReviewPhase::Synthesizing);
        let plan = Arc::make_mut(&mut next.plan);
        plan.lanes.push(lane.clone());
        plan.synthesis = Some(SynthesisPlan {
            engine: synthesis.engine.clone(),
            findings,
        });
        let started = ProgressEvent::StageStarted {
            stage: Stage::Synthesis,
        };
        self.advance(record.phase, &next, &[lane], vec![started])
            .await
    }

    /// Moves review `id` to `to` from whatever phase it is in, with
    /// `events`. When another move wins first, looks again, at most once
    /// per phase (phases only move forward). Does nothing to a review
    /// already in `to`, at its end, or in a phase that does not move to
    /// `to`: that record comes back as [`Reached::Found`].
    pub(super) async fn move_to(
        &self,
        id: &ReviewId,
        to: ReviewPhase,
        events: &[ProgressEvent],
    ) -> Result<Reached, ServiceError> {
        for _ in ReviewPhase::ALL {
            let Some(record) = self.backend.load_record(id).await? else {
                return Err(ServiceError::NotFound(id.clone()));
            };
            if !record.phase.allows(to) {
                return Ok(Reached::Found(record));
            }
            let next = record.in_phase(to);
            match self
                .backend
                .move_phase(PhaseMove::new(record.phase, &next, events))
                .await?
            {
                MoveOutcome::Moved => return Ok(Reached::Moved(next)),
                MoveOutcome::Lost { current: None } => {
                    return Err(ServiceError::NotFound(id.clone()));
                }
                MoveOutcome::Lost { current: Some(_) } => {}
            }
        }
        Err(InternalError::PhaseRace(id.clone()).into())
    }

    /// Moves the review from `from` to `next` (its record after the move),
    /// dispatching the first attempt of each of `lanes` with the move;
    /// watchers hear of each dispatch, then `events`.
    pub(super) async fn advance(
        &self,
        from: ReviewPhase,
        next: &ReviewRecord,
        lanes: &[LaneSpec],
        events: Vec<ProgressEvent>,
    ) -> Result<MoveOutcome, ServiceError> {
        let mut jobs: Vec<LaneJob> = lanes
            .iter()
            .map(|lane| next.plan.job(&next.id, lane, 1, next.deadline_ms))
            .collect();
        let publish: Vec<tracing::Span> = jobs
            .iter_mut()
            .map(|job| observe::publish_span(job, &self.messaging))
            .collect();
        let mut announced: Vec<ProgressEvent> = jobs.iter().map(dispatched).collect();
        announced.extend(events);
        let moved = self
            .backend
            .move_phase(PhaseMove {
                jobs: &jobs,
                ..PhaseMove::new(from, next, &announced)
            })
            .await?;
        let sent = moved == MoveOutcome::Moved;
        for span in &publish {
            observe::record_sent(span, sent);
        }
        match moved {
            MoveOutcome::Moved => {
                tracing::info!(review_id = %next.id, %from, to = %next.phase, lanes = jobs.len(), "review moved on");
                for job in &jobs {
                    tracing::info!(review_id = %next.id, lane = %job.lane.id, engine = %job.lane.engine, "lane dispatched");
                }
            }
            MoveOutcome::Lost { current } => {
                tracing::debug!(review_id = %next.id, %from, to = %next.phase, ?current, "phase move lost");
            }
        }
        Ok(moved)
    }
}
