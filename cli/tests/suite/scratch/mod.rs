//! A scratch git repository for the tests that start revu in a work tree.
//! Each test binary uses what it needs of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A scratch repository in a directory of its own, removed on drop.
pub struct Scratch {
    pub dir: PathBuf,
    /// A git config with every setting that would change a diff, given to
    /// every git and revu run as the user's own.
    pub hostile: PathBuf,
}

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        let root = std::env::temp_dir().join(format!("revu-git-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let dir = root.join("repo");
        std::fs::create_dir_all(dir.join("src")).unwrap_or_else(|e| panic!("{e}"));
        let hostile = root.join("gitconfig");
        std::fs::write(
            &hostile,
            "[user]\n\tname = t\n\temail = t@example.com\n\
             [color]\n\tui = always\n\
             [diff]\n\tnoprefix = true\n\tcontext = 0\n\trenames = false\n\texternal = false\n\
             \trelative = true\n\tmnemonicPrefix = true\n\
             [core]\n\tpager = false\n\tquotePath = false\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let s = Scratch { dir, hostile };
        s.git(&["init", "-q"]);
        s
    }

    pub fn git(&self, args: &[&str]) {
        let out = Command::new("git")
            .current_dir(&self.dir)
            .env("GIT_CONFIG_GLOBAL", &self.hostile)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("running git: {e} (the git-native tests need git on PATH)"));
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    pub fn write(&self, path: &str, text: &str) {
        let at = self.dir.join(path);
        if let Some(parent) = at.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(at, text).unwrap_or_else(|e| panic!("{e}"));
    }

    pub fn commit(&self, message: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", message]);
    }

    pub fn review(&self, args: &[&str]) -> Output {
        revu_in(&self.dir, Some(&self.hostile), args)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if let Some(root) = self.dir.parent() {
            let _ = std::fs::remove_dir_all(root);
        }
    }
}

pub fn revu_in(dir: &Path, config: Option<&Path>, args: &[&str]) -> Output {
    revu_with(dir, config, args, &[])
}

/// [`revu_in`] with more environment.
pub fn revu_with(
    dir: &Path,
    config: Option<&Path>,
    args: &[&str],
    env: &[(&str, &std::ffi::OsStr)],
) -> Output {
    let mut cmd = revu_command(dir, config);
    cmd.envs(env.iter().copied())
        .arg("review")
        .args(["--format", "json"])
        .args(args)
        .stdin(Stdio::null());
    cmd.output().unwrap_or_else(|e| panic!("{e}"))
}

/// The variables a CI job sets that revu reads a change's intent from.
pub const CI_INTENT_VARS: [&str; 5] = [
    "GITHUB_EVENT_NAME",
    "GITHUB_EVENT_PATH",
    "CI_MERGE_REQUEST_TITLE",
    "CI_MERGE_REQUEST_DESCRIPTION",
    "REVU_NO_AUTO_INTENT",
];

/// `cmd` without the CI job's intent variables, so that a test run in CI
/// reviews what it would anywhere else.
pub fn outside_ci(cmd: &mut Command) -> &mut Command {
    for name in CI_INTENT_VARS {
        cmd.env_remove(name);
    }
    cmd
}

/// `revu` in `dir`, with `config` as the user's git config when given.
pub fn revu_command(dir: &Path, config: Option<&Path>) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_revu"));
    outside_ci(&mut cmd);
    // The code index's cache: the tests' own, never the user's.
    let cache = std::env::temp_dir().join("revu-tests-index-cache");
    cmd.current_dir(dir)
        .env_remove("TRACEPARENT")
        .env_remove("REVU_NO_INDEX_CACHE")
        .env("REVU_INDEX_CACHE", cache)
        .env("GIT_CONFIG_NOSYSTEM", "1");
    if let Some(config) = config {
        cmd.env("GIT_CONFIG_GLOBAL", config);
    }
    cmd
}

/// The report a run printed on stdout; a panic with what it wrote on
/// stderr when it printed none.
pub fn report(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not a report ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// The findings of a report.
pub fn findings(r: &serde_json::Value) -> Vec<&serde_json::Value> {
    r["findings"].as_array().into_iter().flatten().collect()
}
