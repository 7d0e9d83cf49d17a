//! The lane result cache: a lane whose input is identical to one already
//! reviewed (the same engine at the same version, prompt and settings; the
//! same files, patches and head contents, and what the code index says of
//! them; the same guidance and intent)
//! reuses the stored report instead of running the engine again, so a CI
//! re-run after one more commit re-runs only the lanes whose input changed.
//!
//! Keys are SHA-256 digests of that input, per tenant. Only a first
//! attempt of a domain or specialist lane reads the cache: a retry, a lane
//! the completeness gate sent back and the phase lanes (adjudication,
//! grouping, synthesis) always run their engine. Only complete bodies are
//! stored.

use crate::engines::{Engine, LaneInput};
use revu_domain::lane::LaneKind;
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
    // The repository's conventions, which a model lane reads whole, and
    // what the lane is shown as found already.
    part(
        &mut h,
        bundle.conventions.as_deref().unwrap_or("\0none").as_bytes(),
    );
    part(
        &mut h,
        serde_json::to_string(&bundle.nested_conventions)
            .ok()?
            .as_bytes(),
    );
    part(
        &mut h,
        serde_json::to_string(&job.candidates).ok()?.as_bytes(),
    );
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
        let head = bundle.head_files.get(patch.path()).map(Vec::as_slice);
        part(&mut h, head.unwrap_or(b"\0no head"));
        // What the code index says of the file: its callers, importers and
        // the uses at head its change left stale, which lanes report on.
        if let Some(index) = &bundle.code_index {
            let path = patch.path();
            let stale: Vec<_> = index.omissions_in(path).collect();
            let seen = (index.files.get(path), stale);
            part(&mut h, serde_json::to_string(&seen).ok()?.as_bytes());
        }
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

#[cfg(test)]
mod tests {
    use super::key;
    use crate::engines::RulesEngine;
    use crate::engines::{LaneInput, LoadedReview};
    use revu_domain::code_index::{CodeIndex, Omission, Site, SymbolChange, SymbolKind};
    use revu_domain::finding::Dimension;
    use revu_domain::lane::{LaneKind, LaneSpec};
    use std::sync::Arc;

    const PATCH: &[u8] = b"diff --git a/app.py b/app.py
--- a/app.py
+++ b/app.py
@@ -1 +1 @@
-self.user_name = 1
+self.username = 1
";

    fn input(index: Option<CodeIndex>) -> LaneInput {
        let lane = LaneSpec {
            id: "specialist:correctness".into(),
            kind: LaneKind::Specialist {
                dimension: Dimension::Correctness,
            },
            engine: "rules".into(),
            files: vec!["app.py".into()],
            guidance: vec![],
        };
        let base = crate::engines::patch_input(lane, PATCH, "");
        let mut review = LoadedReview::clone(&base.review);
        Arc::make_mut(&mut review.bundle).code_index = index;
        LaneInput::new(base.job.clone(), Arc::new(review))
    }

    fn stale_in(file: &str) -> CodeIndex {
        CodeIndex {
            omissions: vec![Omission {
                symbol: "user_name".into(),
                kind: SymbolKind::Property,
                change: SymbolChange::Renamed {
                    to: "username".into(),
                },
                defined_in: "app.py".into(),
                defined_line: 1,
                site: Site::at(file, 3),
                text: "x.user_name".into(),
                checked: String::new(),
                doubt: None,
            }],
            ..CodeIndex::default()
        }
    }

    #[test]
    fn what_the_index_says_of_the_lane_files_is_part_of_the_key() {
        let engine = RulesEngine::default();
        let plain = key(&engine, &input(None));
        assert!(plain.is_some());
        assert_eq!(plain, key(&engine, &input(None)));
        let stale = key(&engine, &input(Some(stale_in("report.py"))));
        assert_ne!(stale, plain, "a stale use found");
        assert_eq!(stale, key(&engine, &input(Some(stale_in("report.py")))));
        // The stale use fixed elsewhere: the lane must run again.
        assert_ne!(stale, key(&engine, &input(Some(stale_in("other.py")))));
    }

    #[test]
    fn the_repository_conventions_are_part_of_the_key() {
        let engine = RulesEngine::default();
        let plain = key(&engine, &input(None));
        let with = |root: Option<&str>, nested: Option<(&str, &str)>| {
            let base = input(None);
            let mut review = LoadedReview::clone(&base.review);
            let bundle = Arc::make_mut(&mut review.bundle);
            bundle.conventions = root.map(str::to_owned);
            if let Some((dir, text)) = nested {
                bundle.nested_conventions.insert(dir.into(), text.into());
            }
            key(&engine, &LaneInput::new(base.job.clone(), Arc::new(review)))
        };
        let root = with(Some("## Allowed Nits\n- naming\n"), None);
        assert_ne!(root, plain, "a REVIEW.md a model lane reads whole");
        assert_ne!(with(Some("## Allowed Nits\n- style\n"), None), root);
        assert_ne!(with(None, Some(("pkg", "## Path Guidance\n"))), plain);
    }

    #[test]
    fn a_rule_described_otherwise_is_another_key() {
        use crate::engines::rules::RuleMeta;
        use crate::engines::rules::testing::altered;
        let plain = key(&RulesEngine::default(), &input(None));
        let same = RulesEngine::with_rules(altered(0, |m| m));
        assert_eq!(key(&same, &input(None)), plain);
        let reworded = RulesEngine::with_rules(altered(0, |m| RuleMeta {
            why: "a reason put another way",
            ..m
        }));
        assert_ne!(key(&reworded, &input(None)), plain);
    }
}
