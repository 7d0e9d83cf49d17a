//! How long a rate-limited or overloaded server asks to be left alone,
//! from its response headers.

use std::time::Duration;

/// How long the server asked to wait: `retry-after-ms`, `Retry-After`
/// (seconds), or the `x-ratelimit-reset-*` durations (`1s`, `6m0s`,
/// `20ms`); the longest of them.
pub fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let mut waits = Vec::new();
    if let Some(ms) = text("retry-after-ms").and_then(|v| v.trim().parse::<f64>().ok()) {
        waits.push(Duration::from_secs_f64(ms.max(0.0) / 1000.0));
    }
    if let Some(secs) = text("retry-after").and_then(|v| v.trim().parse::<f64>().ok()) {
        waits.push(Duration::from_secs_f64(secs.max(0.0)));
    }
    for name in ["x-ratelimit-reset-requests", "x-ratelimit-reset-tokens"] {
        if let Some(d) = text(name).and_then(go_duration) {
            waits.push(d);
        }
    }
    waits.into_iter().max()
}

/// A duration as OpenAI's rate-limit headers write it: `1s`, `6m0s`,
/// `20ms`, `1h2m3.5s`.
pub(super) fn go_duration(text: &str) -> Option<Duration> {
    let mut total = 0.0f64;
    let mut rest = text.trim();
    if rest.is_empty() {
        return None;
    }
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let value: f64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let unit = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit] {
            "ms" => 0.001,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return None,
        };
        total += value * scale;
        rest = &rest[unit..];
    }
    Some(Duration::from_secs_f64(total))
}
