//! Lane jobs and lane reports: what crosses the queue between coordinator
//! and workers.

use crate::adjudication::Decision;
use crate::finding::{Dimension, Finding};
use serde::{Deserialize, Serialize};
use std::fmt;

pub use crate::usage::{Usage, Usd};

/// Identifies a review. UUIDv7 text, so ids sort by submission time; a
/// review submitted by a tenant has its tenant in front, `TENANT/UUID`.
/// Clients only ever see the UUID (its [`local`](ReviewId::local) part):
/// the service puts the caller's tenant back in front, so another tenant's
/// id names a review that does not exist.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ReviewId(pub String);

impl ReviewId {
    pub fn new() -> Self {
        ReviewId(uuid::Uuid::now_v7().to_string())
    }

    /// A new id in `tenant`'s namespace (none: the open namespace).
    pub fn new_in(tenant: Option<&str>) -> Self {
        Self::scoped(tenant, &uuid::Uuid::now_v7().to_string())
    }

    /// The id a client of `tenant` means by `local`.
    pub fn scoped(tenant: Option<&str>, local: &str) -> Self {
        match tenant {
            Some(t) => ReviewId(format!("{t}/{local}")),
            None => ReviewId(local.to_owned()),
        }
    }

    /// The tenant whose review this is, if any.
    pub fn tenant(&self) -> Option<&str> {
        self.0.split_once('/').map(|(t, _)| t)
    }

    /// The id as the review's own client knows it.
    pub fn local(&self) -> &str {
        self.0.split_once('/').map_or(&self.0, |(_, l)| l)
    }
}

/// A tenant name, as given, that is not 1 to 64 ASCII letters, digits,
/// `-`, `_` or `.`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("tenant name {name:?} must be 1-64 of ASCII letters, digits, '-', '_' and '.'")]
pub struct BadTenantName {
    pub name: String,
}

/// Checks a tenant name: 1 to 64 ASCII letters, digits, `-`, `_` or `.`
/// (it appears in storage keys, metrics labels and span attributes).
pub fn check_tenant_name(name: &str) -> Result<(), BadTenantName> {
    if !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
    {
        Ok(())
    } else {
        Err(BadTenantName {
            name: name.to_owned(),
        })
    }
}

impl Default for ReviewId {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Display for ReviewId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a lane reviews: a domain slice of files, one specialist dimension
/// across the whole change, or (phase two, when enabled) the verified
/// BLOCKER and IMPORTANT findings to adjudicate. Two optional lanes
/// review nothing and have no say over findings or verdict: `grouping`
/// refines the domain slices before they are dispatched, and `synthesis`
/// writes the report's walkthrough at the end.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LaneKind {
    Domain {
        domain: String,
    },
    Specialist {
        dimension: Dimension,
    },
    Adjudication,
    /// A second opinion on one BLOCKER candidate: told to disprove it.
    Challenge,
    Grouping,
    Synthesis,
}

impl LaneKind {
    /// Every [`LaneKind::label`].
    pub const LABELS: [&'static str; 6] = [
        "domain",
        "specialist",
        "adjudication",
        "challenge",
        "grouping",
        "synthesis",
    ];

    /// An adjudication or challenge lane: it decides about candidates and
    /// raises no finding of its own.
    pub fn adjudicates(&self) -> bool {
        matches!(self, LaneKind::Adjudication | LaneKind::Challenge)
    }

    /// `domain`, `specialist`, `adjudication`, `challenge`, `grouping` or
    /// `synthesis`,
    /// the metric and trace label.
    pub fn label(&self) -> &'static str {
        match self {
            LaneKind::Domain { .. } => "domain",
            LaneKind::Specialist { .. } => "specialist",
            LaneKind::Adjudication => "adjudication",
            LaneKind::Challenge => "challenge",
            LaneKind::Grouping => "grouping",
            LaneKind::Synthesis => "synthesis",
        }
    }

    /// The domain of a domain lane and the dimension of a specialist, for
    /// span attributes; `None` for the rest.
    pub fn domain_and_dimension(&self) -> (Option<&str>, Option<&'static str>) {
        match self {
            LaneKind::Domain { domain } => (Some(domain.as_str()), None),
            LaneKind::Specialist { dimension } => (None, Some(dimension.as_str())),
            LaneKind::Adjudication
            | LaneKind::Challenge
            | LaneKind::Grouping
            | LaneKind::Synthesis => (None, None),
        }
    }

    /// Whether the lane reviews the code: its findings are verified and its
    /// outcome counts for the gate. The grouping and synthesis lanes do
    /// neither: when they fail, the review goes on without them.
    pub fn reviews(&self) -> bool {
        !matches!(self, LaneKind::Grouping | LaneKind::Synthesis)
    }
}

