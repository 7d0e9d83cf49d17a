//! `revu review --engine llm` against a real model server (llama.cpp's
//! `llama-server` with SmolLM2-135M) on loopback, over both wire protocols.
//!
//! The model's reviews are nonsense: this holds revu to the wire formats,
//! the report's structure, its accounting and the absence of faults, never
//! to the model's judgment.

use revu_tests::llm_server::MODEL_ALIAS;
use revu_tests::procs::{drain, joined};
use revu_tests::{LlmServer, bin, example};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Write;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// The diff reviewed: a domain lane and two specialist lanes. The larger
/// `multi-file.patch` (ten lanes) takes three minutes a protocol on two
/// cores.
const PATCH: &str = "secret-and-unwrap.patch";
/// Bounds each answer, and so each run's time.
const MAX_OUTPUT_TOKENS: u64 = 128;
/// Most seconds one request may take: a lane's prompt (the method and its
/// hunts, some 4,000 tokens before the data) can take minutes to read on
/// two busy cores, where a slow request is not a fault of revu's.
const REQUEST_WITHIN_SECS: &str = "400";
/// A run still going after this is killed and the test fails.
const RUN_WITHIN: Duration = Duration::from_secs(480);

/// What one `revu` run left behind.
struct Run {
    label: &'static str,
    status: ExitStatus,
    stdout: String,
    stderr: String,
    took: Duration,
}

#[test]
fn both_wire_protocols_review_every_lane_with_a_real_model() {
    let server = LlmServer::start();
    let patch = example(PATCH);
    let runs = [
        review(&server, "openai", &server.openai_base(), &patch, &[]),
        // Streamed, so the server-sent events of a real server are read too.
        review(
            &server,
            "anthropic",
            &server.anthropic_base(),
            &patch,
            &["--llm-stream"],
        ),
    ];
    for run in &runs {
        eprintln!("{}", measured(run));
    }
    if let Some(kib) = server.peak_rss_kib() {
        eprintln!("llama-server peak RSS: {} MiB", kib / 1024);
    }
    for run in &runs {
        check(run, &server, &read_patch(&patch));
    }
}

/// Input budget of the split run: each file of [`two_files`] fits a
/// request beside the system prompt and the domain lane's hunts (about
/// 6,250 tokens as revu estimates them, 3 bytes a token), both do not.
const SPLIT_BUDGET: u64 = 7300;

/// Two files of one directory (one domain slice), each about 2,400 bytes
/// of added lines.
fn two_files() -> String {
    let mut patch = String::new();
    for name in ["alpha", "beta"] {
        let lines: String = (0..40)
            .map(|i| format!("+{name}_{i:02} = \"{}\"\n", name.repeat(8)))
            .collect();
        patch.push_str(&format!(
            "diff --git a/pkg/{name}.py b/pkg/{name}.py\nnew file mode 100644\n--- /dev/null\n\
             +++ b/pkg/{name}.py\n@@ -0,0 +1,40 @@\n{lines}"
        ));
    }
    patch
}

