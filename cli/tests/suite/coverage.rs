//! The report's coverage: every changed file with the lanes that reviewed
//! it, lock, vendored and generated files left out by default and named,
//! and `--skip-files none` reviewing them too.

use serde_json::Value;
use std::process::{Command, Stdio};

const PATCH: &str = "diff --git a/src/app.rs b/src/app.rs
--- a/src/app.rs
+++ b/src/app.rs
@@ -1,2 +1,3 @@
 fn main() {
+    run();
 }
diff --git a/Cargo.lock b/Cargo.lock
--- a/Cargo.lock
+++ b/Cargo.lock
@@ -1,2 +1,3 @@
 [[package]]
+name = \"x\"
 version = \"1\"
diff --git a/web/vendor/lib.js b/web/vendor/lib.js
new file mode 100644
--- /dev/null
+++ b/web/vendor/lib.js
@@ -0,0 +1 @@
+console.log(1)
";

fn review(extra: &[&str]) -> Value {
    review_of("change.patch", PATCH, extra)
}

/// The JSON report of `text`, written to `name` (a name of each test's
/// own: the tests run at once in one directory).
fn review_of(name: &str, text: &str, extra: &[&str]) -> Value {
    let dir = std::env::temp_dir().join(format!("revu-coverage-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let patch = dir.join(name);
    std::fs::write(&patch, text).unwrap_or_else(|e| panic!("{e}"));
    let out = crate::scratch::outside_ci(&mut Command::new(env!("CARGO_BIN_EXE_revu")))
        .env_remove("REVU_SKIP_FILES")
        .args(["review", "--format", "json", "--repo"])
        .arg(&dir)
        .arg("--diff")
        .arg(&patch)
        .args(extra)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not a report ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// `path: lanes | skipped` for each file of the coverage.
fn coverage(r: &Value) -> Vec<String> {
    r["coverage"]["files"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            let lanes: Vec<&str> = f["lanes"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            format!(
                "{}: {} | {}",
                f["path"].as_str().unwrap_or(""),
                lanes.join(","),
                f["skipped"].as_str().unwrap_or("")
            )
        })
        .collect()
}

#[test]
fn lock_and_vendored_files_are_left_out_and_named() {
    let r = review(&[]);
    let got = coverage(&r);
    assert!(
        got[0].starts_with("src/app.rs: domain:core,specialist:"),
        "{r}"
    );
    assert!(got[0].ends_with(" | "), "{r}");
    assert_eq!(
        got[1..],
        [
            "Cargo.lock:  | lock file (--skip-files)",
            "web/vendor/lib.js:  | vendored file (--skip-files)",
        ],
        "{r}"
    );
    // The vendored console.log is not reported: no lane read it.
    let files: Vec<&str> = r["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f["file"].as_str())
        .collect();
    assert!(!files.contains(&"web/vendor/lib.js"), "{r}");
}

#[test]
fn skip_files_none_reviews_every_file() {
    let r = review(&["--skip-files", "none"]);
    for line in coverage(&r) {
        assert!(line.ends_with("| "), "{line} in {r}");
    }
    let bad = Command::new(env!("CARGO_BIN_EXE_revu"))
        .args(["review", "--diff", "-", "--skip-files", "logs"])
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("not a kind of file to skip"),
        "{}",
        String::from_utf8_lossy(&bad.stderr)
    );
}

#[test]
fn a_path_changed_twice_is_covered_once_with_its_lanes() {
    // A symlink replaced by a script: git shows the path deleted, then
    // added; the facts, and so the coverage, list the path once.
    let patch = "diff --git a/bin/tool b/bin/tool
deleted file mode 120000
--- a/bin/tool
+++ /dev/null
@@ -1 +0,0 @@
-../tool.py
\\ No newline at end of file
diff --git a/bin/tool b/bin/tool
new file mode 100755
--- /dev/null
+++ b/bin/tool
@@ -0,0 +1,2 @@
+#!/bin/sh
+exec python3 ../tool.py
";
    let r = review_of("type-change.patch", patch, &[]);
    assert_eq!(coverage(&r), ["bin/tool: domain:core | "], "{r}");
}
