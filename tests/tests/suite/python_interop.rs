//! A gRPC client generated from `proto/revu/v1/review.proto` by Python's
//! toolchain (grpcio-tools) submits and fetches a review from a real
//! coordinator with two workers.

use revu_tests::procs::{drain, joined};
use revu_tests::{Cluster, RedisServer, example};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::Duration;

const CLIENT_TIMEOUT: Duration = Duration::from_secs(120);
const HOW_TO_GET_THEM: &str = "run `scripts/test` (it installs them into target/test-env), \
     or point REVU_TEST_PYTHON at a Python that has grpcio, grpcio-tools and grpcio-health-checking";

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The Python to run the client with: `REVU_TEST_PYTHON` (which
/// `scripts/test` sets), else the virtual environment `scripts/test`
/// made, else `python3` from PATH.
fn python() -> PathBuf {
    if let Some(p) = std::env::var_os("REVU_TEST_PYTHON") {
        return PathBuf::from(p);
    }
    let made = repo_root().join("target/test-env/bin/python3");
    if made.exists() {
        made
    } else {
        PathBuf::from("python3")
    }
}

/// Panics, saying how to get them, unless the Python has the grpc packages.
fn require_python_grpc() {
    let python = python();
    let out = Command::new(&python)
        .args(["-c", "import grpc, grpc_tools, grpc_health"])
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "the Python interop test cannot run {} ({e}): {HOW_TO_GET_THEM}",
                python.display()
            )
        });
    assert!(
        out.status.success(),
        "the Python interop test needs grpcio, grpcio-tools and grpcio-health-checking; \
         {HOW_TO_GET_THEM}\n{} said:\n{}",
        python.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs the Python client against `target`; returns its exit status (None
/// when it timed out), stdout and stderr.
fn run_client(target: &str, diff: &Path) -> (Option<ExitStatus>, String, String) {
    let root = repo_root();
    let mut child = Command::new(python())
        .arg(root.join("tests").join("interop").join("python_client.py"))
        .arg("--target")
        .arg(target)
        .arg("--proto-root")
        .arg(root.join("proto"))
        .arg("--diff")
        .arg(diff)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("starting the Python client: {e}"));
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let status = revu_tests::procs::wait_bounded(&mut child, CLIENT_TIMEOUT, "the Python client");
    (status, joined(stdout), joined(stderr))
}

#[test]
fn python_client_submits_and_fetches_a_review() {
    require_python_grpc();
    let cluster = Cluster::start(RedisServer::start(), 2, &[]);
    let target = cluster.addr.clone();

    let (status, stdout, stderr) = run_client(&target, &example("multi-file.patch"));
    let Some(status) = status else {
        panic!("the Python client did not finish within {CLIENT_TIMEOUT:?}; stderr:\n{stderr}");
    };
    assert!(
        status.success(),
        "the Python client failed ({status}); stderr:\n{stderr}\nstdout:\n{stdout}"
    );

    let line = stdout
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    println!("python client summary: {line}");
    let summary: Value = serde_json::from_str(line)
        .unwrap_or_else(|e| panic!("summary is not JSON ({e}): {line:?}; stderr:\n{stderr}"));
    assert_eq!(summary["verdict"], "REQUEST CHANGES", "{summary}");
    assert_eq!(summary["gate"], "NEEDS-HUMAN", "{summary}");
    let findings = summary["findings"].as_u64().unwrap_or(0);
    assert!(
        findings >= 5,
        "expected the example's findings, got {findings}: {summary}"
    );
    let events: Vec<&str> = summary["events"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    assert!(
        events.contains(&"KIND_LANE_FINISHED"),
        "a lane finished: {events:?}"
    );
    assert!(
        events.contains(&"KIND_VERDICT"),
        "a verdict event: {events:?}"
    );
}
