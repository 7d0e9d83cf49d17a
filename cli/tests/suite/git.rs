//! `revu review` started in a git work tree, without `--diff`: the change
//! it finds, the flags that choose another, and what happens outside a
//! repository. Needs git on PATH.

use crate::scratch;

use scratch::{Scratch, revu_in};
use std::process::Output;

/// Each finding as `file:line rule`.
fn findings(out: &Output) -> Vec<String> {
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not a report ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    report["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            format!(
                "{}:{} {}",
                f["file"].as_str().unwrap_or(""),
                f["line"],
                f["rule"].as_str().unwrap_or("")
            )
        })
        .collect()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

const BEFORE: &str = "pub fn limit() -> u32 {\n    7\n}\n";
const AFTER: &str = "pub fn limit() -> u32 {\n    let raw = std::env::var(\"LIMIT\").unwrap();\n    raw.parse().unwrap_or(7)\n}\n";

#[test]
fn an_uncommitted_change_is_reviewed_and_the_same_change_committed_reads_the_same() {
    let s = Scratch::new("same");
    s.write("src/lib.rs", BEFORE);
    s.commit("first");
    s.write("src/lib.rs", AFTER);
    let uncommitted = s.review(&[]);
    assert!(
        matches!(uncommitted.status.code(), Some(0 | 1)),
        "{}",
        stderr(&uncommitted)
    );
    let seen = findings(&uncommitted);
    assert!(
        seen.iter().any(|f| f.starts_with("src/lib.rs:2 ")),
        "the unwrap on line 2 is not reported: {seen:?}"
    );
    // Staged, it is still the change reviewed.
    s.git(&["add", "-A"]);
    assert_eq!(findings(&s.review(&[])), seen, "staged");
    s.git(&["commit", "-q", "-m", "second"]);
    assert_eq!(findings(&s.review(&["--base", "HEAD~1"])), seen, "--base");
    assert_eq!(findings(&s.review(&["--commit", "HEAD"])), seen, "--commit");
    // Nothing left uncommitted: the last commit.
    assert_eq!(findings(&s.review(&[])), seen, "the last commit");
    // The commit's file contents are what travel with it.
    let capped = s.review(&["--commit", "HEAD", "--max-head-bytes", "10"]);
    assert!(
        stderr(&capped).contains(&format!("contents are {} bytes", AFTER.len())),
        "{}",
        stderr(&capped)
    );
}

#[test]
fn staged_worktree_and_paths_choose_what_is_reviewed() {
    let s = Scratch::new("choose");
    s.write("src/lib.rs", BEFORE);
    s.write("src/other.rs", BEFORE);
    s.commit("first");
    s.write("src/lib.rs", AFTER);
    s.git(&["add", "src/lib.rs"]);
    s.write("src/other.rs", AFTER);
    let files = |out: &Output| -> Vec<String> {
        let mut f: Vec<String> = findings(out)
            .iter()
            .filter_map(|f| f.split(':').next().map(str::to_owned))
            .collect();
        f.dedup();
        f
    };
    assert_eq!(files(&s.review(&["--staged"])), ["src/lib.rs"]);
    assert_eq!(files(&s.review(&["--worktree"])), ["src/other.rs"]);
    // The default is the staged change.
    assert_eq!(files(&s.review(&[])), ["src/lib.rs"]);
    let narrowed = s.review(&["--staged", "--", "src/other.rs"]);
    assert_eq!(narrowed.status.code(), Some(2), "{}", stderr(&narrowed));
    assert!(
        stderr(&narrowed).contains("nothing to review: the staged change is empty"),
        "{}",
        stderr(&narrowed)
    );
}

#[test]
fn outside_a_repository_or_with_a_bad_revision_it_exits_2_with_the_reason() {
    let outside = std::env::temp_dir().join(format!("revu-git-outside-{}", std::process::id()));
    std::fs::create_dir_all(&outside).unwrap_or_else(|e| panic!("{e}"));
    let out = revu_in(&outside, None, &[]);
    let _ = std::fs::remove_dir_all(&outside);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("not inside a git work tree"),
        "{}",
        stderr(&out)
    );
    assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));

    let s = Scratch::new("bad");
    s.write("src/lib.rs", BEFORE);
    s.commit("first");
    for args in [
        &["--base", "no-such-branch"][..],
        &["--commit=--output=x"][..],
    ] {
        let out = s.review(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("bad revision"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn full_contents_travel_within_limits_and_what_is_left_out_is_named() {
    let s = Scratch::new("heads");
    s.write("src/lib.rs", BEFORE);
    s.commit("first");
    s.write("src/lib.rs", AFTER);
    std::fs::write(s.dir.join("src/logo.bin"), [0u8, 159, 146, 150, 0, 1])
        .unwrap_or_else(|e| panic!("{e}"));
    s.git(&["add", "-A"]);
    let out = s.review(&["--max-head-file-bytes", "4096"]);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("full contents not sent for 1 file(s)")
            && stderr(&out).contains("src/logo.bin (binary)"),
        "{}",
        stderr(&out)
    );
    let small = s.review(&["--max-head-file-bytes", "10"]);
    assert!(
        stderr(&small).contains("src/lib.rs (")
            && stderr(&small).contains("over --max-head-file-bytes 10"),
        "{}",
        stderr(&small)
    );
    // Over the per-review limit: refused, naming it.
    let over = s.review(&["--max-head-bytes", "10"]);
    assert_eq!(over.status.code(), Some(2), "{}", stderr(&over));
    assert!(
        stderr(&over).contains("over --max-head-bytes 10"),
        "{}",
        stderr(&over)
    );
}

#[test]
fn a_changed_file_that_is_not_utf8_travels_whole() {
    let s = Scratch::new("latin1");
    std::fs::write(s.dir.join("src/legacy.py"), b"# caf\xe9\nNAME = 1\n")
        .unwrap_or_else(|e| panic!("{e}"));
    s.commit("first");
    std::fs::write(s.dir.join("src/legacy.py"), b"# caf\xe9\nNAME = 2\n")
        .unwrap_or_else(|e| panic!("{e}"));
    let out = s.review(&[]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not a report ({e}): {}", stderr(&out)));
    assert!(
        !stderr(&out).contains("full contents not sent"),
        "{}",
        stderr(&out)
    );
    let read: Vec<&str> = report["coverage"]["files"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| f["path"] == "src/legacy.py")
        .filter_map(|f| f["read"].as_str())
        .collect();
    assert_eq!(read, vec!["full"], "{:#}", report["coverage"]);
}
