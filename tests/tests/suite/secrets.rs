//! Secrets stay where they are: an exec engine runs with an environment
//! allow-list (not the worker's environment, which holds credentials), and
//! credentials an engine quotes, in a finding or in its error output, are
//! masked before they reach the report.

use revu_tests::bins::submit_example;
use revu_tests::{Cluster, RedisServer, fault_engine};

/// The report `revu submit` printed; panics unless it exited 0 or 1.
fn report_of(out: &std::process::Output) -> serde_json::Value {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{stderr}");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("report: {e}: {stderr}"))
}

#[test]
fn an_exec_engine_sees_only_the_allowed_environment() {
    let mut cluster =
        Cluster::start_coordinator_only(RedisServer::start(), &["--lane-engine", "domain:*=envy"]);
    let engine = format!("envy={}", fault_engine("env"));
    cluster.add_worker_with_env(
        &["--exec-engine", &engine, "--exec-env", "REVU_TEST_ALLOWED"],
        &[
            ("REVU_LLM_API_KEY", "sk-test-0123456789abcdefghij"),
            (
                "AWS_SECRET_ACCESS_KEY",
                "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            ),
            ("REVU_TEST_ALLOWED", "yes"),
        ],
    );
    let report = report_of(&submit_example(&cluster.endpoint(), &[], &[]));
    let lanes = report["lanes"].as_array().cloned().unwrap_or_default();
    let domain = lanes
        .iter()
        .find(|l| l["kind"] == "domain")
        .unwrap_or_else(|| panic!("no domain lane: {report}"));
    let seen: Vec<&str> = domain["checks"]
        .as_array()
        .map(|c| c.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default();
    assert!(seen.contains(&"PATH"), "{seen:?}");
    assert!(seen.contains(&"REVU_TEST_ALLOWED"), "{seen:?}");
    for secret in ["REVU_LLM_API_KEY", "AWS_SECRET_ACCESS_KEY", "RUST_LOG"] {
        assert!(
            !seen.contains(&secret),
            "{secret} reached the engine: {seen:?}"
        );
    }
}

#[test]
fn credentials_an_engine_quotes_are_masked_in_the_report() {
    let mut cluster = Cluster::start_coordinator_only(
        RedisServer::start(),
        &[
            "--lane-engine",
            "domain:*=leaky",
            "--lane-engine",
            "specialist:*=failing",
            "--lane-attempts",
            "1",
        ],
    );
    let leaky = format!("leaky={}", fault_engine("leak"));
    let failing = format!("failing={}", fault_engine("fail-leak"));
    cluster.add_worker(&["--exec-engine", &leaky, "--exec-engine", &failing]);
    let report = report_of(&submit_example(&cluster.endpoint(), &[], &[]));
    let text = report.to_string();
    for secret in [
        "AKIAIOSFODNN7EXAMPLE",
        "hunter2hunter2",
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "abcd1234efgh5678",
    ] {
        assert!(!text.contains(secret), "{secret} in the report: {report}");
    }
    // What is left says which credential it was.
    assert!(text.contains("AKIA************MPLE"), "{report}");
    assert!(text.contains("redis://ci:***@redis:6379"), "{report}");
}
