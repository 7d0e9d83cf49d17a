//! Finalization: once every lane settled, verify, decide and store the report.

use super::{Coordinator, ServiceError, blocking};
use crate::assemble::assemble;
use crate::stages::render;
use revu_common::diff;
use revu_common::lane::ReviewId;
use revu_common::queue::{JobQueue, ReviewStore};
use revu_common::review::ProgressEvent;

impl<B: JobQueue + ReviewStore> Coordinator<B> {
    /// Finalizes the review if it is running and every planned lane settled.
    /// Safe to call repeatedly and from several coordinators: the report is
    /// a pure function of stored state, so a second writer writes the same.
    pub(super) async fn try_finalize(&self, id: &ReviewId) -> Result<(), ServiceError> {
        let Some(record) = self.backend.load_record(id).await? else {
            return Err(ServiceError::NotFound(id.clone()));
        };
        if record.state.is_terminal() {
            return Ok(());
        }
        let results = self.backend.lane_results(id).await?;
        if record
            .plan
            .lanes
            .iter()
            .any(|l| !results.contains_key(&l.id))
        {
            return Ok(());
        }
        let Some(bundle) = self.backend.load_bundle(id).await? else {
            return Err(ServiceError::Internal(format!(
                "review {id} has no stored bundle"
            )));
        };
        self.backend
            .push_event(
                id,
                &ProgressEvent::StageStarted {
                    stage: "verify".into(),
                },
            )
            .await?;
        let plan = record.plan.clone();
        let review_id = id.clone();
        let (report, json) = blocking(move || {
            let parsed = diff::parse(&bundle.diff).map_err(|e| e.to_string())?;
            let report = assemble(&review_id, &plan, &results, &parsed, &bundle);
            let json = render::json(&report);
            Ok::<_, String>((report, json))
        })
        .await?
        .map_err(|e| ServiceError::Internal(format!("stored diff no longer parses: {e}")))?;
        self.backend.finish_review(&record, &json).await?;
        self.backend
            .push_event(
                id,
                &ProgressEvent::StageFinished {
                    stage: "render".into(),
                },
            )
            .await?;
        tracing::info!(
            review_id = %id,
            verdict = %report.verdict,
            gate = %report.gate,
            findings = report.findings.len(),
            "review finished"
        );
        self.backend
            .push_event(
                id,
                &ProgressEvent::Verdict {
                    verdict: report.verdict.as_str().to_owned(),
                    gate: report.gate.as_str().to_owned(),
                },
            )
            .await?;
        Ok(())
    }
}
