//! revu's domain: the diff reader and its facts, the finding schema, lane
//! jobs and reports, the review's records and phase, the canonical report,
//! the literal-guarded patterns, the retry policy and the clock that
//! deadlines and windows are read against.
//!
//! Pure data and pure functions only: no async runtime, no queue backend,
//! no network. The queue contract and its backends are in `revu-queue`;
//! telemetry, metrics, TLS and configuration layers in `revu-runtime`.

// `pattern!` names what it makes by this crate's path, which inside the
// crate is this.
extern crate self as revu_domain;

pub mod adjudication;
pub mod bundle;
pub mod clock;
pub mod code_index;
pub mod diff;
pub mod facts;
pub mod finding;
pub mod intent;
pub mod lane;
pub mod packages;
pub mod paths;
pub mod pattern;
pub mod redact;
pub mod report;
pub mod report_schema;
pub mod retry;
pub mod review;
pub mod telemetry;
pub mod usage;
