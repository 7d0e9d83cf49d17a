//! Process-wide telemetry of the binaries: logs, OpenTelemetry traces
//! exported over OTLP/gRPC when the standard `OTEL_*` variables ask for it,
//! and the W3C trace context that joins a review's spans across processes.
//!
//! Traces are off by default. When off, no exporter, no background thread,
//! and no `traceparent` is written into a job; spans remain ordinary
//! `tracing` spans that give log lines their context.

mod config;
mod init;
mod logfmt;
mod propagate;

pub use config::{BatchSettings, DEFAULT_ENDPOINT, SamplerChoice, TraceConfig};
pub use init::{LogSettings, Telemetry, TelemetryError, init};
pub use propagate::{set_remote_parent, traceparent};

use std::ffi::OsStr;
use std::io::IsTerminal;

/// Telemetry of a service binary: logs as `json` says, with colours only
/// on a terminal (see [`stderr_colours`]), and traces as the process's
/// `OTEL_*` environment says (read here, at the binary's edge, and nowhere
/// deeper). `service` names the binary when `OTEL_SERVICE_NAME` does not.
pub fn init_service(service: &str, json: bool) -> Result<Telemetry, TelemetryError> {
    let ansi = stderr_colours(std::env::var_os("NO_COLOR").as_deref());
    let traces = TraceConfig::from_lookup(|k| std::env::var(k).ok(), service);
    init(
        LogSettings {
            json,
            default_level: "info",
            ansi,
        },
        traces.as_ref(),
    )
}

/// Whether log lines on stderr get colours: only when stderr is a
/// terminal, and not when `NO_COLOR` (its value, as `main` read it) is set
/// to anything but the empty string, as <https://no-color.org> asks.
pub fn stderr_colours(no_color: Option<&OsStr>) -> bool {
    colours(no_color, std::io::stderr().is_terminal())
}

fn colours(no_color: Option<&OsStr>, terminal: bool) -> bool {
    terminal && no_color.is_none_or(OsStr::is_empty)
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
    use super::{colours, one_line};
    use std::ffi::OsStr;

    #[test]
    fn colours_only_on_a_terminal_and_not_with_no_color() {
        assert!(colours(None, true));
        assert!(!colours(None, false));
        assert!(!colours(Some(OsStr::new("1")), true));
        // An empty NO_COLOR counts as unset.
        assert!(colours(Some(OsStr::new("")), true));
        assert!(!colours(Some(OsStr::new("1")), false));
    }

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
