//! `revu bench` against a real fleet (a coordinator and two workers on the
//! `noop` engine, real Redis): it finishes every review it submits and
//! reports the documented figures, the raw Redis Streams round trip
//! measured in the same run beside them. No figure is asserted beyond
//! being there and positive: performance is read from the output, in
//! ratios, never timed in a test.

use revu_tests::{Cluster, RedisServer, bin};
use std::process::Command;

#[test]
fn bench_reports_throughput_latency_and_the_redis_baseline() {
    let mut cluster = Cluster::start_coordinator_only(RedisServer::start(), &["--engine", "noop"]);
    cluster.add_worker(&["--concurrency", "8"]);
    cluster.add_worker(&["--concurrency", "8"]);
    let out = Command::new(bin("revu"))
        .args([
            "bench",
            "--reviews",
            "40",
            "--concurrency",
            "4",
            "--files",
            "2",
        ])
        .args(["--format", "json", "--timeout", "120"])
        .arg("--coordinator")
        .arg(cluster.endpoint())
        .arg("--redis")
        .arg(&cluster.redis.url)
        .env_remove("REVU_COORDINATOR")
        .output()
        .unwrap_or_else(|e| panic!("revu bench: {e}"));
    assert!(
        out.status.success(),
        "revu bench failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let f: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)));
    eprintln!("{f}");
    assert_eq!(f["reviews"], 40, "{f}");
    assert!(
        f["lanes"].as_u64() >= Some(40),
        "a lane or more per review: {f}"
    );
    for key in [
        "reviews_per_sec",
        "lanes_per_sec",
        "baseline_roundtrips_per_sec",
        "lanes_vs_baseline",
    ] {
        assert!(f[key].as_f64().is_some_and(|v| v > 0.0), "{key}: {f}");
    }
    let latency = &f["latency_ms"];
    let (p50, p95, p99) = (
        latency["p50"].as_f64().unwrap_or(-1.0),
        latency["p95"].as_f64().unwrap_or(-1.0),
        latency["p99"].as_f64().unwrap_or(-1.0),
    );
    assert!(0.0 < p50 && p50 <= p95 && p95 <= p99, "{f}");
}
