//! Git in a repository a test builds, with no configuration of the
//! machine's and a fixed author.

use std::path::Path;
use std::process::Command;

/// Runs `git ARGS` in `dir` and returns its output, trimmed; a failure
/// fails the test with what git said.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("running git: {e} (this test needs git on PATH)"));
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}
