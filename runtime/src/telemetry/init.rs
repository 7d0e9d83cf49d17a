//! Installs the process's subscriber: logs always, OTLP trace export when a
//! [`TraceConfig`] asks for it.

use super::config::{SamplerChoice, TraceConfig};
use super::logfmt::{DispatchSlot, TraceIds};
use opentelemetry::KeyValue;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::WithExportConfig;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::{
    BatchConfigBuilder, BatchSpanProcessor, Sampler, SdkTracerProvider,
};
use std::sync::atomic::{AtomicBool, Ordering};
use tracing::Level;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer, Registry, filter};

/// Whether spans are exported; read by the propagation helpers so that they
/// cost nothing when traces are off.
pub(super) static EXPORTING: AtomicBool = AtomicBool::new(false);

pub(super) fn exporting() -> bool {
    EXPORTING.load(Ordering::Relaxed)
}

/// Errors setting up telemetry.
#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    #[error("otlp exporter for {endpoint}: {source}")]
    Exporter {
        endpoint: String,
        source: opentelemetry_otlp::ExporterBuildError,
    },
    #[error("a global subscriber is already installed")]
    AlreadyInstalled,
}

/// How logs are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogSettings<'a> {
    /// JSON lines instead of human-readable text.
    pub json: bool,
    /// Filter when `RUST_LOG` is unset.
    pub default_level: &'a str,
    /// Colour escapes in human-readable lines; for a terminal only (see
    /// [`super::stderr_colours`]), never for a file or a pipe.
    pub ansi: bool,
}

/// The installed telemetry; [`Telemetry::shutdown`] flushes pending spans.
#[derive(Debug)]
#[must_use = "call shutdown() before exit so pending spans are exported"]
pub struct Telemetry {
    provider: Option<SdkTracerProvider>,
}

impl Telemetry {
    /// Whether spans are exported.
    pub fn exporting(&self) -> bool {
        self.provider.is_some()
    }

    /// Exports what is pending and stops the exporter. The batch processor
    /// blocks while it flushes, so it runs off the async runtime.
    pub async fn shutdown(mut self) {
        let Some(provider) = self.provider.take() else {
            return;
        };
        let done = tokio::task::spawn_blocking(move || provider.shutdown()).await;
        match done {
            Ok(Ok(())) => {}
            Ok(Err(e)) => tracing::warn!(error = %e, "flushing spans failed"),
            Err(e) => tracing::warn!(error = %e, "flushing spans panicked"),
        }
        EXPORTING.store(false, Ordering::Relaxed);
    }
}

fn sampler(choice: SamplerChoice) -> Sampler {
    match choice {
        SamplerChoice::AlwaysOn => Sampler::AlwaysOn,
        SamplerChoice::AlwaysOff => Sampler::AlwaysOff,
        SamplerChoice::TraceIdRatio(r) => Sampler::TraceIdRatioBased(r),
        SamplerChoice::ParentBasedAlwaysOn => Sampler::ParentBased(Box::new(Sampler::AlwaysOn)),
        SamplerChoice::ParentBasedAlwaysOff => Sampler::ParentBased(Box::new(Sampler::AlwaysOff)),
        SamplerChoice::ParentBasedTraceIdRatio(r) => {
            Sampler::ParentBased(Box::new(Sampler::TraceIdRatioBased(r)))
        }
    }
}

/// Builds the tracer provider. Must run inside a Tokio runtime: the gRPC
/// client of the exporter lives on it.
fn provider(config: &TraceConfig) -> Result<SdkTracerProvider, TelemetryError> {
    let mut exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_tonic()
        .with_endpoint(config.endpoint.clone());
    if let Some(timeout) = config.export_timeout {
        exporter = exporter.with_timeout(timeout);
    }
    let exporter = exporter
        .build()
        .map_err(|source| TelemetryError::Exporter {
            endpoint: config.endpoint.clone(),
            source,
        })?;
    let batch = BatchConfigBuilder::default()
        .with_scheduled_delay(config.batch.schedule_delay)
        .with_max_queue_size(config.batch.max_queue_size)
        .with_max_export_batch_size(config.batch.max_export_batch_size)
        .build();
    let processor = BatchSpanProcessor::builder(exporter)
        .with_batch_config(batch)
        .build();
    let resource = Resource::builder_empty()
        .with_attributes(
            config
                .resource
                .iter()
                .map(|(k, v)| KeyValue::new(k.clone(), v.clone())),
        )
        .with_service_name(config.service_name.clone())
        .build();
    Ok(SdkTracerProvider::builder()
        .with_span_processor(processor)
        .with_sampler(sampler(config.sampler))
        .with_resource(resource)
        .build())
}

/// The subscriber: `fmt` logs filtered by `RUST_LOG`, and with `provider`
/// the OpenTelemetry layer, which sees revu's own spans at INFO and above
/// whatever `RUST_LOG` says about logs.
pub(super) fn subscriber<W>(
    logs: LogSettings<'_>,
    provider: Option<&SdkTracerProvider>,
    writer: W,
) -> impl tracing::Subscriber + Send + Sync + 'static
where
    W: for<'w> tracing_subscriber::fmt::MakeWriter<'w> + Send + Sync + 'static,
{
    let env_filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(logs.default_level));
    let dispatch = DispatchSlot::default();
    // With export, lines are assembled before they are written, which
    // colours would garble.
    let slot = provider.map(|_| dispatch.clone());
    let base = tracing_subscriber::fmt::layer()
        .with_writer(writer)
        .with_ansi(logs.ansi && slot.is_none());
    let fmt_layer = if logs.json {
        base.json()
            .flatten_event(true)
            .map_event_format(|f| TraceIds::new(f, slot, true))
            .with_filter(env_filter)
            .boxed()
    } else {
        base.map_event_format(|f| TraceIds::new(f, slot, false))
            .with_filter(env_filter)
            .boxed()
    };
    let otel_layer = provider.map(|p| {
        tracing_opentelemetry::layer()
            .with_tracer(p.tracer("revu"))
            .with_threads(false)
            .with_filter(filter::filter_fn(|meta| {
                meta.target().starts_with("revu") && *meta.level() <= Level::INFO
            }))
    });
    Registry::default()
        .with(otel_layer)
        .with(dispatch)
        .with(fmt_layer)
}

/// Installs logs and, with `traces`, span export over OTLP/gRPC. Call it
/// once, inside the runtime.
pub fn init(
    logs: LogSettings<'_>,
    traces: Option<&TraceConfig>,
) -> Result<Telemetry, TelemetryError> {
    let provider = traces.map(provider).transpose()?;
    subscriber(logs, provider.as_ref(), std::io::stderr)
        .try_init()
        .map_err(|_| TelemetryError::AlreadyInstalled)?;
    if let Some(config) = traces {
        EXPORTING.store(true, Ordering::Relaxed);
        for warning in &config.warnings {
            tracing::warn!(warning, "otel setting ignored");
        }
        tracing::info!(
            endpoint = %config.endpoint,
            service = %config.service_name,
            "exporting traces over otlp"
        );
    }
    Ok(Telemetry { provider })
}
