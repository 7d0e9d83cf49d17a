//! Process-wide logging setup for the binaries.

use tracing_subscriber::EnvFilter;

/// Installs the log subscriber: human-readable lines on stderr by default,
/// JSON lines with `json`. The level comes from `RUST_LOG` (default `info`).
/// Calling it twice is harmless.
pub fn init_logs(json: bool, default_level: &str) {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default_level));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    let _ = if json {
        builder.json().flatten_event(true).try_init()
    } else {
        builder.try_init()
    };
}
