//! The lane result cache for CI re-runs: a second review of the same
//! change reuses every lane's report; after one more edit, only the lanes
//! whose input changed run again; `--no-cache` runs them all; and the
//! hits and misses show in the report and the worker's metrics.

use revu_tests::scrape::{sample, scrape};
use revu_tests::{Cluster, RedisServer, bin, example};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// `revu submit` of `patch`; the report's lanes as id → cache use.
fn lanes_of(
    endpoint: &str,
    patch: &Path,
    extra: &[&str],
) -> (BTreeMap<String, String>, serde_json::Value) {
    let out = Command::new(bin("revu"))
        .args([
            "submit",
            "--quiet",
            "--format",
            "json",
            "--timeout",
            "120",
            "--diff",
        ])
        .arg(patch)
        .arg("--coordinator")
        .arg(endpoint)
        .args(extra)
        .env_remove("REVU_COORDINATOR")
        .output()
        .unwrap_or_else(|e| panic!("revu submit: {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{stderr}");
    let report: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("report: {e}: {stderr}"));
    let lanes = report["lanes"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|l| {
            (
                l["id"].as_str().unwrap_or_default().to_owned(),
                l["cache"].as_str().unwrap_or("none").to_owned(),
            )
        })
        .collect();
    (lanes, report)
}

fn findings(report: &serde_json::Value) -> Vec<String> {
    let mut out: Vec<String> = report["findings"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|f| format!("{} {}:{}", f["rule"], f["file"], f["line"]))
        .collect();
    out.sort();
    out
}

#[test]
fn a_rerun_reuses_the_lanes_whose_input_did_not_change() {
    let mut cluster = Cluster::start_coordinator_only(RedisServer::start(), &[]);
    let worker = cluster.add_worker(&["--metrics-listen", "127.0.0.1:0"]);
    let metrics = cluster.workers[worker].announced("metrics serving");
    let endpoint = cluster.endpoint();
    let patch = example("multi-file.patch");

    let (first, first_report) = lanes_of(&endpoint, &patch, &[]);
    assert!(first.len() >= 6, "{first:?}");
    assert!(
        first.values().all(|c| c == "miss"),
        "a first review stores: {first:?}"
    );

    let (second, second_report) = lanes_of(&endpoint, &patch, &[]);
    assert!(
        second.values().all(|c| c == "hit"),
        "the same change again: {second:?}"
    );
    assert_eq!(findings(&first_report), findings(&second_report));
    let md = Command::new(bin("revu"))
        .args(["render", "--format", "md", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            if let Some(mut stdin) = child.stdin.take() {
                stdin.write_all(second_report.to_string().as_bytes())?;
            }
            child.wait_with_output()
        })
        .unwrap_or_else(|e| panic!("revu render: {e}"));
    let md = String::from_utf8_lossy(&md.stdout);
    assert!(md.contains("(cached)"), "{md}");
    assert!(
        md.contains("reused the report of an identical input"),
        "{md}"
    );

    // One more edit, in the docs: the docs lane and the specialists (who
    // read every file) run again; the other domain lanes do not.
    let text = std::fs::read_to_string(&patch).unwrap_or_else(|e| panic!("{e}"));
    let edited = text.replace("+Search orders by customer", "+Find orders by customer");
    assert_ne!(edited, text, "the edit applies");
    let edited_patch =
        std::env::temp_dir().join(format!("revu-cache-{}.patch", std::process::id()));
    std::fs::write(&edited_patch, edited).unwrap_or_else(|e| panic!("{e}"));
    let (third, _) = lanes_of(&endpoint, &edited_patch, &[]);
    for (lane, cache) in &third {
        let changed = lane == "domain:docs" || lane.starts_with("specialist:");
        let wanted = if changed { "miss" } else { "hit" };
        assert_eq!(cache, wanted, "{lane} after the docs edit: {third:?}");
    }

    // --no-cache runs every engine again.
    let (fourth, _) = lanes_of(&endpoint, &patch, &["--no-cache"]);
    assert!(fourth.values().all(|c| c != "hit"), "{fourth:?}");
    let _ = std::fs::remove_file(&edited_patch);

    let body = scrape(&metrics).unwrap_or_else(|e| panic!("metrics: {e}"));
    let hits = sample(&body, "revu_lane_cache_total", &[("result", "hit")]).unwrap_or(0.0);
    let hits_expected = second.len() + third.values().filter(|c| *c == "hit").count();
    assert_eq!(hits, hits_expected as f64, "{body}");
}

#[test]
fn a_worker_with_the_cache_off_runs_every_lane() {
    let mut cluster = Cluster::start_coordinator_only(RedisServer::start(), &[]);
    cluster.add_worker(&["--lane-cache-ttl-secs", "0"]);
    let endpoint = cluster.endpoint();
    let patch = example("secret-and-unwrap.patch");
    for _ in 0..2 {
        let (lanes, _) = lanes_of(&endpoint, &patch, &[]);
        assert!(lanes.values().all(|c| c == "none"), "{lanes:?}");
    }
}
