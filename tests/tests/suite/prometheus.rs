//! The dashboard and the alerts against a real Prometheus: Debian's
//! `prometheus` scrapes a coordinator and a worker on loopback through a
//! workload with failing lanes, retries, a model that rate-limits, a
//! tenant's quota refusal, an unauthenticated call, lane cache hits and a
//! review past its deadline; then every PromQL expression of the Grafana
//! dashboard (its interval variables substituted as Grafana would) and
//! every alert expression is evaluated through Prometheus's API.

use revu_coordinator::auth::token_digest;
use revu_coordinator::metrics::CoordinatorMetrics;
use revu_tests::fake_openai::FakeOpenai;
use revu_tests::prometheus::Prometheus;
use revu_tests::scrape::{sample, scrape};
use revu_tests::{Client, Cluster, RedisServer, example, fault_engine};
use revu_worker::metrics::WorkerMetrics;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use yaml_rust2::YamlLoader;

const ALPHA: &str = "alpha-token-7f3c";
const BRAVO: &str = "bravo-token-19ad";
/// The one file of `secret-and-unwrap.patch`.
const FILE: &str = "src/billing/client.rs";

fn repo(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(path)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every Prometheus target of the dashboard: (panel title, expression).
fn dashboard_queries() -> Vec<(String, String)> {
    let d: Value = serde_json::from_str(&read(&repo("deploy/grafana/dashboards/revu.json")))
        .unwrap_or_else(|e| panic!("dashboard: {e}"));
    let mut panels: Vec<&Value> = Vec::new();
    for p in d["panels"].as_array().into_iter().flatten() {
        panels.push(p);
        panels.extend(p["panels"].as_array().into_iter().flatten());
    }
    let mut out = Vec::new();
    for p in panels {
        for t in p["targets"].as_array().into_iter().flatten() {
            if t["datasource"]["type"] == "prometheus" {
                let expr = t["expr"].as_str().unwrap_or_default();
                out.push((
                    p["title"].as_str().unwrap_or("?").to_owned(),
                    expr.to_owned(),
                ));
            }
        }
    }
    out
}

/// `expr` as Grafana sends it over a five-minute view of a 1 s scrape:
/// `$__rate_interval` is four scrape intervals at least, `$__interval`
/// the step, `$__range` the view.
fn grafana(expr: &str) -> String {
    expr.replace("$__rate_interval", "15s")
        .replace("$__interval", "5s")
        .replace("$__range", "5m")
}

/// Every alert of the shipped rules: (name, expression).
fn alerts() -> Vec<(String, String)> {
    let path = repo("deploy/helm/revu/files/alerts.yml");
    let docs = YamlLoader::load_from_str(&read(&path))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = Vec::new();
    for group in docs[0]["groups"].as_vec().into_iter().flatten() {
        for rule in group["rules"].as_vec().into_iter().flatten() {
            if let (Some(name), Some(expr)) = (rule["alert"].as_str(), rule["expr"].as_str()) {
                out.push((name.to_owned(), expr.to_owned()));
            }
        }
    }
    assert!(!out.is_empty(), "no alert in {}", path.display());
    out
}

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("revu-prometheus-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir
}

/// The series `/metrics` of `addr` returns now.
fn series(addr: &str) -> usize {
    scrape(addr)
        .unwrap_or_else(|e| panic!("{addr}: {e}"))
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .count()
}

fn scrape_until(addr: &str, what: &str, ready: impl Fn(&str) -> bool) {
    let started = Instant::now();
    loop {
        if scrape(addr).is_ok_and(|b| ready(&b)) {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{what} not on {addr} within 60s: {:?}",
            scrape(addr)
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// What `promtool check metrics` says of `body` (nothing when clean),
/// with its exit status when it fails.
fn promtool_check_metrics(body: &str) -> String {
    use std::io::Write;
    let mut child = std::process::Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "promtool: {e}: `apt-get install prometheus` carries it (scripts/test installs it)"
            )
        });
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(body.as_bytes())
            .unwrap_or_else(|e| panic!("promtool stdin: {e}"));
    }
    let out = child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("promtool: {e}"));
    let mut said = String::from_utf8_lossy(&out.stdout).into_owned();
    said.push_str(&String::from_utf8_lossy(&out.stderr));
    if !out.status.success() {
        said.push_str(&format!(" ({})", out.status));
    }
    said.trim().to_owned()
}

