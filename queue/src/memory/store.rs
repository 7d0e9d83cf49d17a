//! The review store half of the in-memory backend.

use super::MemoryBackend;
use crate::{CreateOutcome, MoveOutcome, PhaseMove, QueueError, QuotaCharge, ReviewStore, encode};
use revu_domain::bundle::ReviewBundle;
use revu_domain::lane::{LaneJob, ReviewId};
use revu_domain::review::{LaneAttempts, LaneResult, LaneResults, ProgressEvent, ReviewRecord};
use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

impl ReviewStore for MemoryBackend {
    async fn create_review(
        &self,
        record: &ReviewRecord,
        bundle: &Arc<ReviewBundle>,
        idempotency_key: Option<&str>,
        jobs: &[LaneJob],
    ) -> Result<CreateOutcome, QueueError> {
        let encoded = jobs
            .iter()
            .map(|j| Ok((j, encode("lane job", j)?)))
            .collect::<Result<Vec<_>, QueueError>>()?;
        let now = self.now_ms();
        let mut s = self.lock();
        if let Some(key) = idempotency_key {
            let scoped = (record.id.tenant().map(str::to_owned), key.to_owned());
            if let Some(existing) = s.idempotency.get(&scoped) {
                return Ok(CreateOutcome::Existing(existing.clone()));
            }
            s.idempotency.insert(scoped, record.id.clone());
        }
        s.records.insert(record.id.clone(), record.clone());
        s.bundles.insert(record.id.clone(), Arc::clone(bundle));
        s.active.insert(record.id.clone());
        for (job, raw) in encoded {
            s.attempts.entry(record.id.clone()).or_default().insert(
                job.lane.id.clone(),
                LaneAttempts {
                    awaited: 1,
                    gate_rejected: None,
                },
            );
            s.add_job(&job.lane.engine, raw, now);
        }
        drop(s);
        self.jobs_ready.notify_waiters();
        Ok(CreateOutcome::Created)
    }

    async fn idempotent_review(
        &self,
        tenant: Option<&str>,
        key: &str,
    ) -> Result<Option<ReviewId>, QueueError> {
        let scoped = (tenant.map(str::to_owned), key.to_owned());
        Ok(self.lock().idempotency.get(&scoped).cloned())
    }

    async fn charge_quota(
        &self,
        tenant: &str,
        name: &str,
        window_ms: u64,
        now_ms: u64,
        amount: u64,
        limit: u64,
    ) -> Result<QuotaCharge, QueueError> {
        let window = now_ms / window_ms.max(1);
        let mut s = self.lock();
        let entry = s
            .quotas
            .entry((tenant.to_owned(), name.to_owned()))
            .or_insert((window, 0));
        if entry.0 != window {
            *entry = (window, 0);
        }
        if entry.1.saturating_add(amount) > limit {
            return Ok(QuotaCharge::Refused { used: entry.1 });
        }
        entry.1 += amount;
        Ok(QuotaCharge::Charged { used: entry.1 })
    }

    async fn cached_lane(&self, key: &str) -> Result<Option<String>, QueueError> {
        let now = self.now_ms();
        let mut s = self.lock();
        s.lane_cache.retain(|_, (_, until)| *until > now);
        Ok(s.lane_cache.get(key).map(|(body, _)| body.clone()))
    }

