//! Trace export settings, from the standard `OTEL_*` variables.
//!
//! The binaries read their environment once, in `main`, and hand the lookup
//! to [`TraceConfig::from_lookup`]; nothing below `main` reads the
//! environment. Traces are off unless `OTEL_TRACES_EXPORTER=otlp` or an OTLP
//! endpoint is set, and `OTEL_SDK_DISABLED=true` turns them off regardless.

use serde::Serialize;
use std::time::Duration;

/// The OTLP/gRPC endpoint when only `OTEL_TRACES_EXPORTER=otlp` is set.
pub const DEFAULT_ENDPOINT: &str = "http://localhost:4317";

/// How root spans are sampled (`OTEL_TRACES_SAMPLER` and its argument).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SamplerChoice {
    AlwaysOn,
    AlwaysOff,
    TraceIdRatio(f64),
    ParentBasedAlwaysOn,
    ParentBasedAlwaysOff,
    ParentBasedTraceIdRatio(f64),
}

/// The batch span processor's settings (`OTEL_BSP_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct BatchSettings {
    pub schedule_delay: Duration,
    pub max_queue_size: usize,
    pub max_export_batch_size: usize,
}

impl Default for BatchSettings {
    fn default() -> Self {
        BatchSettings {
            schedule_delay: Duration::from_millis(5_000),
            max_queue_size: 2_048,
            max_export_batch_size: 512,
        }
    }
}

/// Where and how spans are exported. `None` from [`TraceConfig::from_lookup`]
/// means traces are off.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TraceConfig {
    /// OTLP/gRPC endpoint (`http://host:4317`).
    pub endpoint: String,
    /// Per-export deadline of the OTLP client (`OTEL_EXPORTER_OTLP_TIMEOUT`).
    pub export_timeout: Option<Duration>,
    pub service_name: String,
    /// Extra resource attributes (`OTEL_RESOURCE_ATTRIBUTES`).
    pub resource: Vec<(String, String)>,
    pub sampler: SamplerChoice,
    pub batch: BatchSettings,
    /// Values that were set but not understood, and what was used instead.
    #[serde(skip)]
    pub warnings: Vec<String>,
}

fn truthy(v: &str) -> bool {
    v.trim().eq_ignore_ascii_case("true")
}

fn millis(
    get: &impl Fn(&str) -> Option<String>,
    key: &str,
    warnings: &mut Vec<String>,
) -> Option<Duration> {
    let raw = get(key)?;
    match raw.trim().parse::<u64>() {
        Ok(ms) => Some(Duration::from_millis(ms)),
        Err(_) => {
            warnings.push(format!("{key}={raw:?} is not milliseconds; ignored"));
            None
        }
    }
}

fn count(
    get: &impl Fn(&str) -> Option<String>,
    key: &str,
    warnings: &mut Vec<String>,
) -> Option<usize> {
    let raw = get(key)?;
    match raw.trim().parse::<usize>() {
        Ok(n) if n > 0 => Some(n),
        _ => {
            warnings.push(format!("{key}={raw:?} is not a positive count; ignored"));
            None
        }
    }
}

fn sampler(get: &impl Fn(&str) -> Option<String>, warnings: &mut Vec<String>) -> SamplerChoice {
    let Some(name) = get("OTEL_TRACES_SAMPLER") else {
        return SamplerChoice::ParentBasedAlwaysOn;
    };
    let ratio = || match get("OTEL_TRACES_SAMPLER_ARG") {
        None => Ok(1.0),
        Some(raw) => match raw.trim().parse::<f64>() {
            Ok(r) if (0.0..=1.0).contains(&r) => Ok(r),
            _ => Err(format!(
                "OTEL_TRACES_SAMPLER_ARG={raw:?} is not a ratio in [0, 1]; using 1.0"
            )),
        },
    };
    let mut ratio_or_warn = || {
        ratio().unwrap_or_else(|w| {
            warnings.push(w);
            1.0
        })
    };
    match name.trim().to_ascii_lowercase().as_str() {
        "always_on" => SamplerChoice::AlwaysOn,
        "always_off" => SamplerChoice::AlwaysOff,
        "traceidratio" => SamplerChoice::TraceIdRatio(ratio_or_warn()),
        "parentbased_always_on" => SamplerChoice::ParentBasedAlwaysOn,
        "parentbased_always_off" => SamplerChoice::ParentBasedAlwaysOff,
        "parentbased_traceidratio" => SamplerChoice::ParentBasedTraceIdRatio(ratio_or_warn()),
        other => {
            warnings.push(format!(
                "OTEL_TRACES_SAMPLER={other:?} is not supported; using parentbased_always_on"
            ));
            SamplerChoice::ParentBasedAlwaysOn
        }
    }
}

/// `key1=value1,key2=value2`, values percent-decoded.
fn resource_attributes(raw: &str) -> Vec<(String, String)> {
    raw.split(',')
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| (k.trim().to_owned(), percent_decode(v.trim())))
        .filter(|(k, _)| !k.is_empty())
        .collect()
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