#[test]
fn a_lane_over_the_input_budget_is_reviewed_in_requests_that_each_fit() {
    let server = LlmServer::start();
    let dir = std::env::temp_dir().join(format!("revu-split-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let patch = dir.join("two-files.patch");
    std::fs::write(&patch, two_files()).unwrap_or_else(|e| panic!("{}: {e}", patch.display()));
    let budget = SPLIT_BUDGET.to_string();
    // The field OpenAI's API takes, which llama.cpp's server takes too.
    let run = review(
        &server,
        "openai",
        &server.openai_base(),
        &patch,
        &[
            "--llm-max-input-tokens",
            &budget,
            "--llm-max-tokens-field",
            "max_completion_tokens",
        ],
    );
    eprintln!("{}", measured(&run));
    check(&run, &server, &two_files());
    let report: Value = serde_json::from_str(&run.stdout).unwrap_or(Value::Null);
    let domain = report["lanes"]
        .as_array()
        .and_then(|l| l.iter().find(|l| l["kind"] == "domain"))
        .cloned()
        .unwrap_or_else(|| panic!("no domain lane: {report}"));
    let usage = &domain["usage"];
    let requests = usage["requests"].as_u64().unwrap_or(0);
    assert!(requests >= 2, "the two-file lane was not split: {domain}");
    // The server counts with the model's own tokenizer: revu's estimate
    // kept every request within the budget by that count too.
    let input = usage["input_tokens"].as_u64().unwrap_or(u64::MAX);
    assert!(
        input <= requests * SPLIT_BUDGET,
        "{input} input tokens in {requests} requests of at most {SPLIT_BUDGET}: {domain}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_fleet_reclaims_a_model_lane_from_a_killed_llm_worker() {
    use revu_tests::scenario::{Scenario, lanes};
    let server = LlmServer::start();
    let base = server.openai_base();
    let max_output = MAX_OUTPUT_TOKENS.to_string();
    let llm: [&str; 12] = [
        "--llm-provider",
        "openai",
        "--llm-base-url",
        &base,
        "--llm-model",
        MODEL_ALIAS,
        "--llm-max-output-tokens",
        &max_output,
        "--lease-secs",
        "3",
        "--concurrency",
        "2",
    ];
    let key = [("REVU_LLM_API_KEY", server.key.as_str())];
    // The correctness lane goes to the model; the rest to a rules worker.
    let mut s = Scenario::start(&["--lane-engine", "specialist:correctness=llm"], &[&[]]);
    let first = s.cluster.add_worker_with_env(&llm, &key);
    let id = s.submit(PATCH, "");
    // Killed while the model works on its lane.
    let asked = Instant::now();
    while server.requests_processing().unwrap_or(0) == 0 {
        assert!(
            asked.elapsed() < Duration::from_secs(60),
            "the llm lane never reached the model server:\n{}",
            server.log_tail(20)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    s.cluster.workers[first].kill();
    s.cluster.add_worker_with_env(&llm, &key);
    let report = s.report(&id, RUN_WITHIN);
    let lane = lanes(&report)
        .into_iter()
        .find(|l| l["id"] == "specialist:correctness")
        .unwrap_or_else(|| panic!("no correctness lane: {report}"));
    assert_eq!(lane["engine"], "llm", "{lane}");
    let outcome = lane["outcome"].as_str().unwrap_or_default();
    assert!(
        matches!(outcome, "COMPLETE" | "INCOMPLETE"),
        "the reclaimed lane is {outcome}: {lane}\n{}",
        server.log_tail(20)
    );
    let started: Vec<String> = s
        .events(&id)
        .iter()
        .filter(|e| {
            e.lane_id == "specialist:correctness"
                && revu_tests::client::kind(e) == revu_proto::v1::review_event::Kind::LaneStarted
        })
        .map(|e| e.worker.clone())
        .collect();
    assert!(
        started.len() >= 2 && started.first() != started.last(),
        "the lane was not taken up by a second worker: started by {started:?}"
    );
    assert!(lane["usage"]["requests"].as_u64() >= Some(1), "{lane}");
}

/// Everything revu owes a caller whatever the model said.
fn check(run: &Run, server: &LlmServer, patch: &str) {
    let label = run.label;
    let context = || {
        format!(
            "{label}: stderr:\n{}\nserver log:\n{}",
            run.stderr,
            server.log_tail(20)
        )
    };
    assert!(
        matches!(run.status.code(), Some(0 | 1)),
        "{label}: revu review exited {} (0 or 1 expected)\n{}",
        run.status,
        context()
    );
    for (name, text) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
        assert!(
            !text.contains(&server.key),
            "{label}: the API key is in {name}"
        );
    }
    let report: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{label}: the report is not JSON ({e})\n{}", context()));
    let lanes: Vec<&Value> = report["lanes"]
        .as_array()
        .map(|l| l.iter().filter(|l| l["engine"] == "llm").collect())
        .unwrap_or_default();
    assert!(!lanes.is_empty(), "{label}: no llm lane in {report}");
    for lane in &lanes {
        let outcome = lane["outcome"].as_str().unwrap_or_default();
        assert!(
            matches!(outcome, "COMPLETE" | "INCOMPLETE"),
            "{label}: lane {} is {outcome:?}: {lane}\n{}",
            lane["id"],
            context()
        );
        assert!(lane["attempts"].as_u64() >= Some(1), "{label}: {lane}");
        if !lane["usage"].is_null() {
            check_usage(label, lane);
        }
    }
    check_review_usage(label, &report);
    let touched = new_side_lines(patch);
    for finding in report["findings"].as_array().into_iter().flatten() {
        let file = finding["file"].as_str().unwrap_or_default();
        let line = finding["line"].as_u64().unwrap_or(0);
        let lines = touched.get(file);
        assert!(
            lines.is_some(),
            "{label}: a finding on a file not in the diff: {finding}"
        );
        assert!(
            line >= 1 && lines.is_some_and(|l| l.contains(&line)),
            "{label}: a finding on a line the diff does not show: {finding}"
        );
    }
    let replay = replay_verdict(&run.stdout);
    assert_eq!(
        replay.status.code(),
        Some(0),
        "{label}: `revu verdict` does not replay the report:\n{}{}",
        String::from_utf8_lossy(&replay.stdout),
        String::from_utf8_lossy(&replay.stderr)
    );
}

/// A lane's model accounting: it asked, was answered, and no answer went
/// past the limit.
fn check_usage(label: &str, lane: &Value) {
    let usage = &lane["usage"];
    let count = |name: &str| {
        usage[name]
            .as_u64()
            .unwrap_or_else(|| panic!("{label}: usage.{name} is not a count: {lane}"))
    };
    let requests = count("requests");
    assert!(
        requests >= 1,
        "{label}: a lane the model reviewed made no request: {lane}"
    );
    assert!(
        count("input_tokens") > 0,
        "{label}: no input tokens counted: {lane}"
    );
    let output = count("output_tokens");
    assert!(output > 0, "{label}: no output tokens counted: {lane}");
    assert!(
        output <= requests * MAX_OUTPUT_TOKENS,
        "{label}: more output tokens than {requests} answers may take: {lane}"
    );
    count("latency_ms");
    assert!(
        usage["model"].as_str().is_some_and(|m| !m.is_empty()),
        "{label}: usage names no model: {lane}"
    );
    // Each kind within its total (the server reports the tokens its
    // prompt cache served; a kind never spent is left out).
    let kind = |name: &str| usage[name].as_u64().unwrap_or(0);
    assert!(
        kind("cached_input_tokens") + kind("cache_write_tokens") <= count("input_tokens"),
        "{label}: more cached than input tokens: {lane}"
    );
    assert!(
        kind("reasoning_tokens") <= output,
        "{label}: more reasoning than output tokens: {lane}"
    );
}

/// The review's usage is the sum of its lanes'.
fn check_review_usage(label: &str, report: &Value) {
    let lanes: Vec<&Value> = report["lanes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|l| !l["usage"].is_null())
        .collect();
    for kind in [
        "requests",
        "input_tokens",
        "cached_input_tokens",
        "output_tokens",
        "reasoning_tokens",
    ] {
        let sum: u64 = lanes
            .iter()
            .map(|l| l["usage"][kind].as_u64().unwrap_or(0))
            .sum();
        assert_eq!(
            report["usage"][kind].as_u64().unwrap_or(0),
            sum,
            "{label}: the review's {kind} is not its lanes' sum: {}",
            report["usage"]
        );
    }
}

/// `revu review --engine llm` on [`PATCH`] through `provider`, killed
/// after [`RUN_WITHIN`].
fn review(
    server: &LlmServer,
    provider: &'static str,
    base: &str,
    patch: &std::path::Path,
    extra: &[&str],
) -> Run {
    let mut cmd = Command::new(bin("revu"));
    clear_revu_env(&mut cmd);
    cmd.env("REVU_LLM_API_KEY", &server.key)
        .arg("review")
        .arg("--diff")
        .arg(patch)
        .args(["--format", "json", "--engine", "llm"])
        .args(["--llm-provider", provider, "--llm-base-url", base])
        .args(["--llm-model", MODEL_ALIAS])
        .args(["--llm-max-output-tokens", &MAX_OUTPUT_TOKENS.to_string()])
        .args(["--llm-timeout-secs", REQUEST_WITHIN_SECS])
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let started = Instant::now();
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("starting revu review: {e}"));
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let status = revu_tests::procs::wait_bounded(&mut child, RUN_WITHIN, "revu review");
    let took = started.elapsed();
    let (stdout, stderr) = (joined(stdout), joined(stderr));
    let status = status.unwrap_or_else(|| {
        panic!(
            "{provider}: revu review did not finish within {RUN_WITHIN:?}; stderr:\n{stderr}\n\
             server log:\n{}",
            server.log_tail(20)
        )
    });
    Run {
        label: provider,
        status,
        stdout,
        stderr,
        took,
    }
}

/// `revu verdict -` on `report`.
fn replay_verdict(report: &str) -> std::process::Output {
    let mut cmd = Command::new(bin("revu"));
    clear_revu_env(&mut cmd);
    let mut child = cmd
        .args(["verdict", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("starting revu verdict: {e}"));
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(report.as_bytes())
            .unwrap_or_else(|e| panic!("writing to revu verdict: {e}"));
    }
    child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("waiting for revu verdict: {e}"))
}

/// One line per run: its exit, wall time, and each llm lane's outcome and
/// usage (when the report carries it).
fn measured(run: &Run) -> String {
    let mut text = format!(
        "{}: exit {}, {:.1} s",
        run.label,
        run.status,
        run.took.as_secs_f64()
    );
    let report: Value = serde_json::from_str(&run.stdout).unwrap_or(Value::Null);
    for lane in report["lanes"].as_array().into_iter().flatten() {
        let usage = &lane["usage"];
        let spent = if usage.is_null() {
            "no usage reported".to_owned()
        } else {
            format!(
                "{} request(s), {} in ({} cached) / {} out tokens, {} ms",
                usage["requests"],
                usage["input_tokens"],
                usage["cached_input_tokens"].as_u64().unwrap_or(0),
                usage["output_tokens"],
                usage["latency_ms"]
            )
        };
        text.push_str(&format!(
            "\n  {} {} ({} attempt(s)): {spent}",
            lane["id"].as_str().unwrap_or("?"),
            lane["outcome"].as_str().unwrap_or("?"),
            lane["attempts"]
        ));
    }
    text
}

fn read_patch(path: &std::path::Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// The new-side line numbers each file's hunks show (added and context).
fn new_side_lines(patch: &str) -> BTreeMap<String, Vec<u64>> {
    let mut files: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    let mut file = String::new();
    let mut next = 0u64;
    for line in patch.lines() {
        if let Some(path) = line.strip_prefix("+++ ") {
            file = path.strip_prefix("b/").unwrap_or(path).to_owned();
            files.entry(file.clone()).or_default();
        } else if let Some(hunk) = line.strip_prefix("@@ ") {
            // `@@ -a,b +c,d @@`: the new side starts at line c.
            next = hunk
                .split_whitespace()
                .find_map(|r| r.strip_prefix('+'))
                .and_then(|r| r.split(',').next())
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
        } else if line.starts_with('+') || line.starts_with(' ') {
            files.entry(file.clone()).or_default().push(next);
            next += 1;
        }
    }
    files
}

/// Keeps the caller's `REVU_*` and `OTEL_*` settings (and a trace context)
/// out of a run, so that only what the test passes applies.
fn clear_revu_env(cmd: &mut Command) {
    for (key, _) in std::env::vars_os() {
        let text = key.to_string_lossy();
        if text.starts_with("REVU_") || text.starts_with("OTEL_") || text == "TRACEPARENT" {
            cmd.env_remove(&key);
        }
    }
}
