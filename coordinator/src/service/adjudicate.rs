//! Phase two of an adjudicated review: once every review lane settled, the
//! verified BLOCKER and IMPORTANT findings go to one adjudication lane
//! (the move from Reviewing to Adjudicating), with a challenge lane per
//! BLOCKER when the plan asks for second opinions, and the review goes on
//! when those lanes settle.

use super::{Coordinator, InternalError, ServiceError, blocking};
use revu_domain::adjudication::{ADJUDICATION_LANE, AdjudicationPlan, challenge_lane};
use revu_domain::bundle::ReviewBundle;
use revu_domain::diff;
use revu_domain::finding::{Finding, Severity};
use revu_domain::lane::{LaneKind, LaneSpec};
use revu_domain::review::{LaneResults, ProgressEvent, ReviewPhase, ReviewRecord, Stage};
use revu_queue::{JobQueue, MoveOutcome, ReviewStore};
use revu_stages::assemble::adjudication_candidates;
use std::collections::BTreeSet;
use std::sync::Arc;

impl<B: JobQueue + ReviewStore> Coordinator<B> {
    /// The findings an adjudicated review's adjudication lane would re-try
    /// now that its review lanes settled; none for a review that is not
    /// adjudicated. A pure function of stored state, so every coordinator
    /// finds the same.
    pub(super) async fn adjudication_candidates(
        &self,
        record: &ReviewRecord,
        results: &LaneResults,
        bundle: &ReviewBundle,
    ) -> Result<Vec<Finding>, ServiceError> {
        if record.plan.adjudication.is_none() {
            return Ok(Vec::new());
        }
        let (plan, settled, bundle) = (record.plan.clone(), results.clone(), bundle.clone());
        blocking(move || {
            let parsed = bundle.parsed_diff()?;
            Ok::<_, diff::DiffError>(adjudication_candidates(&plan, &settled, &parsed, &bundle))
        })
        .await?
        .map_err(|e| InternalError::StoredDiff(e).into())
    }

    /// Moves a review whose review lanes all settled to Adjudicating,
    /// dispatching the adjudication lane with `candidates`.
    pub(super) async fn start_adjudication(
        &self,
        record: &ReviewRecord,
        candidates: Vec<Finding>,
    ) -> Result<MoveOutcome, ServiceError> {
        let Some(adjudication) = &record.plan.adjudication else {
            return Err(InternalError::NotAdjudicated(record.id.clone()).into());
        };
        let files: BTreeSet<&str> = candidates.iter().map(|f| f.file.as_str()).collect();
        let lane = LaneSpec {
            id: ADJUDICATION_LANE.to_owned(),
            kind: LaneKind::Adjudication,
            engine: adjudication.engine.clone(),
            files: files.into_iter().map(str::to_owned).collect(),
            guidance: Vec::new(),
        };
        // A second opinion on each BLOCKER, in a lane of its own.
        let challenged: Vec<usize> = if adjudication.challenge {
            candidates
                .iter()
                .enumerate()
                .filter(|(_, f)| f.severity == Severity::Blocker)
                .map(|(i, _)| i)
                .collect()
        } else {
            Vec::new()
        };
        let challengers = challenged.iter().map(|&i| LaneSpec {
            id: challenge_lane(i),
            kind: LaneKind::Challenge,
            engine: adjudication.engine.clone(),
            files: vec![candidates[i].file.clone()],
            guidance: Vec::new(),
        });
        let lanes: Vec<LaneSpec> = std::iter::once(lane).chain(challengers).collect();
        let count = candidates.len();
        let mut next = record.in_phase(ReviewPhase::Adjudicating);
        let plan = Arc::make_mut(&mut next.plan);
        plan.lanes.extend(lanes.iter().cloned());
        plan.adjudication = Some(AdjudicationPlan {
            engine: adjudication.engine.clone(),
            candidates,
            challenge: adjudication.challenge,
            challenged,
        });
        let started = ProgressEvent::StageStarted {
            stage: Stage::Adjudication,
        };
        let moved = self
            .advance(record.phase, &next, &lanes, vec![started])
            .await?;
        if moved == MoveOutcome::Moved {
            tracing::info!(review_id = %record.id, candidates = count, "adjudication dispatched");
        }
        Ok(moved)
    }
}
