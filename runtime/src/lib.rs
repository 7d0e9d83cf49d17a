//! What revu's services share at run time: telemetry (logs and OTLP
//! traces), the Prometheus metrics endpoint, TLS, the layered service
//! configuration, shutdown handling, the retry loop, and a clock on tokio's
//! time for tests on paused time.

pub mod clock;
pub mod config;
pub mod metrics;
pub mod retry;
pub mod shutdown;
pub mod telemetry;
pub mod tls;
