//! A review's phase on Redis: a `phase` field of the review hash beside its
//! record, which one script compares and sets ([`MOVE_PHASE`]) together
//! with everything a move writes.

use super::scripts::MOVE_PHASE;
use super::store::EVENTS_MAX;
use super::{RedisBackend, layout};
use crate::{Corruption, MoveOutcome, PhaseMove, QueueError, encode};
use revu_domain::review::{ReviewPhase, ReviewRecord};

impl RedisBackend {
    /// [`crate::ReviewStore::move_phase`] on Redis.
    pub(super) async fn move_phase_now(
        &self,
        step: PhaseMove<'_>,
    ) -> Result<MoveOutcome, QueueError> {
        step.check()?;
        let record = step.record;
        let id = &record.id;
        let shard = layout::shard_of(id);
        let hash = self.layout.review(id, "");
        let idempotency = match &record.idempotency_key {
            Some(key) => self.layout.idempotency(id.tenant(), key),
            None => hash.clone(),
        };
        let mut call = MOVE_PHASE.prepare_invoke();
        call.key(&hash)
            .key(self.layout.review(id, "attempts"))
            .key(self.layout.review(id, "events"))
            .key(self.layout.sharded(shard, "active"))
            .key(self.layout.sharded(shard, "engines"))
            .key(self.layout.ready(shard))
            .key(self.layout.review(id, "diff"))
            .key(self.layout.review(id, "lanes"))
            .key(idempotency);
        for job in step.jobs {
            call.key(self.layout.jobs(shard, &job.lane.engine));
        }
        let ends = record.phase.is_terminal();
        call.arg(&id.0)
            .arg(step.from.as_str())
            .arg(record.phase.as_str())
            .arg(encode("review record", record)?)
            .arg(step.report.unwrap_or_default())
            .arg(if ends { "1" } else { "0" })
            .arg(
                self.retention_secs
                    .map(|s| s.to_string())
                    .unwrap_or_default(),
            )
            .arg(EVENTS_MAX)
            .arg(step.events.len());
        for event in step.events {
            call.arg(encode("progress event", event)?);
        }
        for job in step.jobs {
            call.arg(&job.lane.id)
                .arg(&job.lane.engine)
                .arg(encode("lane job", job)?);
        }
        let mut conn = self.conn.clone();
        let (moved, current): (i64, String) = call.invoke_async(&mut conn).await?;
        if moved == 1 {
            return Ok(MoveOutcome::Moved);
        }
        let current = match current.as_str() {
            "" => None,
            name => Some(stored_phase(id, name)?),
        };
        Ok(MoveOutcome::Lost { current })
    }
}

/// The phase stored as `name` for review `id`.
pub(super) fn stored_phase(
    id: &revu_domain::lane::ReviewId,
    name: &str,
) -> Result<ReviewPhase, QueueError> {
    ReviewPhase::parse(name).ok_or_else(|| {
        Corruption::UnknownPhase {
            review: id.clone(),
            name: name.to_owned(),
        }
        .into()
    })
}

/// `record` as the store holds it: in the phase its hash's `phase` field
/// names, or, for a review stored before reviews had a phase (no field),
/// in the phase its record implies.
pub(super) fn with_stored_phase(
    mut record: ReviewRecord,
    field: Option<&str>,
) -> Result<ReviewRecord, QueueError> {
    if let Some(name) = field {
        record.phase = stored_phase(&record.id, name)?;
    }
    Ok(record)
}
