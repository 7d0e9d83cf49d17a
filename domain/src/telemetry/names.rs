//! Span names and span attribute keys: the one list the code, the
//! dashboard's TraceQL queries and their test all use.
//!
//! Attribute keys follow the OpenTelemetry messaging and RPC conventions
//! where they apply; revu's own live under `revu.`.

/// Span names.
pub mod span {
    /// The `SubmitReview` RPC (server span; the review's root inside revu).
    pub const SUBMIT: &str = "revu.v1.ReviewService/SubmitReview";
    /// Stages 1–4: facts, grouping, the exact-cover gate, the lane plan.
    pub const PREPARE: &str = "revu.prepare";
    /// Stage 1 inside `revu.prepare`: the diff parsed into facts.
    pub const FACTS: &str = "revu.facts";
    /// Stage 2 inside `revu.prepare`: files grouped into domain slices.
    pub const GROUPING: &str = "revu.grouping";
    /// Stage 3 inside `revu.prepare`: the exact-cover gate.
    pub const EXACT_COVER: &str = "revu.exact_cover";
    /// Stage 4 inside `revu.prepare`: triage and the lane plan.
    pub const PLAN: &str = "revu.plan";
    /// Stage 8 inside `revu.verify`: the verdict arithmetic.
    pub const VERDICT: &str = "revu.verdict";
    /// Stage 4: publishing every lane of the plan.
    pub const DISPATCH: &str = "revu.dispatch";
    /// Producer span of one lane attempt put on the job stream.
    pub const PUBLISH: &str = "publish jobs";
    /// Consumer span of one lane attempt run by a worker.
    pub const PROCESS: &str = "process jobs";
    /// Handling one lane report on the coordinator.
    pub const GATHER: &str = "revu.gather";
    /// Stage 6: the completeness gate on one report.
    pub const COMPLETENESS_GATE: &str = "revu.completeness_gate";
    /// Stages 7–9 once every lane settled.
    pub const FINALIZE: &str = "revu.finalize";
    /// Stages 7–8: verification of every finding and the verdict arithmetic.
    pub const VERIFY: &str = "revu.verify";
    /// Stage 9: the canonical report.
    pub const RENDER: &str = "revu.render";

    /// Every span name above.
    pub const ALL: &[&str] = &[
        SUBMIT,
        PREPARE,
        FACTS,
        GROUPING,
        EXACT_COVER,
        PLAN,
        DISPATCH,
        PUBLISH,
        PROCESS,
        GATHER,
        COMPLETENESS_GATE,
        FINALIZE,
        VERIFY,
        VERDICT,
        RENDER,
    ];
}

/// Span attribute keys.
pub mod attr {
    pub const RPC_SYSTEM: &str = "rpc.system";
    pub const RPC_SERVICE: &str = "rpc.service";
    pub const RPC_METHOD: &str = "rpc.method";
    pub const MESSAGING_SYSTEM: &str = "messaging.system";
    pub const MESSAGING_OPERATION: &str = "messaging.operation.type";
    pub const MESSAGING_DESTINATION: &str = "messaging.destination.name";
    pub const MESSAGING_GROUP: &str = "messaging.consumer.group.name";
    pub const MESSAGING_MESSAGE_ID: &str = "messaging.message.id";
    pub const REVIEW_ID: &str = "revu.review.id";
    /// Whether a submission found an existing review under its key.
    pub const REVIEW_EXISTING: &str = "revu.review.existing";
    /// The tenant a call authenticated as (absent without authentication).
    pub const TENANT: &str = "revu.tenant";
    pub const LANE_ID: &str = "revu.lane.id";
    /// `domain` or `specialist`.
    pub const LANE_KIND: &str = "revu.lane.kind";
    pub const LANE_DOMAIN: &str = "revu.lane.domain";
    pub const LANE_DIMENSION: &str = "revu.lane.dimension";
    /// Lanes in the plan.
    pub const LANE_COUNT: &str = "revu.lane.count";
    pub const ENGINE: &str = "revu.engine";
    /// The lane attempt (1 for the first delivery).
    pub const ATTEMPT: &str = "revu.attempt";
    pub const WORKER: &str = "revu.worker";
    /// How an attempt, a report or a review ended: an attempt served from
    /// the lane result cache ends `cached`, not `reported`.
    pub const OUTCOME: &str = "revu.outcome";
    /// What the lane result cache did for an attempt: `hit` (the stored
    /// report reused, no engine ran) or `miss` (the engine ran and its
    /// report was stored).
    pub const CACHE: &str = "revu.lane.cache";
    /// What the coordinator did with a report: settle, retry, gate_retry, discard.
    pub const STEP: &str = "revu.step";
    /// Why an attempt failed or a lane faulted, as the worker said it.
    pub const FAULT_REASON: &str = "revu.fault.reason";
    /// The fault's kind (`lane::FaultKind`): bounded, for grouping.
    pub const FAULT_CLASS: &str = "revu.fault.class";
    /// What the completeness gate found missing.
    pub const GATE_PROBLEMS: &str = "revu.gate.problems";
    /// Findings a lane reported.
    pub const FINDINGS: &str = "revu.findings.count";
    /// Findings left after verification.
    pub const FINDINGS_VERIFIED: &str = "revu.findings.verified";
    pub const FINDINGS_BLOCKER: &str = "revu.findings.blocker";
    pub const FINDINGS_IMPORTANT: &str = "revu.findings.important";
    /// Citations verification dropped.
    pub const FINDINGS_DROPPED: &str = "revu.findings.dropped";
    pub const VERDICT: &str = "revu.verdict";
    pub const GATE: &str = "revu.gate";
    pub const RISK_TIER: &str = "revu.risk_tier";
    pub const FILES_CHANGED: &str = "revu.files.changed";

    /// Every key above.
    pub const ALL: &[&str] = &[
        RPC_SYSTEM,
        RPC_SERVICE,
        RPC_METHOD,
        MESSAGING_SYSTEM,
        MESSAGING_OPERATION,
        MESSAGING_DESTINATION,
        MESSAGING_GROUP,
        MESSAGING_MESSAGE_ID,
        REVIEW_ID,
        REVIEW_EXISTING,
        TENANT,
        LANE_ID,
        LANE_KIND,
        LANE_DOMAIN,
        LANE_DIMENSION,
        LANE_COUNT,
        ENGINE,
        ATTEMPT,
        WORKER,
        OUTCOME,
        CACHE,
        STEP,
        FAULT_REASON,
        FAULT_CLASS,
        GATE_PROBLEMS,
        FINDINGS,
        FINDINGS_VERIFIED,
        FINDINGS_BLOCKER,
        FINDINGS_IMPORTANT,
        FINDINGS_DROPPED,
        VERDICT,
        GATE,
        RISK_TIER,
        FILES_CHANGED,
    ];
}

/// Where lane jobs travel, for the messaging attributes of the producer
/// and consumer spans.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessagingTarget {
    /// `redis`, or `memory` in the embedded mode.
    pub system: &'static str,
    /// The job streams' key prefix; each engine's stream adds `:{engine}`.
    pub destination: String,
    /// The workers' consumer group.
    pub group: String,
}

impl MessagingTarget {
    /// The stream the jobs of `engine` travel on.
    pub fn stream_of(&self, engine: &str) -> String {
        format!("{}:{engine}", self.destination)
    }
}

impl Default for MessagingTarget {
    fn default() -> Self {
        MessagingTarget {
            system: "memory",
            destination: "jobs".to_owned(),
            group: "workers".to_owned(),
        }
    }
}
