//! Submission: stages 1–4, then dispatch.

use super::{Coordinator, ServiceError, blocking, observe};
use revu_domain::bundle::{APART_MIN_BYTES, OwnersFile, Patch, ReviewBundle};
use revu_domain::clock::Clock;
use revu_domain::lane::{LaneJob, LaneKind, ReviewId};
use revu_domain::report::Rigor;
use revu_domain::review::{ProgressEvent, ReviewPlan, ReviewRecord, Stage};
use revu_domain::telemetry::names::{attr, span};
use revu_queue::{CreateOutcome, JobQueue, ReviewStore};
use revu_stages::limits::within;
use revu_stages::prepare::{PlanRequest, prepare};
use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Instant;
use tracing::Instrument;
use tracing::field::Empty;

/// A review request, already off the wire.
#[derive(Debug, Clone, Default)]
pub struct Submission {
    pub diff: Vec<u8>,
    /// Head-side contents of changed files, byte-exact.
    pub head_files: BTreeMap<String, Vec<u8>>,
    pub intent: String,
    /// Where the intent came from.
    pub intent_sources: Vec<revu_domain::intent::IntentSource>,
    pub rigor: Option<Rigor>,
    pub labels: Vec<String>,
    pub idempotency_key: Option<String>,
    /// The repo's `REVIEW.md`.
    pub conventions: Option<String>,
    /// `REVIEW.md` files below the root, by directory (`pkg/api`).
    pub nested_conventions: BTreeMap<String, String>,
    /// The repo's `CODEOWNERS`.
    pub codeowners: Option<OwnersFile>,
    /// The repo's packages that hold changed files.
    pub packages: Vec<revu_domain::packages::Package>,
    /// The repo's `revu.toml`.
    pub repo_config: Option<String>,
    /// The tenant submitting (none without authentication).
    pub tenant: Option<String>,
    /// No lane may reuse a cached report.
    pub no_cache: bool,
    /// The client's code index of the change, and its size on the wire.
    pub code_index: Option<revu_domain::code_index::CodeIndex>,
    pub code_index_bytes: usize,
}