impl TraceConfig {
    /// Reads the `OTEL_*` settings through `get` (in a binary:
    /// `|k| std::env::var(k).ok()`). `default_service` names the service
    /// when `OTEL_SERVICE_NAME` does not.
    pub fn from_lookup(
        get: impl Fn(&str) -> Option<String>,
        default_service: &str,
    ) -> Option<TraceConfig> {
        let get = |k: &str| get(k).filter(|v| !v.trim().is_empty());
        if get("OTEL_SDK_DISABLED").is_some_and(|v| truthy(&v)) {
            return None;
        }
        let mut warnings = Vec::new();
        let endpoint = get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
            .or_else(|| get("OTEL_EXPORTER_OTLP_ENDPOINT"));
        match get("OTEL_TRACES_EXPORTER").map(|v| v.trim().to_ascii_lowercase()) {
            Some(v) if v == "none" => return None,
            Some(v) if v == "otlp" => {}
            Some(other) => {
                warnings.push(format!(
                    "OTEL_TRACES_EXPORTER={other:?} is not supported; exporting over otlp"
                ));
            }
            None if endpoint.is_none() => return None,
            None => {}
        }
        let protocol = get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
            .or_else(|| get("OTEL_EXPORTER_OTLP_PROTOCOL"));
        if let Some(p) = protocol.filter(|p| p.trim() != "grpc") {
            warnings.push(format!(
                "OTLP protocol {p:?} is not supported; exporting over grpc"
            ));
        }
        let defaults = BatchSettings::default();
        let batch = BatchSettings {
            schedule_delay: millis(&get, "OTEL_BSP_SCHEDULE_DELAY", &mut warnings)
                .unwrap_or(defaults.schedule_delay),
            max_queue_size: count(&get, "OTEL_BSP_MAX_QUEUE_SIZE", &mut warnings)
                .unwrap_or(defaults.max_queue_size),
            max_export_batch_size: count(&get, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", &mut warnings)
                .unwrap_or(defaults.max_export_batch_size),
        };
        let export_timeout = millis(&get, "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", &mut warnings)
            .or_else(|| millis(&get, "OTEL_EXPORTER_OTLP_TIMEOUT", &mut warnings));
        let resource = get("OTEL_RESOURCE_ATTRIBUTES")
            .map(|r| resource_attributes(&r))
            .unwrap_or_default();
        let service_name = get("OTEL_SERVICE_NAME")
            .or_else(|| {
                resource
                    .iter()
                    .find(|(k, _)| k == "service.name")
                    .map(|(_, v)| v.clone())
            })
            .unwrap_or_else(|| default_service.to_owned());
        Some(TraceConfig {
            endpoint: endpoint.unwrap_or_else(|| DEFAULT_ENDPOINT.to_owned()),
            export_timeout,
            service_name,
            resource,
            sampler: sampler(&get, &mut warnings),
            batch,
            warnings,
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn config(vars: &[(&str, &str)]) -> Option<TraceConfig> {
        let vars: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        TraceConfig::from_lookup(|k| vars.get(k).cloned(), "revu-test")
    }

    #[test]
    fn off_unless_an_endpoint_or_the_otlp_exporter_is_named() {
        assert_eq!(config(&[]), None);
        assert_eq!(config(&[("OTEL_SERVICE_NAME", "x")]), None);
        assert_eq!(
            config(&[("OTEL_TRACES_EXPORTER", "otlp")])
                .unwrap()
                .endpoint,
            DEFAULT_ENDPOINT
        );
        let c = config(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")]).unwrap();
        assert_eq!(c.endpoint, "http://127.0.0.1:9");
        assert_eq!(c.service_name, "revu-test");
        assert_eq!(c.sampler, SamplerChoice::ParentBasedAlwaysOn);
        assert_eq!(
            config(&[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9"),
                ("OTEL_SDK_DISABLED", "true")
            ]),
            None
        );
        assert_eq!(
            config(&[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9"),
                ("OTEL_TRACES_EXPORTER", "none")
            ]),
            None
        );
    }

    #[test]
    fn sampler_service_resource_and_batch_settings_are_honoured() {
        let c = config(&[
            ("OTEL_TRACES_EXPORTER", "otlp"),
            ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://a:1"),
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://b:2"),
            ("OTEL_TRACES_SAMPLER", "parentbased_traceidratio"),
            ("OTEL_TRACES_SAMPLER_ARG", "0.25"),
            (
                "OTEL_RESOURCE_ATTRIBUTES",
                "deployment.environment=ci,team=a%2Cb",
            ),
            ("OTEL_BSP_SCHEDULE_DELAY", "100"),
            ("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "nope"),
        ])
        .unwrap();
        assert_eq!(c.endpoint, "http://a:1");
        assert_eq!(c.sampler, SamplerChoice::ParentBasedTraceIdRatio(0.25));
        assert_eq!(c.batch.schedule_delay, Duration::from_millis(100));
        assert_eq!(c.batch.max_export_batch_size, 512);
        assert_eq!(c.warnings.len(), 1, "{:?}", c.warnings);
        assert_eq!(
            c.resource,
            vec![
                ("deployment.environment".to_owned(), "ci".to_owned()),
                ("team".to_owned(), "a,b".to_owned())
            ]
        );
        let named = config(&[
            ("OTEL_TRACES_EXPORTER", "otlp"),
            ("OTEL_RESOURCE_ATTRIBUTES", "service.name=from-resource"),
        ])
        .unwrap();
        assert_eq!(named.service_name, "from-resource");
        let bad = config(&[
            ("OTEL_TRACES_EXPORTER", "otlp"),
            ("OTEL_TRACES_SAMPLER", "traceidratio"),
            ("OTEL_TRACES_SAMPLER_ARG", "7"),
        ])
        .unwrap();
        assert_eq!(bad.sampler, SamplerChoice::TraceIdRatio(1.0));
        assert_eq!(bad.warnings.len(), 1);
    }
}