#[test]
fn every_dashboard_and_alert_expression_evaluates_on_a_real_prometheus() {
    // Fails at once, saying how to install it, when Prometheus is missing.
    revu_tests::prometheus::binary();
    let rt = tokio::runtime::Runtime::new().unwrap_or_else(|e| panic!("runtime: {e}"));
    let dir = scratch();
    let tokens = dir.join("tokens");
    std::fs::write(
        &tokens,
        format!(
            "team-a {}\nteam-b {}\n",
            token_digest(ALPHA),
            token_digest(BRAVO)
        ),
    )
    .unwrap_or_else(|e| panic!("tokens: {e}"));
    let prices = dir.join("prices.toml");
    std::fs::write(
        &prices,
        "[models.\"fake-mini\"]\ninput_per_mtok = 0.40\ncached_input_per_mtok = 0.10\noutput_per_mtok = 1.60\n",
    )
    .unwrap_or_else(|e| panic!("prices: {e}"));
    let model = FakeOpenai::start(1, &[FILE]);

    // Domain lanes fail (retried once, then faulted and dead-lettered);
    // the correctness specialist asks the model, which rate-limits its first
    // request; the testing specialist goes to an engine no worker offers,
    // so every review runs into its deadline; the rest run the rules.
    let tokens_arg = tokens.to_string_lossy().into_owned();
    let mut cluster = Cluster::start_coordinator_only(
        RedisServer::start(),
        &[
            "--tokens-file",
            &tokens_arg,
            "--tenant-max-inflight",
            "1",
            "--lane-engine",
            "domain:*=flaky,specialist:correctness=llm,specialist:testing=ghost",
            "--engine-retry",
            "flaky=2:50",
            "--review-timeout-secs",
            "4",
            "--metrics-listen",
            "127.0.0.1:0",
        ],
    );
    let coordinator = cluster.coordinator.announced("metrics serving");
    let failing = format!("flaky={}", fault_engine("fail"));
    let base = model.base_url();
    let prices_arg = prices.to_string_lossy().into_owned();
    let worker = cluster.add_worker(&[
        "--exec-engine",
        &failing,
        "--llm-provider",
        "openai",
        "--llm-base-url",
        &base,
        "--llm-model",
        "fake-mini",
        "--llm-prices",
        &prices_arg,
        "--metrics-listen",
        "127.0.0.1:0",
    ]);
    let worker = cluster.workers[worker].announced("metrics serving");
    let prometheus = Prometheus::start(
        &[("coordinator", &coordinator), ("worker", &worker)],
        &[repo("deploy/helm/revu/files/alerts.yml")],
    );
    prometheus.wait_scraped(&["coordinator", "worker"], 2);
    let idle = [series(&coordinator), series(&worker)];

    // The workload.
    let endpoint = cluster.endpoint();
    let within = Duration::from_secs(10);
    let diff = std::fs::read(example("secret-and-unwrap.patch"))
        .unwrap_or_else(|e| panic!("example: {e}"));
    let mut a = rt.block_on(Client::connect_as(&endpoint, Some(ALPHA), within));
    let mut b = rt.block_on(Client::connect_as(&endpoint, Some(BRAVO), within));
    let mut nobody = rt.block_on(Client::connect_as(&endpoint, None, within));
    let first = rt
        .block_on(a.submit(diff.clone(), "first"))
        .unwrap_or_else(|e| panic!("team-a: {e}"));
    // The first is in flight until its deadline: a second is refused.
    let refused = rt.block_on(a.submit(diff.clone(), "second"));
    assert_eq!(
        refused.map_err(|s| s.code()),
        Err(tonic::Code::ResourceExhausted)
    );
    assert_eq!(
        rt.block_on(nobody.get(&first)).map_err(|s| s.code()).err(),
        Some(tonic::Code::Unauthenticated)
    );
    rt.block_on(a.wait_terminal(&first, Duration::from_secs(60)));
    // Another tenant is not held back by team-a's quota; its same change
    // again takes the model lane's report from the cache (kept per
    // tenant, and filled by a first attempt that succeeded).
    for key in ["other", "again"] {
        let id = rt
            .block_on(b.submit(diff.clone(), key))
            .unwrap_or_else(|e| panic!("team-b {key}: {e}"));
        rt.block_on(b.wait_terminal(&id, Duration::from_secs(60)));
    }
    scrape_until(&worker, "a lane cache hit", |body| {
        sample(body, "revu_lane_cache_total", &[("result", "hit")]).is_some_and(|n| n >= 1.0)
    });
    scrape_until(&coordinator, "three finished reviews", |body| {
        sample(body, "revu_reviews_finished_total", &[]) == Some(3.0)
            && sample(body, "revu_reviews_past_deadline_total", &[]) == Some(3.0)
    });
    assert!(model.served() >= 2, "the model served {}", model.served());
    // Three more scrapes, so that every rate has two samples of the end.
    std::thread::sleep(Duration::from_secs(3));

    let mut failures = Vec::new();
    // Four engines (flaky, llm, ghost, rules), two tenants, one model.
    let loaded = [series(&coordinator), series(&worker)];
    let bounds = [
        CoordinatorMetrics::max_series(4, 2),
        WorkerMetrics::max_series(4, 1),
    ];
    for (i, what) in ["coordinator", "worker"].into_iter().enumerate() {
        println!(
            "{what}: {} series at idle, {} after the workload (at most {})",
            idle[i], loaded[i], bounds[i]
        );
        if loaded[i] > bounds[i] {
            failures.push(format!("{what}: {} series, over {}", loaded[i], bounds[i]));
        }
    }
    // Both endpoints in the classic format, as `promtool` reads it.
    for (what, addr) in [("coordinator", &coordinator), ("worker", &worker)] {
        let body = scrape(addr).unwrap_or_else(|e| panic!("{what}: {e}"));
        let said = promtool_check_metrics(&body);
        if !said.is_empty() {
            failures.push(format!("promtool check metrics on the {what}: {said}"));
        }
    }
    let queries = dashboard_queries();
    assert!(queries.len() > 20, "{} dashboard queries", queries.len());
    for (panel, expr) in &queries {
        match prometheus.query(&grafana(expr)) {
            Err(e) => failures.push(format!("panel {panel:?}: {expr}: {e}")),
            Ok(result) if result.is_empty() => {
                failures.push(format!("panel {panel:?} stays empty: {expr}"));
            }
            Ok(_) => {}
        }
    }
    // Alerts: every expression evaluates; those whose event the workload
    // caused return what they would fire on.
    let happened = [
        "pipeline_fault",
        "revu_dead_letters_total",
        "revu_reviews_past_deadline_total",
        "reason=\"rate_limited\"",
        "revu_tenant_quota_refusals_total",
    ];
    let mut fired = Vec::new();
    let mut silent = Vec::new();
    for (alert, expr) in alerts() {
        match prometheus.query(&expr) {
            Err(e) => failures.push(format!("alert {alert}: {expr}: {e}")),
            Ok(result) if result.is_empty() && happened.iter().any(|m| expr.contains(m)) => {
                failures.push(format!(
                    "alert {alert} finds nothing though its event happened: {expr}"
                ));
            }
            Ok(result) if result.is_empty() => silent.push(alert),
            Ok(_) => fired.push(alert),
        }
    }
    assert!(
        fired.len() >= happened.len(),
        "would fire: {fired:?}; silent: {silent:?}"
    );
    // And Prometheus itself evaluates every rule without error.
    let rules = prometheus.rules().unwrap_or_else(|e| panic!("rules: {e}"));
    for group in rules["data"]["groups"].as_array().into_iter().flatten() {
        for rule in group["rules"].as_array().into_iter().flatten() {
            if rule["health"] == "err" {
                failures.push(format!("rule {}: {}", rule["name"], rule["lastError"]));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    drop(cluster);
    let _ = std::fs::remove_dir_all(&dir);
}
