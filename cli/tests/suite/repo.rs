//! `revu review --repo`: the repository's REVIEW.md and revu.toml, as a user
//! runs it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../coordinator/tests/fixtures/conventions")
}

fn revu(args: &[&str], cwd: &Path) -> Output {
    crate::scratch::outside_ci(&mut Command::new(env!("CARGO_BIN_EXE_revu")))
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap_or_else(|e| panic!("{e}"))
}

fn report(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stderr)))
}

/// A fresh directory under the system temp dir, unique to this test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("revu-repo-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    dir
}

#[test]
fn repo_flag_applies_review_md_and_revu_toml() {
    let dir = fixtures();
    let diff = dir.join("change.diff");
    let out = revu(
        &[
            "review",
            "--diff",
            diff.to_str().unwrap_or_default(),
            "--repo",
            dir.to_str().unwrap_or_default(),
            "--format",
            "json",
        ],
        Path::new("."),
    );
    let r = report(&out);
    assert_eq!(r["rigor"]["source"], "repo_config");
    assert_eq!(r["conventions"]["review_md"]["name"], "REVIEW.md");
    assert_eq!(r["conventions"]["repo_config"]["name"], "revu.toml");
    let findings = r["findings"].as_array().cloned().unwrap_or_default();
    let miss = findings
        .iter()
        .find(|f| f["rule"] == "MISS-012")
        .unwrap_or_else(|| panic!("no ledger finding: {findings:?}"));
    assert_eq!(miss["line"], 3);
    // The rules engine calls this unwrap IMPORTANT; REVIEW.md raises it.
    let unwrap = findings
        .iter()
        .find(|f| f["rule"] == "RV-COR-001")
        .unwrap_or_else(|| panic!("no unwrap finding: {findings:?}"));
    assert_eq!(unwrap["severity"], "BLOCKER");
}

#[test]
fn without_repo_files_the_report_says_none_were_used() {
    let dir = scratch("none");
    let diff = fixtures().join("change.diff");
    let out = revu(
        &[
            "review",
            "--diff",
            diff.to_str().unwrap_or_default(),
            "--format",
            "json",
        ],
        &dir,
    );
    let r = report(&out);
    assert!(r["conventions"]["review_md"].is_null());
    assert!(r["conventions"]["repo_config"].is_null());
    assert_eq!(r["rigor"]["source"], "default");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_current_directory_is_the_default_repo() {
    let dir = scratch("cwd");
    std::fs::write(dir.join("revu.toml"), "rigor = \"poc\"\n").unwrap_or_else(|e| panic!("{e}"));
    let diff = fixtures().join("change.diff");
    let out = revu(
        &[
            "review",
            "--diff",
            diff.to_str().unwrap_or_default(),
            "--format",
            "json",
        ],
        &dir,
    );
    let r = report(&out);
    assert_eq!(r["rigor"]["level"], "poc");
    assert!(r["conventions"]["review_md"].is_null());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_revu_toml_is_an_input_error_naming_the_line() {
    let dir = scratch("bad");
    std::fs::write(dir.join("revu.toml"), "rigor = \"poc\"\nrigr = 1\n")
        .unwrap_or_else(|e| panic!("{e}"));
    let diff = fixtures().join("change.diff");
    let out = revu(
        &["review", "--diff", diff.to_str().unwrap_or_default()],
        &dir,
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("revu.toml line 2: unknown field `rigr`"),
        "{stderr}"
    );
    let missing = revu(
        &[
            "review",
            "--diff",
            diff.to_str().unwrap_or_default(),
            "--repo",
            "no/such/dir",
        ],
        &dir,
    );
    assert_eq!(missing.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}