/// A domain slice: files reviewed together by one lane.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Slice {
    /// Lane-unique name: the domain, with `#n` when a large domain split.
    pub name: String,
    #[serde(default)]
    pub domain: String,
    pub files: Vec<String>,
}

/// The synthesis lane's line on one changed file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileNote {
    pub path: String,
    pub note: String,
}

/// One lane of a review's plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaneSpec {
    /// Stable within a review: `domain:api`, `domain:api#2`,
    /// `specialist:security`, `adjudication`.
    pub id: String,
    #[serde(flatten)]
    pub kind: LaneKind,
    /// Engine that runs it (`rules`, …).
    pub engine: String,
    /// Files the lane reviews (head-side paths); specialist lanes get every file.
    pub files: Vec<String>,
    /// Path guidance from the repo conventions for these files.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub guidance: Vec<String>,
}

/// A lane job as it sits on the job stream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaneJob {
    pub review_id: ReviewId,
    pub lane: LaneSpec,
    /// 1 for the first delivery of this lane; bumped by every re-dispatch.
    /// The review bundle (diff, head files, intent) is stored under
    /// `review_id`, which is all a worker needs to load it.
    pub attempt: u32,
    /// Unix milliseconds after which a report is no longer awaited.
    pub deadline_ms: u64,
    /// Unix milliseconds before which the attempt must not start (retry
    /// backoff, or a server's `Retry-After`): the queue holds the job back
    /// from its stream until then, so no worker waits with it in hand.
    #[serde(default)]
    pub not_before_ms: u64,
    /// What the completeness gate rejected last time, if this is a re-run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rejected_for: Vec<String>,
    /// W3C `traceparent` of the dispatching span, when tracing is on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traceparent: Option<String>,
    /// For the adjudication lane: the findings to re-try, which its
    /// `decisions` refer to by index; for the synthesis lane: the report's
    /// findings, to describe. Empty for every other lane.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<Finding>,
    /// For the grouping lane: the deterministic slices to refine. Empty for
    /// every other lane.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub proposal: Vec<Slice>,
    /// Run the engine even when the lane result cache holds a report for
    /// this input (the submission asked for it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_cache: bool,
    /// What the lane's earlier attempts spent on a model service.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spent: Option<Usage>,
    /// Most tokens (input and output) the review's lanes may spend
    /// together on model services; engines that spend tokens stop at it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_cap: Option<u64>,
}

impl LaneJob {
    /// Attempt `attempt` of `lane`, to start at once. Only the adjudication
    /// lane carries `candidates` (see [`crate::review::ReviewPlan::candidates_for`]).
    pub fn new(
        review_id: ReviewId,
        lane: LaneSpec,
        attempt: u32,
        deadline_ms: u64,
        candidates: Vec<Finding>,
    ) -> Self {
        LaneJob {
            review_id,
            lane,
            attempt,
            deadline_ms,
            not_before_ms: 0,
            rejected_for: Vec::new(),
            traceparent: None,
            candidates,
            proposal: Vec::new(),
            no_cache: false,
            spent: None,
            token_cap: None,
        }
    }
}

/// The mandatory sections of a lane report, present even when clean.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaneReportBody {
    /// What the lane looked at (files, or "n files" when long).
    pub reviewed: Vec<String>,
    /// The checks the engine ran (rule codes, linter names, prompts).
    pub checks: Vec<String>,
    pub findings: Vec<Finding>,
    /// One paragraph: what the lane concluded.
    pub summary: String,
    /// Adjudication lanes only: one decision per candidate.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decisions: Vec<Decision>,
    /// The grouping lane only: the refined slices.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub slices: Vec<Slice>,
    /// The synthesis lane only: a walkthrough of the change, in prose.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub walkthrough: String,
    /// The synthesis lane only: one line per changed file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub file_notes: Vec<FileNote>,
}

/// What a worker writes back for one lane attempt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaneReport {
    pub review_id: ReviewId,
    pub lane_id: String,
    pub attempt: u32,
    /// Name of the worker incarnation that ran it.
    pub worker: String,
    pub engine: String,
    pub duration_ms: u64,
    pub outcome: LaneAttemptOutcome,
    /// What the lane has spent on a model service, this attempt included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Whether the report came from the lane result cache (none when the
    /// cache was not consulted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheUse>,
}

