//! Shared domain types of revu: diff facts, the finding schema, lane jobs and
//! reports, the canonical report, the queue contract and the retry policy.

pub mod adjudication;
pub mod bundle;
pub mod diff;
pub mod facts;
pub mod finding;
pub mod lane;
pub mod metrics;
pub mod paths;
pub mod queue;
pub mod report;
pub mod report_schema;
pub mod retry;
pub mod review;
pub mod shutdown;
pub mod telemetry;
