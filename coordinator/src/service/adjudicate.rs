//! Phase two of an adjudicated review: once every review lane settled, the
//! verified BLOCKER and IMPORTANT findings go to one adjudication lane, and
//! the review finalizes when that lane settles.

use super::{Coordinator, ServiceError, blocking};
use revu_common::adjudication::{ADJUDICATION_LANE, AdjudicationPlan};
use revu_common::bundle::ReviewBundle;
use revu_common::diff;
use revu_common::lane::{LaneKind, LaneSpec};
use revu_common::queue::{JobQueue, ReviewStore};
use revu_common::review::{LaneResults, ProgressEvent, ReviewRecord, Stage};
use revu_stages::assemble::adjudication_candidates;
use std::collections::BTreeSet;
use std::sync::Arc;

impl<B: JobQueue + ReviewStore> Coordinator<B> {
    /// Dispatches the adjudication lane of a review whose planned lanes have
    /// all settled, if the review is adjudicated and the lane is not yet
    /// planned. Returns whether the review now waits for that lane; `false`
    /// means it can finalize (not adjudicated, the lane already settled, or
    /// nothing to adjudicate).
    ///
    /// The candidates are a pure function of stored state, and
    /// [`ReviewStore::add_lane`] adds the lane at most once, so coordinators
    /// racing here (or a sweep repeating it) dispatch one job between them.
    pub(super) async fn start_adjudication(
        &self,
        record: &ReviewRecord,
        results: &LaneResults,
        bundle: &ReviewBundle,
    ) -> Result<bool, ServiceError> {
        let Some(adjudication) = &record.plan.adjudication else {
            return Ok(false);
        };
        if record.plan.lane(ADJUDICATION_LANE).is_some() {
            return Ok(false);
        }
        let (plan, settled, bundle) = (record.plan.clone(), results.clone(), bundle.clone());
        let candidates = blocking(move || {
            let parsed = bundle.parsed_diff()?;
            Ok::<_, diff::DiffError>(adjudication_candidates(&plan, &settled, &parsed, &bundle))
        })
        .await?
        .map_err(|e| ServiceError::Internal(format!("stored diff no longer parses: {e}")))?;
        if candidates.is_empty() {
            return Ok(false);
        }
        let files: BTreeSet<&str> = candidates.iter().map(|f| f.file.as_str()).collect();
        let lane = LaneSpec {
            id: ADJUDICATION_LANE.to_owned(),
            kind: LaneKind::Adjudication,
            engine: adjudication.engine.clone(),
            files: files.into_iter().map(str::to_owned).collect(),
            guidance: Vec::new(),
        };
        let mut next = record.clone();
        let plan = Arc::make_mut(&mut next.plan);
        plan.lanes.push(lane.clone());
        plan.adjudication = Some(AdjudicationPlan {
            engine: adjudication.engine.clone(),
            candidates: candidates.clone(),
        });
        if self.add_and_announce(&next, &lane).await? {
            tracing::info!(review_id = %record.id, candidates = candidates.len(), "adjudication dispatched");
            self.backend
                .push_event(
                    &record.id,
                    &ProgressEvent::StageStarted {
                        stage: Stage::Adjudication,
                    },
                )
                .await?;
        }
        // Not sent: another coordinator dispatched it, or the review ended.
        Ok(true)
    }
}
