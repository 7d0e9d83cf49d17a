//! Wire types to domain types and back. Prost types end here.

use crate::service::{RequestError, ReviewStatus, ServiceError, Submission};
use revu_domain::bundle::OwnersFile;
use revu_domain::intent::IntentSource;
use revu_domain::packages::{MANIFESTS, Package};
use revu_domain::paths::dir_below_root;
use revu_domain::report::Rigor;
use revu_domain::review::{ProgressEvent, ReviewState};
use revu_proto::v1 as pb;
use std::collections::BTreeMap;

/// Longest accepted idempotency key, label or path, in bytes.
const MAX_TOKEN: usize = 4096;

pub fn submission(req: pb::SubmitReviewRequest) -> Result<Submission, ServiceError> {
    let rigor = match pb::Rigor::try_from(req.rigor) {
        Ok(pb::Rigor::Unspecified) => None,
        Ok(pb::Rigor::Poc) => Some(Rigor::Poc),
        Ok(pb::Rigor::Prototype) => Some(Rigor::Prototype),
        Ok(pb::Rigor::Production) => Some(Rigor::Production),
        Err(_) => {
            return Err(RequestError::UnknownRigor(req.rigor).into());
        }
    };
    let mut head_files = BTreeMap::new();
    for f in req.head_files {
        if f.path.is_empty() || f.path.len() > MAX_TOKEN {
            return Err(RequestError::HeadPath.into());
        }
        head_files.insert(f.path, f.content);
    }
    if req.idempotency_key.len() > MAX_TOKEN || req.labels.iter().any(|l| l.len() > MAX_TOKEN) {
        return Err(RequestError::TokenTooLong { limit: MAX_TOKEN }.into());
    }
    let code_index_bytes = req.code_index.len();
    let code_index = if req.code_index.is_empty() {
        None
    } else {
        let index = serde_json::from_slice(&req.code_index).map_err(RequestError::CodeIndex)?;
        Some(index)
    };
    let mut nested_conventions = BTreeMap::new();
    for nested in req.nested_conventions {
        let Some(dir) = dir_below_root(&nested.dir).map(str::to_owned) else {
            return Err(RequestError::NestedDir { dir: nested.dir }.into());
        };
        nested_conventions.insert(dir, nested.content);
    }
    let packages = packages(req.packages)?;
    let intent_sources = req
        .intent_sources
        .into_iter()
        .map(|s| IntentSource::parse(&s).ok_or(RequestError::IntentSource(s)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Submission {
        intent_sources,
        packages,
        code_index,
        code_index_bytes,
        diff: req.diff.into(),
        head_files,
        intent: req.intent,
        rigor,
        labels: req.labels,
        idempotency_key: Some(req.idempotency_key).filter(|k| !k.is_empty()),
        conventions: Some(req.conventions).filter(|c| !c.is_empty()),
        nested_conventions,
        codeowners: req
            .codeowners
            .filter(|c| !c.content.is_empty())
            .map(|c| OwnersFile {
                path: c.path,
                text: c.content,
            }),
        repo_config: Some(req.repo_config).filter(|c| !c.is_empty()),
        tenant: None,
        no_cache: req.no_cache,
    })
}

pub fn state(s: ReviewState) -> pb::ReviewState {
    match s {
        ReviewState::Running => pb::ReviewState::Running,
        ReviewState::Finished => pb::ReviewState::Finished,
        ReviewState::Cancelled => pb::ReviewState::Cancelled,
    }
}

pub fn status(s: ReviewStatus) -> pb::GetReviewResponse {
    let (verdict, gate) = s
        .report_json
        .as_deref()
        .and_then(|j| serde_json::from_str::<serde_json::Value>(j).ok())
        .map(|v| {
            let field = |k: &str| {
                v.get(k)
                    .and_then(|x| x.as_str())
                    .unwrap_or_default()
                    .to_owned()
            };
            (field("verdict"), field("gate"))
        })
        .unwrap_or_default();
    pb::GetReviewResponse {
        review_id: s.id.local().to_owned(),
        state: state(s.state) as i32,
        report_json: s.report_json.unwrap_or_default(),
        verdict,
        gate,
        lanes_total: u32::try_from(s.lanes_total).unwrap_or(u32::MAX),
        lanes_settled: u32::try_from(s.lanes_settled).unwrap_or(u32::MAX),
    }
}

pub fn event(event_id: String, e: ProgressEvent) -> pb::ReviewEvent {
    use pb::review_event::Kind;
    let mut out = pb::ReviewEvent {
        event_id,
        ..Default::default()
    };
    let kind = match e {
        ProgressEvent::StageStarted { stage } => {
            out.stage = stage.as_str().to_owned();
            Kind::StageStarted
        }
        ProgressEvent::StageFinished { stage } => {
            out.stage = stage.as_str().to_owned();
            Kind::StageFinished
        }
        ProgressEvent::LaneDispatched { lane_id, attempt } => {
            (out.lane_id, out.attempt) = (lane_id, attempt);
            Kind::LaneDispatched
        }
        ProgressEvent::LaneStarted {
            lane_id,
            attempt,
            worker,
        } => {
            (out.lane_id, out.attempt, out.worker) = (lane_id, attempt, worker);
            Kind::LaneStarted
        }
        ProgressEvent::LaneRetried {
            lane_id,
            attempt,
            reason,
        } => {
            (out.lane_id, out.attempt, out.reason) = (lane_id, attempt, reason);
            Kind::LaneRetried
        }
        ProgressEvent::LaneFinished {
            lane_id,
            attempt,
            findings,
        } => {
            (out.lane_id, out.attempt, out.findings) = (lane_id, attempt, findings);
            Kind::LaneFinished
        }
        ProgressEvent::LaneFaulted { lane_id, reason } => {
            (out.lane_id, out.reason) = (lane_id, reason);
            Kind::LaneFaulted
        }
        ProgressEvent::Verdict { verdict, gate } => {
            (out.verdict, out.gate) = (verdict.as_str().to_owned(), gate.as_str().to_owned());
            Kind::Verdict
        }
        ProgressEvent::Cancelled => Kind::Cancelled,
    };
    out.kind = kind as i32;
    out
}

/// The packages a request names, each a directory below the root with a
/// manifest revu knows.
fn packages(sent: Vec<pb::Package>) -> Result<Vec<Package>, ServiceError> {
    sent.into_iter()
        .map(|p| {
            let dir = dir_below_root(&p.dir).ok_or_else(|| {
                ServiceError::InvalidRequest(RequestError::PackageDir { dir: p.dir.clone() })
            })?;
            if !MANIFESTS.contains(&p.manifest.as_str()) {
                return Err(ServiceError::InvalidRequest(
                    RequestError::PackageManifest {
                        dir: dir.to_owned(),
                        manifest: p.manifest,
                    },
                ));
            }
            Ok(Package {
                dir: dir.to_owned(),
                manifest: p.manifest,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repo_files_pass_through_and_empty_means_none() {
        let sub = submission(pb::SubmitReviewRequest {
            conventions: "## Allowed Nits\n- `RV-DES-002`\n".into(),
            repo_config: "rigor = \"poc\"\n".into(),
            ..Default::default()
        });
        let sub = sub.unwrap_or_default();
        assert_eq!(sub.repo_config.as_deref(), Some("rigor = \"poc\"\n"));
        assert!(sub.conventions.is_some());
        let empty = submission(pb::SubmitReviewRequest::default()).unwrap_or_default();
        assert_eq!((empty.conventions, empty.repo_config), (None, None));
        assert!(empty.nested_conventions.is_empty() && empty.codeowners.is_none());
    }

    #[test]
    fn packages_must_sit_below_the_root_with_a_known_manifest() {
        let sent = |dir: &str, manifest: &str| {
            submission(pb::SubmitReviewRequest {
                packages: vec![pb::Package {
                    dir: dir.into(),
                    manifest: manifest.into(),
                }],
                ..Default::default()
            })
        };
        let sub = sent("/crates/api/", "Cargo.toml").unwrap_or_default();
        assert_eq!(
            sub.packages,
            [Package {
                dir: "crates/api".into(),
                manifest: "Cargo.toml".into()
            }]
        );
        for (dir, manifest) in [("", "go.mod"), ("a/../..", "go.mod"), ("a", "Makefile")] {
            assert!(
                matches!(sent(dir, manifest), Err(ServiceError::InvalidRequest(_))),
                "{dir:?} {manifest:?}"
            );
        }
    }

    #[test]
    fn nested_review_md_must_sit_below_the_root() {
        let nested = |dir: &str| {
            submission(pb::SubmitReviewRequest {
                nested_conventions: vec![pb::NestedConventions {
                    dir: dir.into(),
                    content: "## Allowed Nits\n".into(),
                }],
                codeowners: Some(pb::CodeOwners {
                    path: ".github/CODEOWNERS".into(),
                    content: "* @acme\n".into(),
                }),
                ..Default::default()
            })
        };
        let sub = nested("/pkg/api/").unwrap_or_default();
        assert_eq!(
            sub.nested_conventions.keys().collect::<Vec<_>>(),
            ["pkg/api"]
        );
        assert_eq!(
            sub.codeowners.map(|c| c.path).as_deref(),
            Some(".github/CODEOWNERS")
        );
        for bad in ["", "/", "pkg/../..", "a//b"] {
            assert!(
                matches!(
                    nested(bad),
                    Err(ServiceError::InvalidRequest(RequestError::NestedDir { .. }))
                ),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn intent_sources_are_the_known_names() {
        let sent = |names: &[&str]| {
            submission(pb::SubmitReviewRequest {
                intent: "make the limit tunable".into(),
                intent_sources: names.iter().map(|n| (*n).to_owned()).collect(),
                ..Default::default()
            })
        };
        let sub = sent(&["flag", "github", "commits"]).unwrap_or_default();
        assert_eq!(
            sub.intent_sources,
            [
                IntentSource::Flag,
                IntentSource::Github,
                IntentSource::Commits
            ]
        );
        assert!(matches!(
            sent(&["flag", "jira"]),
            Err(ServiceError::InvalidRequest(RequestError::IntentSource(name))) if name == "jira"
        ));
    }
}
