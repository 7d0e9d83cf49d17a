//! Process-wide telemetry of the binaries: logs, OpenTelemetry traces
//! exported over OTLP/gRPC when the standard `OTEL_*` variables ask for it,
//! and the W3C trace context that joins a review's spans across processes.
//!
//! Traces are off by default. When off, no exporter, no background thread,
//! and no `traceparent` is written into a job; spans remain ordinary
//! `tracing` spans that give log lines their context.

#[cfg(feature = "runtime")]
mod config;
#[cfg(feature = "runtime")]
mod init;
#[cfg(feature = "runtime")]
mod logfmt;
pub mod names;
#[cfg(feature = "runtime")]
mod propagate;

#[cfg(feature = "runtime")]
pub use config::{BatchSettings, DEFAULT_ENDPOINT, SamplerChoice, TraceConfig};
#[cfg(feature = "runtime")]
pub use init::{LogSettings, Telemetry, TelemetryError, init};
pub use names::MessagingTarget;
#[cfg(feature = "runtime")]
pub use propagate::{set_remote_parent, traceparent};

/// Installs logs only: human-readable lines on stderr by default, JSON lines
/// with `json`. The level comes from `RUST_LOG` (default `default_level`).
/// Calling it twice is harmless.
#[cfg(feature = "runtime")]
pub fn init_logs(json: bool, default_level: &str) {
    let _ = init(
        LogSettings {
            json,
            default_level,
        },
        None,
    );
}

/// Telemetry of a service binary: logs as `json` says, and traces as the
/// process's `OTEL_*` environment says (read here, at the binary's edge,
/// and nowhere deeper). `service` names the binary when
/// `OTEL_SERVICE_NAME` does not.
#[cfg(feature = "runtime")]
pub fn init_service(service: &str, json: bool) -> Result<Telemetry, TelemetryError> {
    let traces = TraceConfig::from_lookup(|k| std::env::var(k).ok(), service);
    init(
        LogSettings {
            json,
            default_level: "info",
        },
        traces.as_ref(),
    )
}

/// One line for an error and its causes, each cause added only when its
/// text is not already part of the line (many errors repeat their source).
pub fn one_line<'a>(
    chain: impl IntoIterator<Item = &'a (dyn std::error::Error + 'static)>,
) -> String {
    let mut line = String::new();
    for cause in chain {
        let text = cause.to_string();
        if line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}

#[cfg(test)]
mod tests {
    use super::one_line;

    #[derive(Debug, thiserror::Error)]
    #[error("outer: {0}")]
    struct Outer(#[source] Inner);

    #[derive(Debug, thiserror::Error)]
    #[error("refused")]
    struct Inner;

    #[test]
    fn repeated_causes_are_said_once() {
        let err = Outer(Inner);
        let chain: [&(dyn std::error::Error + 'static); 2] = [&err, &Inner];
        assert_eq!(one_line(chain), "outer: refused");
    }
}

#[cfg(test)]
mod log_tests;
