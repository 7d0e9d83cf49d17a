//! Log lines that carry the trace and span ids of the span they were
//! written in, when spans are exported.

use opentelemetry::trace::TraceContextExt;
use std::fmt;
use std::sync::{Arc, OnceLock};
use tracing::dispatcher::WeakDispatch;
use tracing::{Dispatch, Event, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::registry::LookupSpan;

/// Holds the subscriber the process installed, so that the log formatter
/// can ask the OpenTelemetry layer for a span's context. A layer only to
/// learn the dispatch when it is registered.
#[derive(Debug, Clone, Default)]
pub(super) struct DispatchSlot(Arc<OnceLock<WeakDispatch>>);

impl DispatchSlot {
    fn get(&self) -> Option<Dispatch> {
        self.0.get().and_then(WeakDispatch::upgrade)
    }
}

impl<S: Subscriber> Layer<S> for DispatchSlot {
    fn on_register_dispatch(&self, subscriber: &Dispatch) {
        let _ = self.0.set(subscriber.downgrade());
    }
}

/// Wraps an event format: with a [`DispatchSlot`] (spans exported), adds
/// `trace_id` and `span_id` of the event's span to the line; without one
/// the output is the inner format's, untouched.
#[derive(Debug)]
pub(super) struct TraceIds<F> {
    inner: F,
    slot: Option<DispatchSlot>,
    json: bool,
}

impl<F> TraceIds<F> {
    pub(super) fn new(inner: F, slot: Option<DispatchSlot>, json: bool) -> Self {
        TraceIds { inner, slot, json }
    }
}

impl<S, N, F> FormatEvent<S, N> for TraceIds<F>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
    F: FormatEvent<S, N>,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        let ids = self.slot.as_ref().and_then(|slot| {
            let span = ctx.parent_span()?;
            let dispatch = slot.get()?;
            let cx = tracing_opentelemetry::get_otel_context(&span.id(), &dispatch)?;
            let span_ref = cx.span();
            let sc = span_ref.span_context();
            sc.is_valid()
                .then(|| (sc.trace_id().to_string(), sc.span_id().to_string()))
        });
        let Some((trace_id, span_id)) = ids else {
            return self.inner.format_event(ctx, writer, event);
        };
        let mut line = String::new();
        self.inner
            .format_event(ctx, Writer::new(&mut line), event)?;
        let body = line.trim_end_matches('\n');
        if self.json
            && let Some(open) = body.strip_suffix('}')
        {
            let sep = if open.trim_end().ends_with('{') {
                ""
            } else {
                ","
            };
            writeln!(
                writer,
                "{open}{sep}\"trace_id\":\"{trace_id}\",\"span_id\":\"{span_id}\"}}"
            )
        } else {
            writeln!(writer, "{body} trace_id={trace_id} span_id={span_id}")
        }
    }
}