    async fn cache_lane(&self, key: &str, body: &str, ttl: Duration) -> Result<(), QueueError> {
        let ttl = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX);
        let until = self.now_ms().saturating_add(ttl);
        self.lock()
            .lane_cache
            .insert(key.to_owned(), (body.to_owned(), until));
        Ok(())
    }

    async fn load_record(&self, id: &ReviewId) -> Result<Option<ReviewRecord>, QueueError> {
        Ok(self.lock().records.get(id).cloned())
    }

    async fn save_record(&self, record: &ReviewRecord) -> Result<(), QueueError> {
        let mut s = self.lock();
        let Some(stored) = s.records.get_mut(&record.id) else {
            return Ok(());
        };
        *stored = ReviewRecord {
            phase: stored.phase,
            ..record.clone()
        };
        Ok(())
    }

    async fn move_phase(&self, step: PhaseMove<'_>) -> Result<MoveOutcome, QueueError> {
        step.check()?;
        let jobs = step
            .jobs
            .iter()
            .map(|j| Ok((j, encode("lane job", j)?)))
            .collect::<Result<Vec<_>, QueueError>>()?;
        let id = &step.record.id;
        let now = self.now_ms();
        {
            let mut s = self.lock();
            let Some(stored) = s.records.get_mut(id) else {
                return Ok(MoveOutcome::Lost { current: None });
            };
            if stored.phase != step.from {
                return Ok(MoveOutcome::Lost {
                    current: Some(stored.phase),
                });
            }
            *stored = step.record.clone();
            for (job, raw) in jobs {
                s.attempts.entry(id.clone()).or_default().insert(
                    job.lane.id.clone(),
                    LaneAttempts {
                        awaited: job.attempt,
                        gate_rejected: None,
                    },
                );
                s.add_job(&job.lane.engine, raw, now);
            }
            if let Some(report) = step.report {
                s.reports.insert(id.clone(), Arc::new(report));
            }
            if step.record.phase.is_terminal() {
                s.active.remove(id);
            }
            s.add_events(id, step.events);
        }
        if !step.jobs.is_empty() {
            self.jobs_ready.notify_waiters();
        }
        self.events_ready.notify_waiters();
        Ok(MoveOutcome::Moved)
    }

    async fn load_bundle(
        &self,
        id: &ReviewId,
    ) -> Result<Option<std::sync::Arc<ReviewBundle>>, QueueError> {
        Ok(self.lock().bundles.get(id).cloned())
    }

    async fn settle_lane(
        &self,
        id: &ReviewId,
        result: &Arc<LaneResult>,
        event: &ProgressEvent,
    ) -> Result<bool, QueueError> {
        let mut s = self.lock();
        if !s.records.contains_key(id) {
            return Ok(false);
        }
        let lanes = s.lanes.entry(id.clone()).or_default();
        if lanes.contains_key(&result.lane_id) {
            return Ok(false);
        }
        lanes.insert(result.lane_id.clone(), Arc::clone(result));
        s.events.entry(id.clone()).or_default().push(event.clone());
        drop(s);
        self.events_ready.notify_waiters();
        Ok(true)
    }

    async fn lane_results(&self, id: &ReviewId) -> Result<LaneResults, QueueError> {
        Ok(self.lock().lanes.get(id).cloned().unwrap_or_default())
    }

    async fn settled_count(&self, id: &ReviewId) -> Result<usize, QueueError> {
        Ok(self.lock().lanes.get(id).map_or(0, |lanes| lanes.len()))
    }

    async fn lane_settled(&self, id: &ReviewId, lane_id: &str) -> Result<bool, QueueError> {
        Ok(self
            .lock()
            .lanes
            .get(id)
            .is_some_and(|lanes| lanes.contains_key(lane_id)))
    }

    async fn advance_and_dispatch(
        &self,
        job: &LaneJob,
        from: u32,
        gate_rejection: bool,
    ) -> Result<bool, QueueError> {
        let raw = encode("lane job", job)?;
        let now = self.now_ms();
        let mut s = self.lock();
        let lanes = s.attempts.entry(job.review_id.clone()).or_default();
        let Some(lane) = lanes.get_mut(&job.lane.id).filter(|l| l.awaited == from) else {
            return Ok(false);
        };
        if gate_rejection {
            if lane.gate_rejected.is_some() {
                return Ok(false);
            }
            lane.gate_rejected = Some(from);
        }
        lane.awaited = job.attempt;
        if job.not_before_ms > now {
            s.delay_job(&job.lane.engine, raw, job.not_before_ms);
        } else {
            s.add_job(&job.lane.engine, raw, now);
        }
        drop(s);
        self.jobs_ready.notify_waiters();
        Ok(true)
    }

    async fn dispatch_planned(&self, job: &LaneJob) -> Result<bool, QueueError> {
        let raw = encode("lane job", job)?;
        let now = self.now_ms();
        let mut s = self.lock();
        if !s.active.contains(&job.review_id) {
            return Ok(false);
        }
        let attempts = s.attempts.entry(job.review_id.clone()).or_default();
        if attempts.contains_key(&job.lane.id) {
            return Ok(false);
        }
        attempts.insert(
            job.lane.id.clone(),
            LaneAttempts {
                awaited: job.attempt,
                gate_rejected: None,
            },
        );
        s.add_job(&job.lane.engine, raw, now);
        drop(s);
        self.jobs_ready.notify_waiters();
        Ok(true)
    }

    async fn charge_tokens(&self, id: &ReviewId, tokens: i64) -> Result<u64, QueueError> {
        let mut s = self.lock();
        let spent = s.tokens_spent.entry(id.clone()).or_default();
        *spent = spent.saturating_add(tokens);
        Ok(u64::try_from(*spent).unwrap_or(0))
    }

    async fn lane_attempts(
        &self,
        id: &ReviewId,
    ) -> Result<BTreeMap<String, LaneAttempts>, QueueError> {
        Ok(self.lock().attempts.get(id).cloned().unwrap_or_default())
    }

    async fn load_report(&self, id: &ReviewId) -> Result<Option<String>, QueueError> {
        Ok(self.report(id).map(|json| json.to_string()))
    }

    async fn bump_stat(&self, name: &str, by: u64) -> Result<(), QueueError> {
        *self.lock().stats.entry(name.to_owned()).or_default() += by;
        Ok(())
    }

    async fn stats(&self) -> Result<BTreeMap<String, u64>, QueueError> {
        Ok(self.lock().stats.clone())
    }

    async fn active_count(&self) -> Result<usize, QueueError> {
        Ok(self.lock().active.len())
    }

    async fn active_reviews(&self) -> Result<Vec<ReviewId>, QueueError> {
        Ok(self.lock().active.iter().cloned().collect())
    }

    async fn push_event(&self, id: &ReviewId, event: &ProgressEvent) -> Result<(), QueueError> {
        self.push_events(id, std::slice::from_ref(event)).await
    }

    async fn push_events(&self, id: &ReviewId, events: &[ProgressEvent]) -> Result<(), QueueError> {
        self.lock().add_events(id, events);
        self.events_ready.notify_waiters();
        Ok(())
    }

    fn read_events(
        &self,
        id: &ReviewId,
        after: &str,
        wait: Duration,
    ) -> impl Future<Output = Result<Vec<(String, ProgressEvent)>, QueueError>> + Send {
        // Event ids are 1-based positions; "0" reads from the start.
        let from = after.parse::<usize>().unwrap_or(0);
        let id = id.clone();
        async move {
            let got = self
                .wait_for(&self.events_ready, wait, |s| {
                    let events = s.events.get(&id)?;
                    (events.len() > from).then(|| {
                        events
                            .iter()
                            .enumerate()
                            .skip(from)
                            .map(|(i, e)| ((i + 1).to_string(), e.clone()))
                            .collect::<Vec<_>>()
                    })
                })
                .await;
            Ok(got.unwrap_or_default())
        }
    }
}
