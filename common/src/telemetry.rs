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
