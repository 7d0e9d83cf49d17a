//! The optional lanes around the review lanes: the grouping lane, whose
//! slices become the domain lanes once it settles, and the synthesis lane,
//! dispatched once every other lane settled, whose walkthrough the report
//! carries. Neither has a say over findings or verdict: a failed grouping
//! lane leaves the deterministic proposal in place, a failed synthesis lane
//! leaves the report without a walkthrough.

use super::{Coordinator, ServiceError, blocking, observe};
use crate::prepare::place_domain_lanes;
use revu_common::bundle::ReviewBundle;
use revu_common::diff;
use revu_common::lane::{LaneJob, LaneKind, LaneSpec};
use revu_common::queue::{JobQueue, ReviewStore};
use revu_common::report::LaneOutcome;
use revu_common::review::{
    GROUPING_LANE, LaneResults, ProgressEvent, ReviewRecord, SYNTHESIS_LANE, Stage, SynthesisPlan,
};
use revu_stages::assemble::assemble;
use revu_stages::conventions::RepoContext;
use revu_stages::cover;
use std::sync::Arc;
use tracing::Instrument;

impl<B: JobQueue + ReviewStore> Coordinator<B> {
    /// Plans and dispatches the domain lanes of a refined review whose
    /// grouping lane settled. Safe to repeat: the slices are a pure function
    /// of stored state, each lane is added at most once, and
    /// [`Self::dispatch_undispatched`] sends the lanes a stopped
    /// coordinator did not reach.
    pub(super) async fn plan_domain_lanes(
        &self,
        record: &ReviewRecord,
        results: &LaneResults,
        bundle: &ReviewBundle,
    ) -> Result<(), ServiceError> {
        let (Some(grouping), Some(result)) = (&record.plan.grouping, results.get(GROUPING_LANE))
        else {
            return Ok(());
        };
        let refined = match (&result.outcome, &result.body) {
            (LaneOutcome::Complete, Some(body)) => Ok(body.slices.clone()),
            _ => Err(format!(
                "the grouping lane {}: {}",
                match result.outcome {
                    LaneOutcome::Incomplete => "is incomplete",
                    LaneOutcome::Cancelled => "was cancelled",
                    LaneOutcome::PipelineFault | LaneOutcome::Complete => "faulted",
                },
                result.banner.as_deref().unwrap_or("no usable report")
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
            crate::limits::within(|| "refined slices".into(), proposed, room, "--max-lanes")
                .map(|()| slices)
                .map_err(|e| e.to_string())
        });
        let paths = record.plan.reviewed_paths();
        let outcome = cover::after_grouping(&paths, grouping.proposal.clone(), refined);
        let repo = RepoContext::load(bundle.conventions.as_deref(), bundle.repo_config.as_deref())
            .unwrap_or_default()
            .with_nested(&bundle.nested_conventions);
        let mut next = record.clone();
        let plan = Arc::make_mut(&mut next.plan);
        place_domain_lanes(plan, &outcome.slices, &self.settings, &repo);
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
        for lane in &lanes {
            self.add_and_announce(&next, lane).await?;
        }
        Ok(())
    }

    /// Dispatches the planned lanes that never reached the queue (a
    /// coordinator stopped between adding the first and the last).
    pub(super) async fn dispatch_undispatched(
        &self,
        record: &ReviewRecord,
        results: &LaneResults,
    ) -> Result<(), ServiceError> {
        if record
            .plan
            .lanes
            .iter()
            .all(|l| results.contains_key(&l.id))
        {
            return Ok(());
        }
        let attempts = self.backend.lane_attempts(&record.id).await?;
        for lane in record
            .plan
            .lanes
            .iter()
            .filter(|l| !attempts.contains_key(&l.id) && !results.contains_key(&l.id))
        {
            self.add_and_announce(record, lane).await?;
        }
        Ok(())
    }

    /// Dispatches the synthesis lane of a review whose other lanes have
    /// all settled, with the findings the report would have now. Returns
    /// whether the review now waits for it.
    pub(super) async fn start_synthesis(
        &self,
        record: &ReviewRecord,
        results: &LaneResults,
        bundle: &ReviewBundle,
    ) -> Result<bool, ServiceError> {
        let Some(synthesis) = &record.plan.synthesis else {
            return Ok(false);
        };
        if record.plan.lane(SYNTHESIS_LANE).is_some() {
            return Ok(false);
        }
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
        .map_err(|e| ServiceError::Internal(format!("stored diff no longer parses: {e}")))?;
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
        let mut next = record.clone();
        let plan = Arc::make_mut(&mut next.plan);
        plan.lanes.push(lane.clone());
        plan.synthesis = Some(SynthesisPlan {
            engine: synthesis.engine.clone(),
            findings,
        });
        if self.add_and_announce(&next, &lane).await? {
            self.backend
                .push_event(
                    &record.id,
                    &ProgressEvent::StageStarted {
                        stage: Stage::Synthesis,
                    },
                )
                .await?;
        }
        Ok(true)
    }

    /// Adds `lane` of `next` to the review and its first attempt to the
    /// queue, at most once; tells watchers when this call sent it.
    pub(super) async fn add_and_announce(
        &self,
        next: &ReviewRecord,
        lane: &LaneSpec,
    ) -> Result<bool, ServiceError> {
        let mut job: LaneJob = next.plan.job(&next.id, lane, 1, next.deadline_ms);
        let publish = observe::publish_span(&mut job, &self.messaging);
        let sent = self
            .backend
            .add_lane(next, &job)
            .instrument(publish.clone())
            .await?;
        observe::record_sent(&publish, sent);
        if sent {
            tracing::info!(review_id = %next.id, lane = %lane.id, engine = %lane.engine, "lane dispatched");
            self.announce_dispatch(&job).await?;
        }
        Ok(sent)
    }
}
