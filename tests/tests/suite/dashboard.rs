//! The Grafana dashboard and its provisioning: valid, loadable without
//! clicking, and asking only for metrics and span attributes the code
//! emits. The emitted names come from the code itself: the metric
//! registries of coordinator and worker, and the span name and attribute
//! constants.

use revu_coordinator::metrics::CoordinatorMetrics;
use revu_domain::telemetry::names::{attr, span};
use revu_runtime::metrics::Readiness;
use revu_tests::scrape::declared_names;
use revu_worker::metrics::WorkerMetrics;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::PathBuf;
use yaml_rust2::{Yaml, YamlLoader};

fn deploy(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../deploy/grafana")
        .join(path)
}

fn read(path: &str) -> String {
    std::fs::read_to_string(deploy(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn dashboard() -> Value {
    serde_json::from_str(&read("dashboards/revu.json"))
        .unwrap_or_else(|e| panic!("dashboards/revu.json is not JSON: {e}"))
}

fn yaml(path: &str) -> Yaml {
    let docs = YamlLoader::load_from_str(&read(path))
        .unwrap_or_else(|e| panic!("{path} is not YAML: {e}"));
    assert_eq!(docs.len(), 1, "{path}: one document");
    docs.into_iter().next().unwrap_or(Yaml::Null)
}

/// Every metric name the binaries export, as samples are named: from the
/// catalogs their registries are built with (each binary adds its
/// readiness gauge to its own), checked against what the registries
/// encode once every family has a sample.
fn emitted_metrics() -> BTreeSet<String> {
    let (_, mut coordinator) = CoordinatorMetrics::registered();
    let (_, mut worker) = WorkerMetrics::registered();
    for catalog in [&mut coordinator, &mut worker] {
        Readiness::default().register(catalog);
    }
    let names: BTreeSet<String> = [&coordinator, &worker]
        .iter()
        .flat_map(|c| c.sample_names().iter().cloned())
        .collect();
    // What the registries declare is a subset (empty families declare
    // nothing), and must agree with the catalogs.
    for catalog in [coordinator, worker] {
        let encoded = revu_runtime::metrics::encode(&catalog.into_registry());
        for declared in declared_names(&encoded) {
            assert!(
                names.contains(&declared),
                "{declared} missing from the catalog"
            );
        }
    }
    names
}

/// Every panel, rows' nested panels included.
fn panels(d: &Value) -> Vec<&Value> {
    let mut out = Vec::new();
    for p in d["panels"].as_array().into_iter().flatten() {
        out.push(p);
        out.extend(p["panels"].as_array().into_iter().flatten());
    }
    out
}

fn targets<'a>(d: &'a Value, ds_type: &str) -> Vec<&'a Value> {
    panels(d)
        .into_iter()
        .flat_map(|p| p["targets"].as_array().into_iter().flatten())
        .filter(|t| t["datasource"]["type"] == ds_type)
        .collect()
}

/// Identifiers starting with `revu_` in a PromQL expression, with the
/// byte offset each starts at.
fn metric_refs(expr: &str) -> Vec<(usize, String)> {
    let mut refs = Vec::new();
    let mut from = 0;
    while let Some(found) = expr[from..].find("revu_") {
        let at = from + found;
        let tail = &expr[at..];
        let end = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(tail.len());
        refs.push((at, tail[..end].to_owned()));
        from = at + end;
    }
    refs
}

/// Identifiers starting with `revu_` in a PromQL expression.
fn metric_names(expr: &str) -> Vec<String> {
    metric_refs(expr)
        .into_iter()
        .map(|(_, name)| name)
        .collect()
}

/// `(scope, attribute)` pairs a TraceQL query reads (`span.revu.lane.id`),
/// and the span names it matches (`name = "…"`).
fn traceql_refs(query: &str) -> (Vec<(String, String)>, Vec<String>) {
    let mut attrs = Vec::new();
    for scope in ["span.", "resource."] {
        let mut rest = query;
        while let Some(at) = rest.find(scope) {
            let preceded = rest[..at].chars().last();
            let tail = &rest[at + scope.len()..];
            let end = tail
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
                .unwrap_or(tail.len());
            if !preceded.is_some_and(|c| c.is_ascii_alphanumeric() || c == '.') {
                attrs.push((
                    scope.trim_end_matches('.').to_owned(),
                    tail[..end].to_owned(),
                ));
            }
            rest = &tail[end..];
        }
    }
    let mut names = Vec::new();
    let mut rest = query;
    while let Some(at) = rest.find("name = \"") {
        let tail = &rest[at + 8..];
        let end = tail.find('"').unwrap_or(tail.len());
        names.push(tail[..end].to_owned());
        rest = &tail[end..];
    }
    (attrs, names)
}

#[test]
fn the_dashboard_is_valid_grafana_json_with_a_sane_layout() {
    let d = dashboard();
    assert_eq!(d["uid"], "revu-lanes");
    assert!(d["title"].as_str().is_some_and(|t| !t.is_empty()));
    assert!(d["schemaVersion"].as_u64().is_some_and(|v| v >= 36));
    let all = panels(&d);
    assert!(all.len() > 10, "{} panels", all.len());
    let mut ids = BTreeSet::new();
    for p in &all {
        let id = p["id"]
            .as_u64()
            .unwrap_or_else(|| panic!("panel without id: {p}"));
        assert!(ids.insert(id), "duplicate panel id {id}");
        assert!(p["title"].as_str().is_some_and(|t| !t.is_empty()), "{p}");
        let g = &p["gridPos"];
        let (x, w) = (g["x"].as_u64().unwrap_or(99), g["w"].as_u64().unwrap_or(99));
        assert!(x + w <= 24 && g["h"].as_u64().is_some(), "bad gridPos: {p}");
        if p["type"] != "row" {
            let targets = p["targets"].as_array().map_or(0, Vec::len);
            assert!(targets > 0, "panel {} queries nothing", p["title"]);
        }
    }
}

#[test]
fn every_metric_the_dashboard_queries_is_exported() {
    let emitted = emitted_metrics();
    assert!(
        emitted.contains("revu_lane_duration_seconds_bucket"),
        "{emitted:?}"
    );
    let d = dashboard();
    let mut used = BTreeSet::new();
    for t in targets(&d, "prometheus") {
        let expr = t["expr"]
            .as_str()
            .unwrap_or_else(|| panic!("target without expr: {t}"));
        let names = metric_names(expr);
        assert!(!names.is_empty(), "query reads no revu metric: {expr}");
        used.extend(names);
    }
    let unknown: Vec<&String> = used.iter().filter(|n| !emitted.contains(*n)).collect();
    assert!(
        unknown.is_empty(),
        "not exported: {unknown:?}; exported: {emitted:?}"
    );
    for wanted in [
        "revu_lane_duration_seconds_bucket",
        "revu_lane_attempt_duration_seconds_bucket",
        "revu_lane_retries_total",
        "revu_lane_faults_total",
        "revu_dead_letters_total",
        "revu_queue_consumer_lag",
        "revu_queue_pending",
        "revu_queue_stream_length",
        "revu_queue_oldest_age_seconds",
        "revu_queue_delayed",
        "revu_queue_dead_letter_length",
        "revu_ready",
        "revu_reviews_finished_total",
        "revu_reviews_in_flight",
        "revu_reviews_past_deadline_total",
        "revu_stage_duration_seconds_bucket",
        "revu_tenant_reviews_submitted_total",
        "revu_tenant_quota_refusals_total",
        "revu_unauthenticated_calls_total",
        "revu_lane_cache_total",
        "revu_model_tokens_total",
        "revu_model_cost_usd_total",
        "revu_model_requests_total",
        "revu_model_request_failures_total",
    ] {
        assert!(used.contains(wanted), "the dashboard shows no {wanted}");
    }
}

/// The labels of `by (…)` clauses in a PromQL expression.
fn grouped_by(expr: &str) -> Vec<String> {
    let mut labels = Vec::new();
    let mut rest = expr;
    while let Some(at) = rest.find("by (") {
        let tail = &rest[at + 4..];
        let end = tail.find(')').unwrap_or(tail.len());
        labels.extend(tail[..end].split(',').map(|l| l.trim().to_owned()));
        rest = &tail[end..];
    }
    labels
}

#[test]
fn model_panels_group_by_bounded_labels_only() {
    let d = dashboard();
    let bounded = [
        "engine",
        "model",
        "lane_kind",
        "kind",
        "direction",
        "reason",
    ];
    let mut model_queries = 0;
    for t in targets(&d, "prometheus") {
        let expr = t["expr"].as_str().unwrap_or_default();
        if !expr.contains("revu_model_") {
            continue;
        }
        model_queries += 1;
        for label in grouped_by(expr) {
            assert!(bounded.contains(&label.as_str()), "{label} in {expr}");
        }
    }
    // Tokens, cost, prompt cache hit rate, reasoning share, requests,
    // rate-limited requests and failures by reason.
    assert!(model_queries >= 7, "{model_queries} model queries");
}

/// Gauges every coordinator samples from the same Redis: each replica
/// exports the same value, so a sum over replicas counts it once per
/// replica.
const SAMPLED: [&str; 7] = [
    "revu_queue_stream_length",
    "revu_queue_consumer_lag",
    "revu_queue_pending",
    "revu_queue_oldest_age_seconds",
    "revu_queue_delayed",
    "revu_queue_dead_letter_length",
    "revu_reviews_in_flight",
];

/// Whether `text` ends with the PromQL word `word`, not with a longer
/// identifier (`max`, not `max_over_time` or `xmax`).
fn ends_with_word(text: &str, word: &str) -> bool {
    text.strip_suffix(word).is_some_and(|before| {
        !before
            .chars()
            .last()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// The `max` applied first to the metric that starts at byte `at` of
/// `expr`: where it starts and the labels of its `by` clause (none for a
/// plain `max(…)`). `None` when something else applies to it first.
fn max_over(expr: &str, at: usize) -> Option<(usize, Vec<String>)> {
    let before = expr[..at].trim_end().strip_suffix('(')?.trim_end();
    if ends_with_word(before, "max") {
        return Some((before.len() - 3, Vec::new()));
    }
    let clause = before.strip_suffix(')')?;
    let open = clause.rfind('(')?;
    let labels = clause[open + 1..]
        .split(',')
        .map(|l| l.trim().to_owned())
        .filter(|l| !l.is_empty())
        .collect();
    let by = clause[..open].trim_end();
    if !ends_with_word(by, "by") {
        return None;
    }
    let aggregation = by[..by.len() - 2].trim_end();
    ends_with_word(aggregation, "max").then(|| (aggregation.len() - 3, labels))
}

#[test]
fn queue_gauges_are_per_engine_and_shard_and_taken_as_max_over_coordinators() {
    let d = dashboard();
    let mut checked = BTreeSet::new();
    let mut per_shard = BTreeSet::new();
    for t in targets(&d, "prometheus") {
        let expr = t["expr"].as_str().unwrap_or_default();
        let refs = metric_refs(expr);
        if !refs
            .iter()
            .any(|(_, name)| SAMPLED.contains(&name.as_str()))
        {
            continue;
        }
        // The job streams are labelled by engine and shard: the `stream`
        // label is gone, in groupings, matchers and legends alike.
        let mut labels_only = expr.to_owned();
        for (_, name) in &refs {
            labels_only = labels_only.replace(name.as_str(), "");
        }
        assert!(!labels_only.contains("stream"), "stream label in {expr}");
        let legend = t["legendFormat"].as_str().unwrap_or_default();
        assert!(
            !legend.contains("{{stream}}"),
            "stream label in legend {legend}"
        );
        for (at, name) in refs {
            if !SAMPLED.contains(&name.as_str()) {
                continue;
            }
            let (start, by) = max_over(expr, at)
                .unwrap_or_else(|| panic!("{name} is not taken as max over coordinators: {expr}"));
            // A sum may follow, over shards or engines, once each stream
            // has its one value: never straight over replicas.
            if expr[..start].contains("sum") {
                for label in ["engine", "shard"] {
                    assert!(
                        by.iter().any(|l| l == label),
                        "{name} summed before a max by (engine, shard): {expr}"
                    );
                }
            }
            if by.iter().any(|l| l == "engine") && by.iter().any(|l| l == "shard") {
                per_shard.insert(name.clone());
            }
            checked.insert(name);
        }
    }
    for name in SAMPLED {
        assert!(checked.contains(name), "the dashboard shows no {name}");
    }
    for name in [
        "revu_queue_consumer_lag",
        "revu_queue_pending",
        "revu_queue_oldest_age_seconds",
    ] {
        assert!(
            per_shard.contains(name),
            "{name} is not shown per engine and shard"
        );
    }
}

#[test]
fn every_span_name_and_attribute_the_trace_panels_query_is_emitted() {
    let d = dashboard();
    let queries: Vec<&str> = targets(&d, "tempo")
        .into_iter()
        .map(|t| {
            t["query"]
                .as_str()
                .unwrap_or_else(|| panic!("tempo target without query: {t}"))
        })
        .collect();
    assert!(queries.len() >= 2, "slowest and faulted lanes: {queries:?}");
    let mut read = BTreeSet::new();
    for q in &queries {
        let (attrs, names) = traceql_refs(q);
        assert!(!names.is_empty(), "query matches no span name: {q}");
        for name in names {
            assert!(
                span::ALL.contains(&name.as_str()),
                "no span is named {name:?}: {q}"
            );
        }
        for (scope, key) in attrs {
            match scope.as_str() {
                "span" => assert!(
                    attr::ALL.contains(&key.as_str()),
                    "no span attribute {key}: {q}"
                ),
                _ => assert_eq!(key, "service.name", "resource attribute: {q}"),
            }
            read.insert(key);
        }
    }
    for wanted in [
        attr::LANE_ID,
        attr::ENGINE,
        attr::ATTEMPT,
        attr::OUTCOME,
        attr::FAULT_REASON,
    ] {
        assert!(read.contains(wanted), "the trace panels show no {wanted}");
    }
}

#[test]
fn provisioning_loads_both_data_sources_and_the_dashboard_folder() {
    let ds = yaml("provisioning/datasources/revu.yaml");
    assert_eq!(ds["apiVersion"].as_i64(), Some(1));
    let sources = ds["datasources"]
        .as_vec()
        .unwrap_or_else(|| panic!("no datasources list"));
    let mut uids = BTreeSet::new();
    for s in sources {
        for key in ["name", "type", "uid", "url", "access"] {
            assert!(
                s[key].as_str().is_some_and(|v| !v.is_empty()),
                "datasource without {key}"
            );
        }
        uids.insert((
            s["type"].as_str().unwrap_or("").to_owned(),
            s["uid"].as_str().unwrap_or("").to_owned(),
        ));
    }
    let d = dashboard();
    for p in panels(&d).into_iter().filter(|p| p["type"] != "row") {
        for source in std::iter::once(&p["datasource"]).chain(
            p["targets"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|t| &t["datasource"]),
        ) {
            let wanted = (
                source["type"].as_str().unwrap_or("").to_owned(),
                source["uid"].as_str().unwrap_or("").to_owned(),
            );
            assert!(
                uids.contains(&wanted),
                "panel {} uses unprovisioned {wanted:?}",
                p["title"]
            );
        }
    }
    assert!(uids.iter().any(|(t, _)| t == "prometheus") && uids.iter().any(|(t, _)| t == "tempo"));

    let dash = yaml("provisioning/dashboards/revu.yaml");
    assert_eq!(dash["apiVersion"].as_i64(), Some(1));
    let providers = dash["providers"]
        .as_vec()
        .unwrap_or_else(|| panic!("no providers list"));
    assert_eq!(providers.len(), 1);
    let p = &providers[0];
    assert_eq!(p["type"].as_str(), Some("file"));
    assert!(p["name"].as_str().is_some());
    assert!(
        p["options"]["path"]
            .as_str()
            .is_some_and(|path| path.starts_with('/'))
    );
}
