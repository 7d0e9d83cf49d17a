//! W3C trace context across process boundaries: into a lane job, out of a
//! lane job or gRPC metadata, into the review record and back.
//!
//! Every helper returns at once when spans are not exported, so a process
//! without traces neither writes nor reads a `traceparent`.

use super::init::exporting;
use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::trace::TraceContextExt;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use std::collections::HashMap;
use tracing_opentelemetry::OpenTelemetrySpanExt;

const TRACEPARENT: &str = "traceparent";
const TRACESTATE: &str = "tracestate";

/// The `traceparent` of `span`, to hand to whatever continues its trace;
/// `None` when spans are not exported.
pub fn traceparent(span: &tracing::Span) -> Option<String> {
    if !exporting() {
        return None;
    }
    let cx = span.context();
    if !cx.span().span_context().is_valid() {
        return None;
    }
    let mut carrier = HashMap::new();
    TraceContextPropagator::new().inject_context(&cx, &mut carrier);
    carrier.remove(TRACEPARENT)
}

/// Makes the remote span named by `traceparent` (and `tracestate`) the
/// parent of `span`. Call it before `span` is entered or has children; a
/// missing or malformed `traceparent` leaves `span` a root.
pub fn set_remote_parent(
    span: &tracing::Span,
    traceparent: Option<&str>,
    tracestate: Option<&str>,
) {
    if !exporting() {
        return;
    }
    let Some(traceparent) = traceparent else {
        return;
    };
    let mut carrier = HashMap::from([(TRACEPARENT.to_owned(), traceparent.to_owned())]);
    if let Some(state) = tracestate {
        carrier.insert(TRACESTATE.to_owned(), state.to_owned());
    }
    let cx = TraceContextPropagator::new().extract(&carrier);
    if !cx.span().span_context().is_valid() {
        tracing::debug!(traceparent, "malformed traceparent ignored");
        return;
    }
    if let Err(e) = span.set_parent(cx) {
        tracing::debug!(error = %e, "span parent not set");
    }
}
