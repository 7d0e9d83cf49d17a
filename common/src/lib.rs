//! Shared domain types of revu: diff facts, the finding schema, lane jobs and
//! reports, the canonical report, the queue contract and the retry policy.
//!
//! Without the default `runtime` feature it is the domain types alone (no
//! queue backends, telemetry exporters or metrics endpoint), for the pure
//! review stages.

// `pattern!` names what it makes by this crate's path, which inside the
// crate is this.
extern crate self as revu_common;

pub mod adjudication;
pub mod bundle;
pub mod code_index;
#[cfg(feature = "runtime")]
pub mod config;
pub mod diff;
pub mod facts;
pub mod finding;
pub mod lane;
#[cfg(feature = "runtime")]
pub mod metrics;
pub mod paths;
pub mod pattern;
#[cfg(feature = "runtime")]
pub mod queue;
pub mod redact;
pub mod report;
pub mod report_schema;
pub mod retry;
pub mod review;
#[cfg(feature = "runtime")]
pub mod shutdown;
pub mod telemetry;
#[cfg(feature = "runtime")]
pub mod tls;
pub mod usage;
