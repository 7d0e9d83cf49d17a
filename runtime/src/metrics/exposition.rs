//! The two text formats a scraper may ask for: OpenMetrics, which
//! `prometheus-client` writes, and the classic Prometheus format
//! (`text/plain; version=0.0.4`), which `promtool check metrics`, `curl`
//! and older scrapers read. A scraper that names OpenMetrics in its
//! `Accept` header (Prometheus does) gets OpenMetrics; anything else
//! gets the classic format.

/// Whether `accept` (an HTTP `Accept` value) prefers OpenMetrics to the
/// classic text: it names `application/openmetrics-text` with a quality
/// at least that of any range the classic format matches.
pub fn wants_openmetrics(accept: &str) -> bool {
    let mut openmetrics = 0.0_f32;
    let mut classic = 0.0_f32;
    for range in accept.split(',') {
        let mut params = range.split(';');
        let media = params.next().unwrap_or("").trim().to_ascii_lowercase();
        let q = params
            .filter_map(|p| p.split_once('='))
            .find(|(k, _)| k.trim().eq_ignore_ascii_case("q"))
            .and_then(|(_, v)| v.trim().parse::<f32>().ok())
            .unwrap_or(1.0);
        match media.as_str() {
            "application/openmetrics-text" => openmetrics = openmetrics.max(q),
            "text/plain" | "text/*" | "*/*" => classic = classic.max(q),
            _ => {}
        }
    }
    openmetrics > 0.0 && openmetrics >= classic
}

/// `openmetrics` rewritten in the classic text format: a counter's
/// `HELP` and `TYPE` name its samples (`…_total`), `unknown` is
/// `untyped`, and the `UNIT` lines and the `EOF` marker, which the
/// classic format has not, are left out. Samples are the same in both.
pub fn classic(openmetrics: &str) -> String {
    let mut out = String::with_capacity(openmetrics.len());
    let mut lines = openmetrics.lines().peekable();
    while let Some(line) = lines.next() {
        if line == "# EOF" || line.starts_with("# UNIT ") {
            continue;
        }
        let rewritten = line
            .strip_prefix("# TYPE ")
            .and_then(|rest| rest.split_once(' '))
            .map(|(name, kind)| match kind {
                "counter" => format!("# TYPE {} counter", total(name)),
                "unknown" => format!("# TYPE {name} untyped"),
                _ => line.to_owned(),
            });
        match rewritten {
            Some(type_line) => out.push_str(&type_line),
            None => match line.strip_prefix("# HELP ") {
                Some(rest) => {
                    let (name, help) = rest.split_once(' ').unwrap_or((rest, ""));
                    // Each family's `TYPE` follows its `HELP`.
                    let counter = lines
                        .peek()
                        .is_some_and(|next| *next == format!("# TYPE {name} counter"));
                    let name = if counter {
                        total(name)
                    } else {
                        name.to_owned()
                    };
                    out.push_str(&format!("# HELP {name} {help}"));
                }
                None => out.push_str(line),
            },
        }
        out.push('\n');
    }
    out
}

/// `name` with the `_total` suffix its counter samples carry.
fn total(name: &str) -> String {
    if name.ends_with("_total") {
        name.to_owned()
    } else {
        format!("{name}_total")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OPENMETRICS: &str = "# HELP revu_lane_retries Lane attempts dispatched again.\n\
# TYPE revu_lane_retries counter\n\
revu_lane_retries_total{engine=\"llm\",reason=\"timeout\"} 2\n\
# HELP revu_stage_duration_seconds Time a stage took.\n\
# TYPE revu_stage_duration_seconds histogram\n\
# UNIT revu_stage_duration_seconds seconds\n\
revu_stage_duration_seconds_sum{stage=\"prepare\"} 0.5\n\
revu_stage_duration_seconds_count{stage=\"prepare\"} 1\n\
revu_stage_duration_seconds_bucket{le=\"+Inf\",stage=\"prepare\"} 1\n\
# HELP revu_ready Whether this process can work.\n\
# TYPE revu_ready gauge\n\
revu_ready 1\n\
# EOF\n";

    #[test]
    fn counters_are_declared_by_their_sample_name_and_the_markers_go() {
        let text = classic(OPENMETRICS);
        assert_eq!(
            text,
            "# HELP revu_lane_retries_total Lane attempts dispatched again.\n\
# TYPE revu_lane_retries_total counter\n\
revu_lane_retries_total{engine=\"llm\",reason=\"timeout\"} 2\n\
# HELP revu_stage_duration_seconds Time a stage took.\n\
# TYPE revu_stage_duration_seconds histogram\n\
revu_stage_duration_seconds_sum{stage=\"prepare\"} 0.5\n\
revu_stage_duration_seconds_count{stage=\"prepare\"} 1\n\
revu_stage_duration_seconds_bucket{le=\"+Inf\",stage=\"prepare\"} 1\n\
# HELP revu_ready Whether this process can work.\n\
# TYPE revu_ready gauge\n\
revu_ready 1\n"
        );
    }

    #[test]
    fn openmetrics_only_when_asked_for_first() {
        // What Prometheus 2.x sends.
        assert!(wants_openmetrics(
            "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"
        ));
        assert!(wants_openmetrics("application/openmetrics-text"));
        // curl, a browser, no header, or the classic format preferred.
        assert!(!wants_openmetrics("*/*"));
        assert!(!wants_openmetrics(""));
        assert!(!wants_openmetrics("text/plain;version=0.0.4"));
        assert!(!wants_openmetrics(
            "text/plain;version=0.0.4,application/openmetrics-text;q=0.5"
        ));
        assert!(!wants_openmetrics("application/openmetrics-text;q=0"));
    }
}