impl<B: JobQueue + ReviewStore> Coordinator<B> {
    /// Accepts a submission: plans it, stores it, dispatches its lanes.
    /// Returns the review id and whether it already existed.
    pub async fn submit(&self, sub: Submission) -> Result<(ReviewId, bool), ServiceError> {
        self.within_limits(&sub)?;
        let inflight = self.backend.active_count().await?;
        if inflight >= self.settings.max_inflight {
            return Err(ServiceError::Busy {
                inflight,
                limit: self.settings.max_inflight,
            });
        }
        if let Some(tenant) = &sub.tenant
            && let Some(existing) = self
                .admit(tenant, sub.idempotency_key.as_deref(), sub.diff.len())
                .await?
        {
            observe::record_review(&tracing::Span::current(), &existing, true);
            return Ok((existing, true));
        }
        let request = PlanRequest {
            rigor: sub.rigor,
            labels: sub.labels.clone(),
            review_md: sub.conventions.clone(),
            nested_review_md: sub.nested_conventions.clone(),
            repo_config: sub.repo_config.clone(),
            no_cache: sub.no_cache,
            packages: sub.packages.clone(),
        };
        let (settings, grouper) = (self.settings.plan(), self.grouper.clone());
        // Whether the diff is text is checked once, here, off the runtime
        // when that takes a while.
        let diff: Patch = if sub.diff.len() >= APART_MIN_BYTES {
            blocking(move || Patch::from(sub.diff)).await?
        } else {
            Patch::from(sub.diff)
        };
        let bundle = Arc::new(ReviewBundle {
            diff,
            head_files: sub.head_files,
            intent: sub.intent,
            intent_sources: sub.intent_sources,
            conventions: sub.conventions,
            nested_conventions: sub.nested_conventions,
            codeowners: sub.codeowners,
            repo_config: sub.repo_config,
            code_index: sub.code_index,
            ..ReviewBundle::default()
        });
        if self.parse_ahead && bundle.diff.len() >= APART_MIN_BYTES {
            // The lanes of this process read the parsed diff: parse it on
            // another thread while this one plans.
            let ahead = Arc::clone(&bundle);
            drop(tokio::task::spawn_blocking(move || {
                let _ = ahead.parsed_diff();
            }));
        }
        let prepare_span = tracing::info_span!(
            span::PREPARE,
            { attr::LANE_COUNT } = Empty,
            { attr::FILES_CHANGED } = Empty,
            { attr::RISK_TIER } = Empty,
        );
        let started = Instant::now();
        let inner_span = prepare_span.clone();
        let planned = Arc::clone(&bundle);
        let plan = blocking(move || {
            // Entered on the blocking thread so the stage spans nest under it.
            // Only the plan is kept: the facts are freed here, off the
            // runtime, before the review is stored.
            inner_span
                .in_scope(|| prepare(&planned.diff, &settings, &grouper, &request))
                .map(|prepared| prepared.plan)
        })
        .instrument(prepare_span.clone())
        .await?;
        let plan = plan?;
        self.metrics.stage("prepare", started.elapsed());
        prepare_span.record(attr::LANE_COUNT, plan.lanes.len());
        prepare_span.record(attr::FILES_CHANGED, plan.facts.files_changed);
        prepare_span.record(attr::RISK_TIER, tracing::field::debug(plan.facts.risk_tier));
        drop(prepare_span);
        let id = self
            .backend
            .new_review_id(sub.tenant.as_deref(), sub.idempotency_key.as_deref());
        let created_ms = self.clock.now_ms();
        let deadline_ms = created_ms.saturating_add(
            u64::try_from(self.settings.review_timeout().as_millis()).unwrap_or(u64::MAX),
        );
        let record = ReviewRecord {
            // Later work on the review joins the trace of the request.
            traceparent: revu_runtime::telemetry::traceparent(&tracing::Span::current()),
            idempotency_key: sub.idempotency_key.clone(),
            ..ReviewRecord::running(id.clone(), plan, created_ms, deadline_ms)
        };
        let dispatch_span = tracing::info_span!(
            span::DISPATCH,
            { attr::REVIEW_ID } = %id,
            { attr::LANE_COUNT } = record.plan.lanes.len(),
        );
        let started = Instant::now();
        let mut jobs: Vec<LaneJob> = record
            .plan
            .lanes
            .iter()
            .map(|lane| record.plan.job(&id, lane, 1, deadline_ms))
            .collect();
        // Watchers hear of the lanes in plan order; workers take them
        // largest first (see `dispatch_order`).
        let announced: Vec<ProgressEvent> = jobs.iter().map(dispatched).collect();
        dispatch_order(&mut jobs, &record.plan);
        let publish_spans: Vec<tracing::Span> = dispatch_span.in_scope(|| {
            jobs.iter_mut()
                .map(|job| observe::publish_span(job, &self.messaging))
                .collect()
        });
        // Stored and dispatched in one step: an accepted review always has
        // its lanes on the queue.
        let created = self
            .backend
            .create_review(&record, &bundle, sub.idempotency_key.as_deref(), &jobs)
            .instrument(dispatch_span.clone())
            .await?;
        let sent = matches!(created, CreateOutcome::Created);
        for s in &publish_spans {
            observe::record_sent(s, sent);
        }
        drop(publish_spans);
        match created {
            CreateOutcome::Existing(existing) => {
                observe::record_review(&tracing::Span::current(), &existing, true);
                return Ok((existing, true));
            }
            CreateOutcome::Created => {
                observe::record_review(&tracing::Span::current(), &id, false);
                self.metrics.submitted(sub.tenant.as_deref());
            }
        }
        tracing::info!(review_id = %id, lanes = record.plan.lanes.len(), "review accepted");
        // The stages before dispatch ran before the review was stored;
        // their events go out together, one round trip.
        let mut events: Vec<ProgressEvent> = [
            Stage::Facts,
            Stage::Grouping,
            Stage::ExactCover,
            Stage::Plan,
        ]
        .into_iter()
        .map(|stage| ProgressEvent::StageFinished { stage })
        .collect();
        events.push(ProgressEvent::StageStarted {
            stage: Stage::Dispatch,
        });
        events.extend(announced);
        events.push(ProgressEvent::StageFinished {
            stage: Stage::Dispatch,
        });
        self.backend.push_events(&id, &events).await?;
        self.metrics.stage("dispatch", started.elapsed());
        drop(dispatch_span);
        if record.plan.lanes.is_empty() {
            self.try_finalize(&id).await?;
        }
        Ok((id, false))
    }

