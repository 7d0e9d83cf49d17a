//! Log lines and trace context with a tracer that exports nowhere.

#![allow(clippy::unwrap_used)]

use super::init::{EXPORTING, subscriber};
use super::{LogSettings, set_remote_parent, traceparent};
use opentelemetry_sdk::trace::SdkTracerProvider;
use std::io::Write;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

/// Captured log output.
#[derive(Debug, Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Captured {
    type Writer = Captured;
    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

impl Captured {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

/// Runs `f` under a subscriber that traces (or not) and logs to the result.
fn logged(json: bool, tracing_on: bool, f: impl FnOnce()) -> String {
    logged_with(json, tracing_on, false, f)
}

/// [`logged`], with colours or not.
fn logged_with(json: bool, tracing_on: bool, ansi: bool, f: impl FnOnce()) -> String {
    let out = Captured::default();
    let provider = SdkTracerProvider::builder().build();
    let logs = LogSettings {
        json,
        default_level: "info",
        ansi,
    };
    if tracing_on {
        EXPORTING.store(true, Ordering::Relaxed);
    }
    let sub = subscriber(logs, tracing_on.then_some(&provider), out.clone());
    tracing::subscriber::with_default(sub, f);
    out.text()
}

const REMOTE: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

#[test]
fn json_lines_carry_the_trace_and_span_of_their_span() {
    let mut ids = None;
    let out = logged(true, true, || {
        let span = tracing::info_span!("revu.test");
        set_remote_parent(&span, Some(REMOTE), None);
        let tp = traceparent(&span).unwrap();
        span.in_scope(|| tracing::info!(lane = "domain:api", "lane started"));
        ids = Some(tp);
    });
    let tp = ids.unwrap();
    assert!(
        tp.starts_with("00-4bf92f3577b34da6a3ce929d0e0e4736-"),
        "{tp}"
    );
    let line: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(line["trace_id"], "4bf92f3577b34da6a3ce929d0e0e4736");
    assert_eq!(line["span_id"].as_str().unwrap(), &tp[36..52]);
    assert_eq!(line["lane"], "domain:api");
    assert_eq!(line["message"], "lane started");
}

#[test]
fn human_lines_end_with_the_ids_and_logs_outside_spans_have_none() {
    let out = logged(false, true, || {
        tracing::info!("outside");
        let span = tracing::info_span!("revu.test");
        span.in_scope(|| tracing::info!("inside"));
    });
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(!lines[0].contains("trace_id="), "{out}");
    assert!(lines[1].contains(" trace_id="), "{out}");
    assert!(lines[1].contains(" span_id="), "{out}");
}

#[test]
fn without_tracing_no_context_is_written_or_read() {
    let mut tp = Some(String::new());
    let out = logged(true, false, || {
        let span = tracing::info_span!("revu.test");
        set_remote_parent(&span, Some(REMOTE), None);
        tp = traceparent(&span);
        span.in_scope(|| tracing::info!("inside"));
    });
    assert_eq!(tp, None);
    let line: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert!(line.get("trace_id").is_none(), "{line}");
}

#[test]
fn human_lines_are_coloured_only_when_asked() {
    let log = || tracing::warn!(lane = "domain:api", "lane faulted");
    let plain = logged_with(false, false, false, log);
    assert!(plain.contains("lane faulted"), "{plain}");
    assert!(!plain.contains('\x1b'), "{plain:?}");
    let coloured = logged_with(false, false, true, log);
    assert!(coloured.contains("\x1b["), "{coloured:?}");
}

#[test]
fn json_lines_have_no_colours_whatever_is_asked() {
    let out = logged_with(true, false, true, || {
        tracing::info!(lane = "domain:api", "lane started")
    });
    assert!(!out.contains('\x1b'), "{out:?}");
    let line: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(line["message"], "lane started");
}
