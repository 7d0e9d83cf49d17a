//! The `revu` binary as a user runs it: exit codes, citations, bad input.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../examples")
        .join(name)
}

fn revu(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_revu"));
    crate::scratch::outside_ci(&mut cmd);
    cmd.env_remove("TRACEPARENT")
        .env_remove("REVU_COORDINATOR")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("{e}"));
    if let (Some(bytes), Some(mut pipe)) = (stdin, child.stdin.take()) {
        pipe.write_all(bytes).unwrap_or_else(|e| panic!("{e}"));
    }
    child.wait_with_output().unwrap_or_else(|e| panic!("{e}"))
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stderr)))
}

#[test]
fn secret_and_unwrap_are_cited_and_need_a_human() {
    let path = example("secret-and-unwrap.patch");
    let out = revu(
        &[
            "review",
            "--diff",
            path.to_str().unwrap_or_default(),
            "--format",
            "json",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let report = json(&out);
    let findings = report["findings"].as_array().cloned().unwrap_or_default();
    let find = |rule: &str| findings.iter().find(|f| f["rule"] == rule).cloned();
    let secret =
        find("RV-SEC-001").unwrap_or_else(|| panic!("no credential finding: {findings:?}"));
    assert_eq!(
        (secret["file"].as_str(), secret["line"].as_u64()),
        (Some("src/billing/client.rs"), Some(3))
    );
    assert_eq!(secret["severity"], "BLOCKER");
    let unwrap = find("RV-COR-001").unwrap_or_else(|| panic!("no unwrap finding: {findings:?}"));
    assert_eq!(unwrap["line"], 16);
    // The secret itself never reaches the report.
    assert!(!String::from_utf8_lossy(&out.stdout).contains(concat!("AKIAZ7QF3H", "XMPL2RT4VB")));
}

#[test]
fn markdown_report_cites_file_and_line() {
    let path = example("secret-and-unwrap.patch");
    let out = revu(
        &["review", "--diff", path.to_str().unwrap_or_default()],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(md.starts_with("# revu review: REQUEST CHANGES"), "{md}");
    assert!(md.contains("`src/billing/client.rs:3`"), "{md}");
    assert!(md.contains("`src/billing/client.rs:16`"), "{md}");
}

#[test]
fn docs_only_change_is_merge_ready() {
    let path = example("docs-only.patch");
    let out = revu(
        &[
            "review",
            "--diff",
            path.to_str().unwrap_or_default(),
            "--format",
            "json",
        ],
        None,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let report = json(&out);
    assert_eq!(report["gate"], "MERGE-READY");
    assert_eq!(report["verdict"], "APPROVE");
}

#[test]
fn diff_is_read_from_stdin() {
    let bytes = std::fs::read(example("docs-only.patch")).unwrap_or_default();
    let out = revu(&["review", "--diff", "-", "--format", "json"], Some(&bytes));
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn garbage_input_exits_2_with_one_line_reason() {
    let noise: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    let cases: [(&str, &[u8]); 4] = [
        ("empty", b""),
        ("prose", b"hello, this is not a diff\njust some text\n"),
        ("noise", &noise),
        (
            "bad hunk",
            b"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n",
        ),
    ];
    for (name, input) in cases {
        for cmd in ["review", "facts"] {
            let out = revu(&[cmd, "--diff", "-"], Some(input));
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{cmd} on {name}: {stderr}");
            assert_eq!(
                stderr.trim_end().lines().count(),
                1,
                "{cmd} on {name}: one line, got {stderr:?}"
            );
            assert!(
                stderr.starts_with("revu: invalid diff: "),
                "{cmd} on {name}: {stderr}"
            );
            assert!(!stderr.contains("panicked"));
        }
    }
}

#[test]
fn missing_file_and_bad_flags_exit_2() {
    let out = revu(&["review", "--diff", "/nonexistent/change.patch"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/change.patch"));
    let out = revu(&["review", "--diff", "x", "--format", "pdf"], None);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn malformed_traceparent_is_a_usage_error() {
    let path = example("docs-only.patch");
    let out = revu(
        &[
            "submit",
            "--diff",
            path.to_str().unwrap_or_default(),
            "--traceparent",
            "not-a-trace",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("traceparent"));
}

#[test]
fn unreachable_coordinator_exits_3() {
    let path = example("docs-only.patch");
    let out = revu(
        &[
            "submit",
            "--diff",
            path.to_str().unwrap_or_default(),
            "--coordinator",
            "http://127.0.0.1:1",
        ],
        None,
    );
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn facts_lists_files_with_status_counts_and_added_lines() {
    let path = example("multi-file.patch");
    let out = revu(
        &["facts", "--diff", path.to_str().unwrap_or_default()],
        None,
    );
    assert_eq!(out.status.code(), Some(0));
    let facts = json(&out);
    let files = facts["files"].as_array().cloned().unwrap_or_default();
    let migration = files
        .iter()
        .find(|f| f["path"] == "db/migrations/0042_drop_legacy_totals.sql")
        .unwrap_or_else(|| panic!("{files:?}"));
    assert_eq!(migration["status"], "added");
    assert_eq!(migration["added"], 2);
    assert_eq!(migration["removed"], 0);
    assert_eq!(migration["binary"], false);
    assert_eq!(
        migration["hunks"][0]["added_lines"],
        serde_json::json!([1, 2])
    );
    assert_eq!(facts["risk_tier"], "HIGH_RISK");
}

#[test]
fn embedded_review_adjudicates_with_rules_and_refuses_other_engines() {
    let path = example("secret-and-unwrap.patch");
    let diff = path.to_str().unwrap_or_default();
    let out = revu(
        &[
            "review",
            "--diff",
            diff,
            "--format",
            "json",
            "--adjudicate",
            "rules",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let report = json(&out);
    let adjudication = &report["adjudication"];
    assert_eq!(adjudication["status"], "applied", "{adjudication}");
    assert_eq!(adjudication["dropped"], 0, "{adjudication}");
    let lanes = report["lanes"].as_array().cloned().unwrap_or_default();
    assert!(
        lanes
            .iter()
            .any(|l| l["id"] == "adjudication" && l["outcome"] == "COMPLETE"),
        "{lanes:?}"
    );

    let out = revu(&["review", "--diff", diff, "--adjudicate", "llm"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--adjudicate llm"));
}