    /// The request-size limits a submission must be within.
    fn within_limits(&self, sub: &Submission) -> Result<(), ServiceError> {
        let s = &self.settings;
        within(
            || "diff bytes".into(),
            sub.diff.len(),
            s.max_diff_bytes,
            "--max-diff-bytes",
        )?;
        let mut total = 0usize;
        for (path, text) in &sub.head_files {
            within(
                || format!("head file {path} bytes"),
                text.len(),
                s.max_head_file_bytes,
                "--max-head-file-bytes",
            )?;
            total = total.saturating_add(text.len());
        }
        within(
            || "head file bytes in all".into(),
            total,
            s.max_head_bytes,
            "--max-head-bytes",
        )?;
        within(
            || "code index bytes".into(),
            sub.code_index_bytes,
            s.max_index_bytes,
            "--max-index-bytes",
        )?;
        Ok(())
    }

    /// Tells watchers a lane attempt is on the queue.
    pub(super) async fn announce_dispatch(&self, job: &LaneJob) -> Result<(), ServiceError> {
        self.backend
            .push_event(&job.review_id, &dispatched(job))
            .await?;
        Ok(())
    }
}

/// Puts the domain lanes first, the one with the most added lines first
/// of them, and the other lanes after them in plan order. Workers take a
/// review's lanes in the order they were published, and the rules' time
/// goes with the lines they read: the largest lane started last would run
/// on alone while every other lane is done. The specialist lanes read
/// what the domain lanes worked out on each file, so they go last.
fn dispatch_order(jobs: &mut [LaneJob], plan: &ReviewPlan) {
    let added: HashMap<&str, u64> = plan
        .facts
        .files
        .iter()
        .map(|f| (f.path.as_str(), u64::from(f.added)))
        .collect();
    jobs.sort_by_cached_key(|job| match job.lane.kind {
        LaneKind::Domain { .. } => {
            let size: u64 = job
                .lane
                .files
                .iter()
                .filter_map(|f| added.get(f.as_str()))
                .sum();
            (0, Reverse(size))
        }
        _ => (1, Reverse(0)),
    });
}

/// The event that says `job` is on the queue.
pub(super) fn dispatched(job: &LaneJob) -> ProgressEvent {
    ProgressEvent::LaneDispatched {
        lane_id: job.lane.id.clone(),
        attempt: job.attempt,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use revu_domain::diff::FileStatus;
    use revu_domain::finding::Dimension;
    use revu_domain::lane::LaneSpec;
    use revu_domain::report::{FactsSummary, FileSummary};

    fn lane(id: &str, kind: LaneKind, files: &[&str]) -> LaneSpec {
        LaneSpec {
            id: id.into(),
            kind,
            engine: "rules".into(),
            files: files.iter().map(|f| (*f).to_owned()).collect(),
            guidance: Vec::new(),
        }
    }

    fn domain(id: &str, files: &[&str]) -> LaneSpec {
        lane(id, LaneKind::Domain { domain: id.into() }, files)
    }

    #[test]
    fn the_largest_domain_lane_is_taken_first_and_the_specialists_last() {
        let sizes = [("a.py", 10), ("b.py", 400), ("c.py", 30), ("d.py", 5)];
        let specialist = |d| lane("s", LaneKind::Specialist { dimension: d }, &[]);
        let plan = ReviewPlan {
            lanes: vec![
                domain("small", &["a.py"]),
                specialist(Dimension::Security),
                domain("large", &["b.py", "d.py"]),
                domain("middle", &["c.py", "a.py"]),
                specialist(Dimension::Testing),
            ],
            facts: FactsSummary {
                files: sizes
                    .iter()
                    .map(|&(path, added)| FileSummary {
                        path: path.into(),
                        old_path: None,
                        status: FileStatus::Modified,
                        binary: false,
                        added,
                        removed: 0,
                        slice: String::new(),
                    })
                    .collect(),
                ..FactsSummary::default()
            },
            ..ReviewPlan::default()
        };
        let id = ReviewId::new();
        let mut jobs: Vec<LaneJob> = plan.lanes.iter().map(|l| plan.job(&id, l, 1, 0)).collect();
        dispatch_order(&mut jobs, &plan);
        let order: Vec<String> = jobs
            .iter()
            .map(|j| match &j.lane.kind {
                LaneKind::Specialist { dimension } => format!("{dimension:?}"),
                _ => j.lane.id.clone(),
            })
            .collect();
        assert_eq!(order, ["large", "middle", "small", "Security", "Testing"]);
    }
}
