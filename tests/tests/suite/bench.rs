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

/// `scripts/bench-fleet` starts a fleet of its own for each point (a
/// `redis-server` from PATH, a coordinator, workers), runs `revu bench`
/// against it and prints both curves' figures; it leaves nothing running.
#[test]
fn bench_fleet_measures_the_noop_and_sleep_curves() {
    let revu = bin("revu");
    let dir = revu
        .parent()
        .unwrap_or_else(|| panic!("{} has no directory", revu.display()));
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/bench-fleet");
    let out = Command::new("python3")
        .arg(&script)
        .arg("--bin")
        .arg(dir)
        .args(["--noop-streams", "2", "--noop-reviews", "6"])
        .args(["--sleep-in-flight", "1,2", "--sleep-ms", "20"])
        .args(["--sleep-reviews", "2", "--timeout", "120", "--json"])
        .output()
        .unwrap_or_else(|e| panic!("running python3 {}: {e}", script.display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "bench-fleet failed: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    let points: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    assert_eq!(
        points.len(),
        3,
        "one noop point and two sleep points: {stdout}"
    );
    let noop = &points[0];
    assert_eq!(noop["engine"], "noop", "{noop}");
    assert_eq!(noop["reviews"], 6, "{noop}");
    assert!(
        noop["lanes_vs_baseline"].as_f64().is_some_and(|v| v > 0.0),
        "{noop}"
    );
    for role in ["coordinator", "redis", "worker"] {
        assert!(
            noop["cpu_ms_per_review"][role].as_f64().is_some(),
            "{role} CPU: {noop}"
        );
    }
    for (point, in_flight) in points[1..].iter().zip([1, 2]) {
        assert_eq!(point["engine"], "sleep:20", "{point}");
        assert_eq!(point["in_flight"], in_flight, "{point}");
        assert_eq!(point["reviews"], 2 * in_flight, "{point}");
        assert_eq!(
            point["ideal_lanes_per_sec"],
            50.0 * f64::from(in_flight),
            "{point}"
        );
        assert!(
            point["measured_vs_ideal"].as_f64().is_some_and(|v| v > 0.0),
            "{point}"
        );
    }
}