/// What the lane result cache did for a lane: `hit`, its report reused
/// for an identical input; `miss`, the engine ran and its report was
/// stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CacheUse {
    Hit,
    Miss,
}

impl CacheUse {
    pub fn label(self) -> &'static str {
        match self {
            CacheUse::Hit => "hit",
            CacheUse::Miss => "miss",
        }
    }
}

/// How a lane attempt ended on the worker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum LaneAttemptOutcome {
    /// The engine produced a report. Its body is raw JSON so that the
    /// coordinator's completeness gate, not the transport, judges its shape.
    Reported { body: serde_json::Value },
    /// The engine failed; `retry` says whether another attempt may help
    /// (on the wire, the boolean `transient`).
    Failed {
        reason: String,
        #[serde(rename = "transient", with = "crate::retry::as_transient")]
        retry: crate::retry::Retry,
        /// What kind of failure, for metrics and dashboards (the reason's
        /// wording may change; the kind does not).
        #[serde(default)]
        kind: FaultKind,
        /// How long the engine's service asked to be left alone (a rate
        /// limit's `Retry-After`): the retry waits at least this long.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        retry_after_ms: Option<u64>,
    },
}

/// Why a lane attempt failed or a lane faulted: a small fixed set, so that
/// metric labels stay bounded whatever an engine writes, and carried with
/// the failure so that no dashboard depends on a message's wording.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// The lane or its command ran longer than its limit.
    Timeout,
    /// The review's or the lane's deadline passed.
    Deadline,
    /// The review was finished or cancelled before the lane ran.
    Cancelled,
    /// The worker does not offer the lane's engine.
    NoEngine,
    /// The review's stored bundle is missing or its diff does not parse.
    Bundle,
    /// The engine crashed (a panic, a signal).
    Crash,
    /// The engine's report is not a report (not JSON, does not encode).
    BadReport,
    /// The engine refused the lane as bad input or misconfiguration.
    Refused,
    /// The engine's service answered that its rate limit was reached.
    RateLimited,
    /// The report failed the completeness gate.
    CompletenessGate,
    /// The job on the stream does not decode (a poison entry).
    Undecodable,
    /// Any other failure the engine reported.
    #[default]
    EngineError,
}

impl FaultKind {
    pub const ALL: [FaultKind; 12] = [
        FaultKind::Timeout,
        FaultKind::Deadline,
        FaultKind::Cancelled,
        FaultKind::NoEngine,
        FaultKind::Bundle,
        FaultKind::Crash,
        FaultKind::BadReport,
        FaultKind::Refused,
        FaultKind::RateLimited,
        FaultKind::CompletenessGate,
        FaultKind::Undecodable,
        FaultKind::EngineError,
    ];

    /// The metric label and span attribute value.
    pub fn label(self) -> &'static str {
        match self {
            FaultKind::Timeout => "timeout",
            FaultKind::Deadline => "deadline",
            FaultKind::Cancelled => "cancelled",
            FaultKind::NoEngine => "no_engine",
            FaultKind::Bundle => "bundle",
            FaultKind::Crash => "crash",
            FaultKind::BadReport => "bad_report",
            FaultKind::Refused => "refused",
            FaultKind::RateLimited => "rate_limited",
            FaultKind::CompletenessGate => "completeness_gate",
            FaultKind::Undecodable => "undecodable",
            FaultKind::EngineError => "engine_error",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{BadTenantName, FaultKind, ReviewId, check_tenant_name};

    #[test]
    fn a_tenant_review_id_shows_its_client_only_the_uuid() {
        let id = ReviewId::new_in(Some("acme"));
        assert_eq!(id.tenant(), Some("acme"));
        assert_eq!(ReviewId::scoped(Some("acme"), id.local()), id);
        assert_ne!(ReviewId::scoped(Some("other"), id.local()), id);
        let open = ReviewId::new_in(None);
        assert_eq!((open.tenant(), open.local()), (None, open.0.as_str()));
        assert!(check_tenant_name("team-a.ci_1").is_ok());
        for bad in ["", "a/b", "a b", "a:b", &"x".repeat(65)] {
            let name = bad.to_owned();
            assert_eq!(check_tenant_name(bad), Err(BadTenantName { name }));
        }
    }

    #[test]
    fn fault_labels_are_the_serialized_names() {
        for kind in FaultKind::ALL {
            let json = serde_json::to_value(kind).unwrap_or_default();
            assert_eq!(json, kind.label());
        }
    }
}
