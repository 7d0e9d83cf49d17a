//! An OTLP/gRPC trace receiver for tests: the revu processes export to it
//! as they would to a collector, and the test reads what arrived.

use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::common::v1::any_value::Value;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_stream::wrappers::TcpListenerStream;

/// One span as received, flattened.
#[derive(Debug, Clone, PartialEq)]
pub struct ReceivedSpan {
    /// `service.name` of the exporting process.
    pub service: String,
    pub name: String,
    pub trace_id: String,
    pub span_id: String,
    /// Empty for a root span.
    pub parent_span_id: String,
    /// OTLP span kind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer.
    pub kind: i32,
    /// Attribute values as text.
    pub attributes: BTreeMap<String, String>,
}

impl ReceivedSpan {
    pub fn attr(&self, key: &str) -> Option<&str> {
        self.attributes.get(key).map(String::as_str)
    }
}

fn text(kv: &KeyValue) -> String {
    match kv.value.as_ref().and_then(|v| v.value.as_ref()) {
        Some(Value::StringValue(s)) => s.clone(),
        Some(Value::IntValue(i)) => i.to_string(),
        Some(Value::BoolValue(b)) => b.to_string(),
        Some(Value::DoubleValue(d)) => d.to_string(),
        Some(other) => format!("{other:?}"),
        None => String::new(),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[derive(Debug, Clone, Default)]
struct Sink(Arc<Mutex<Vec<ReceivedSpan>>>);

#[tonic::async_trait]
impl TraceService for Sink {
    async fn export(
        &self,
        request: tonic::Request<ExportTraceServiceRequest>,
    ) -> Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
        let mut received = Vec::new();
        for rs in request.into_inner().resource_spans {
            let service = rs
                .resource
                .as_ref()
                .and_then(|r| r.attributes.iter().find(|kv| kv.key == "service.name"))
                .map(text)
                .unwrap_or_default();
            for ss in rs.scope_spans {
                for span in ss.spans {
                    received.push(ReceivedSpan {
                        service: service.clone(),
                        name: span.name.clone(),
                        trace_id: hex(&span.trace_id),
                        span_id: hex(&span.span_id),
                        parent_span_id: hex(&span.parent_span_id),
                        kind: span.kind,
                        attributes: span
                            .attributes
                            .iter()
                            .map(|kv| (kv.key.clone(), text(kv)))
                            .collect(),
                    });
                }
            }
        }
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend(received);
        Ok(tonic::Response::new(ExportTraceServiceResponse {
            partial_success: None,
        }))
    }
}

/// A running receiver on a loopback port; stops when dropped.
#[derive(Debug)]
pub struct OtlpReceiver {
    pub endpoint: String,
    sink: Sink,
    server: tokio::task::JoinHandle<()>,
}

impl OtlpReceiver {
    /// Starts a receiver on `127.0.0.1:0` on the current Tokio runtime.
    pub async fn start() -> OtlpReceiver {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap_or_else(|e| panic!("binding the otlp receiver: {e}"));
        let addr = listener
            .local_addr()
            .unwrap_or_else(|e| panic!("otlp receiver address: {e}"));
        let sink = Sink::default();
        let service = TraceServiceServer::new(sink.clone());
        let server = tokio::spawn(async move {
            let _ = tonic::transport::Server::builder()
                .add_service(service)
                .serve_with_incoming(TcpListenerStream::new(listener))
                .await;
        });
        OtlpReceiver {
            endpoint: format!("http://{addr}"),
            sink,
            server,
        }
    }

    /// Every span received so far.
    pub fn spans(&self) -> Vec<ReceivedSpan> {
        self.sink
            .0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Polls until `ready` holds for the spans received, or panics after
    /// `within` with what did arrive.
    pub async fn wait_for(
        &self,
        within: Duration,
        what: &str,
        ready: impl Fn(&[ReceivedSpan]) -> bool,
    ) -> Vec<ReceivedSpan> {
        let started = Instant::now();
        loop {
            let spans = self.spans();
            if ready(&spans) {
                return spans;
            }
            assert!(
                started.elapsed() < within,
                "{what}: not received within {within:?}; got {} span(s): {:#?}",
                spans.len(),
                spans
                    .iter()
                    .map(|s| format!("{} {} {:?}", s.service, s.name, s.attributes))
                    .collect::<Vec<_>>()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The environment that makes a revu process export here as `service`.
    pub fn env(&self, service: &str) -> Vec<(String, String)> {
        vec![
            (
                "OTEL_EXPORTER_OTLP_ENDPOINT".to_owned(),
                self.endpoint.clone(),
            ),
            ("OTEL_SERVICE_NAME".to_owned(), service.to_owned()),
            ("OTEL_BSP_SCHEDULE_DELAY".to_owned(), "100".to_owned()),
            (
                "OTEL_TRACES_SAMPLER".to_owned(),
                "parentbased_always_on".to_owned(),
            ),
        ]
    }
}

impl Drop for OtlpReceiver {
    fn drop(&mut self) {
        self.server.abort();
    }
}
