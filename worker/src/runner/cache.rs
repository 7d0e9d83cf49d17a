//! The lane result cache: a lane whose input is identical to one already
//! reviewed (the same engine at the same version, prompt and settings; the
//! same files, patches and head contents; the same guidance and intent)
//! reuses the stored report instead of running the engine again, so a CI
//! re-run after one more commit re-runs only the lanes whose input changed.
//!
//! Keys are SHA-256 digests of that input, per tenant. Only a first
//! attempt of a domain or specialist lane reads the cache: a retry, a lane
//! the completeness gate sent back and the phase lanes (adjudication,
//! grouping, synthesis) always run their engine. Only complete bodies are
//! stored.

use crate::engines::{Engine, LaneInput};
use revu_common::lane::LaneKind;
use sha2::{Digest, Sha256};

/// The cache key of `input` under `engine`, or `None` when the lane must
/// run its engine (see the module docs).
pub(super) fn key(engine: &dyn Engine, input: &LaneInput) -> Option<String> {
    let job = &input.job;
    let reviews = matches!(
        job.lane.kind,
        LaneKind::Domain { .. } | LaneKind::Specialist { .. }
    );
    if !reviews || job.no_cache || job.attempt != 1 || !job.rejected_for.is_empty() {
        return None;
    }
    let identity = engine.cache_identity()?;
    let mut h = Sha256::new();
    let part = |h: &mut Sha256, bytes: &[u8]| {
        h.update(u64::try_from(bytes.len()).unwrap_or(u64::MAX).to_le_bytes());
        h.update(bytes);
    };
    part(&mut h, b"revu-lane-cache-v1");
    part(&mut h, identity.as_bytes());
    part(
        &mut h,
        job.review_id.tenant().unwrap_or_default().as_bytes(),
    );
    part(&mut h, serde_json::to_string(&job.lane).ok()?.as_bytes());
    let bundle = input.bundle();
    part(&mut h, bundle.intent.as_bytes());
    for patch in input.lane_files() {
        // Streamed into the digest: a specialist lane reads every file, and
        // a copy of the whole patch text per lane is what this avoids.
        let mut streamed = Streamed {
            hash: &mut h,
            bytes: 0,
        };
        std::fmt::Write::write_fmt(&mut streamed, format_args!("{patch:?}")).ok()?;
        let bytes = streamed.bytes;
        h.update(bytes.to_le_bytes());
        let head = bundle.head_files.get(patch.path()).map(String::as_bytes);
        let head = head.unwrap_or(b"\0no head");
        h.update(u64::try_from(head.len()).unwrap_or(u64::MAX).to_le_bytes());
        h.update(head);
    }
    Some(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// Formatted text fed straight into a digest, counting its bytes.
struct Streamed<'a> {
    hash: &'a mut Sha256,
    bytes: u64,
}

impl std::fmt::Write for Streamed<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.hash.update(s.as_bytes());
        self.bytes += u64::try_from(s.len()).unwrap_or(u64::MAX);
        Ok(())
    }
}

/// Whether a report body may be stored: a complete one, never one in which
/// the engine said it could not finish.
pub(super) fn storable(body: &serde_json::Value) -> bool {
    // The section the completeness gate reads as "could not finish".
    body.as_object()
        .is_some_and(|o| !o.contains_key("incomplete"))
}
