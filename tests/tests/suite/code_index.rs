//! The code index through the distributed path: `revu submit` in a git
//! work tree sends the index with the review, the coordinator checks the
//! citations it vouches for and computes each finding's blast radius, and
//! a worker's rules report the stale use of a renamed property in a file
//! the change did not touch; the intent's sources reach the report. Needs
//! git on PATH.

use revu_tests::{Cluster, RedisServer, bin, git};
use std::path::Path;
use std::process::Command;

fn write(dir: &Path, path: &str, text: &str) {
    let at = dir.join(path);
    if let Some(parent) = at.parent() {
        std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
    }
    std::fs::write(at, text).unwrap_or_else(|e| panic!("{e}"));
}

const MODELS: &str = "class User:\n    def __init__(self, name):\n        self.user_name = name\n\n\ndef greet(user):\n    return \"hi \" + user.user_name\n";
const REPORT: &str = "from app import models\n\n\ndef line(user):\n    print(models.greet(user))\n    return user.user_name\n";

#[test]
fn a_submitted_git_change_carries_its_index_to_the_fleet() {
    let cluster = Cluster::start(RedisServer::start(), 1, &[]);
    let dir = std::env::temp_dir().join(format!("revu-index-submit-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    git(&dir, &["init", "-q"]);
    write(&dir, "app/__init__.py", "");
    write(&dir, "app/models.py", MODELS);
    write(&dir, "app/report.py", REPORT);
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-q", "-m", "first"]);
    write(
        &dir,
        "app/models.py",
        &MODELS.replace("user_name", "username"),
    );
    // A Latin-1 file, and a copy of it: one content, stored once, kept
    // byte-exact. Staged with the rename, so the staged change is reviewed.
    let latin1 = b"# caf\xe9\nNAME = 'x'\n";
    for path in ["app/legacy.py", "app/legacy_copy.py"] {
        std::fs::write(dir.join(path), latin1).unwrap_or_else(|e| panic!("{e}"));
    }
    git(&dir, &["add", "-A"]);

    let out = Command::new(bin("revu"))
        .current_dir(&dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env_remove("REVU_COORDINATOR")
        .env_remove("GITHUB_EVENT_NAME")
        .env_remove("REVU_NO_AUTO_INTENT")
        .env("CI_MERGE_REQUEST_TITLE", "Rename user_name")
        .env_remove("CI_MERGE_REQUEST_DESCRIPTION")
        .args(["submit", "--quiet", "--format", "json", "--timeout", "120"])
        .args(["--intent", "one name for the user's name"])
        .arg("--coordinator")
        .arg(cluster.endpoint())
        .output()
        .unwrap_or_else(|e| panic!("revu submit: {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let report: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("report: {e}: {stderr}"));
    let findings = report["findings"].as_array().cloned().unwrap_or_default();
    let stale = findings
        .iter()
        .find(|f| f["rule"] == "RV-COR-006")
        .unwrap_or_else(|| panic!("no stale use reported: {:#}", report["findings"]));
    assert_eq!(stale["file"], "app/report.py");
    assert_eq!(stale["line"], 6);
    assert_eq!(stale["severity"], "BLOCKER");
    assert_eq!(
        stale["blast_radius"],
        "1 direct callers, 1 transitive importers"
    );
    assert_eq!(report["gate"], "NEEDS-HUMAN");
    assert_eq!(report["code_index"]["stale_uses"], 1);
    // The intent travels with where it came from (a staged change: no
    // commits).
    assert_eq!(
        report["coverage"]["intent_sources"],
        serde_json::json!(["flag", "gitlab"])
    );
    assert!(
        findings.iter().all(|f| f["blast_radius"]
            .as_str()
            .is_some_and(|b| b.ends_with("transitive importers"))),
        "{findings:#?}"
    );
    let heads: Vec<String> = cluster
        .redis
        .review_fields()
        .into_iter()
        .filter(|f| f.starts_with("head:"))
        .collect();
    // models.py, and the two Latin-1 files as one.
    assert_eq!(heads.len(), 2, "{heads:?}");
    assert!(
        heads.contains(&format!("head:{}", revu_domain::bundle::digest(latin1))),
        "{heads:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
