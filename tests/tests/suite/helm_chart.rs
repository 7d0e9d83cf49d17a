//! The Helm chart in `deploy/helm/revu`, read as files (`helm_render.rs`
//! runs it through a real `helm`): its metadata and defaults parse, every value a template reads exists,
//! every `--flag` and `REVU_*` variable a template hands to a binary is one
//! that binary's `--help` lists, and the worker's grace period outlasts its
//! drain. Flags change; the chart has to follow.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::Command;
use yaml_rust2::{Yaml, YamlLoader};

const COORDINATOR: &str = "revu-coordinator";
const WORKER: &str = "revu-worker";

fn chart_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../deploy/helm/revu")
}

fn read(path: &str) -> String {
    std::fs::read_to_string(chart_dir().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn yaml(path: &str) -> Yaml {
    let docs = YamlLoader::load_from_str(&read(path))
        .unwrap_or_else(|e| panic!("{path} is not YAML: {e}"));
    assert_eq!(docs.len(), 1, "{path}: one document");
    docs.into_iter().next().unwrap_or(Yaml::Null)
}

/// `node` at the dotted `path` (`worker.drainSecs`), `None` when a key is
/// missing. A key that is present with a null value is found.
fn at<'a>(node: &'a Yaml, path: &str) -> Option<&'a Yaml> {
    path.split('.').try_fold(node, |n, key| match n {
        Yaml::Hash(h) => h.get(&Yaml::String(key.to_owned())),
        _ => None,
    })
}

fn int_at(values: &Yaml, path: &str) -> i64 {
    at(values, path)
        .and_then(Yaml::as_i64)
        .unwrap_or_else(|| panic!("values.yaml: {path} is not an integer"))
}

/// The string keys of the map at `path` (an empty map has none).
fn keys_at(values: &Yaml, path: &str) -> Vec<String> {
    match at(values, path) {
        Some(Yaml::Hash(h)) => h
            .keys()
            .filter_map(Yaml::as_str)
            .map(str::to_owned)
            .collect(),
        Some(Yaml::Null) => Vec::new(),
        other => panic!("values.yaml: {path} is not a map: {other:?}"),
    }
}

/// The template files, by file name.
fn templates() -> BTreeMap<String, String> {
    let dir = chart_dir().join("templates");
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    entries
        .map(|e| e.unwrap_or_else(|e| panic!("{}: {e}", dir.display())))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .map(|name| {
            let text = read(&format!("templates/{name}"));
            (name, text)
        })
        .collect()
}

/// What a command line accepts, as its `--help` lists it.
#[derive(Debug, Default)]
struct Accepted {
    flags: BTreeSet<String>,
    env: BTreeSet<String>,
}

impl Accepted {
    fn of(bin: &str, args: &[&str]) -> Self {
        let out = Command::new(revu_tests::bin(bin))
            .args(args)
            .arg("--help")
            .output()
            .unwrap_or_else(|e| panic!("{bin} --help: {e}"));
        assert!(out.status.success(), "{bin} {args:?} --help failed");
        let help = String::from_utf8_lossy(&out.stdout);
        let mut accepted = Self::default();
        for line in help.lines().map(str::trim) {
            // Option lines: `--listen <LISTEN>`, `-h, --help`.
            if line.starts_with('-')
                && let Some(flag) = flags_in(line).into_iter().next()
            {
                accepted.flags.insert(flag);
            }
            if let Some((_, rest)) = line.split_once("[env: ")
                && let Some((name, _)) = rest.split_once('=')
            {
                accepted.env.insert(name.to_owned());
            }
        }
        assert!(
            accepted.flags.contains("--help"),
            "{bin} {args:?}: no options found in its help"
        );
        accepted
    }

    /// Names in `text` this command line does not accept.
    fn unknown_in(&self, text: &str) -> Vec<String> {
        let flags = flags_in(text)
            .into_iter()
            .filter(|f| !self.flags.contains(f));
        let env = env_in(text).into_iter().filter(|e| !self.env.contains(e));
        flags.chain(env).collect()
    }
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// Every long flag (`--lane-engine`) in `text`, in order; a `--` inside a
/// word or not followed by a letter is not one.
fn flags_in(text: &str) -> Vec<String> {
    tokens(text, "--", true, |c| {
        c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'
    })
    .into_iter()
    .filter(|f| f[2..].starts_with(|c: char| c.is_ascii_lowercase()))
    .collect()
}

/// Every `REVU_*` variable name in `text`.
fn env_in(text: &str) -> BTreeSet<String> {
    tokens(text, "REVU_", true, |c| {
        c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'
    })
    .into_iter()
    .filter(|e| e.len() > "REVU_".len())
    .collect()
}

/// Each occurrence of `prefix` (only those that start a word when
/// `word_start`), extended by the characters `more` accepts.
fn tokens(text: &str, prefix: &str, word_start: bool, more: impl Fn(char) -> bool) -> Vec<String> {
    let mut found = Vec::new();
    for (i, _) in text.match_indices(prefix) {
        if word_start && text[..i].chars().next_back().is_some_and(is_word) {
            continue;
        }
        let rest = &text[i + prefix.len()..];
        let len = rest.find(|c: char| !more(c)).unwrap_or(rest.len());
        found.push(format!("{prefix}{}", &rest[..len]));
    }
    found
}

#[test]
fn chart_metadata_is_a_v2_application_chart_of_this_release() {
    let chart = yaml("Chart.yaml");
    let field = |k: &str| {
        at(&chart, k)
            .and_then(Yaml::as_str)
            .unwrap_or_else(|| panic!("Chart.yaml: {k} missing"))
            .to_owned()
    };
    assert_eq!(field("apiVersion"), "v2");
    assert_eq!(field("name"), "revu");
    assert_eq!(field("type"), "application");
    let version = field("version");
    assert!(
        version.split('.').count() == 3
            && version
                .split('.')
                .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit())),
        "Chart.yaml: version {version} is not MAJOR.MINOR.PATCH"
    );
    // The default image tag is the appVersion: it names this release.
    assert_eq!(field("appVersion"), env!("CARGO_PKG_VERSION"));
    // gRPC probes need Kubernetes 1.24.
    assert!(field("kubeVersion").contains("1.24"));

    let values = yaml("values.yaml");
    let repository = at(&values, "image.repository").and_then(Yaml::as_str);
    assert!(
        repository.is_some_and(|r| !r.is_empty()),
        "image.repository"
    );
    assert!(
        at(&values, "image.tag").and_then(Yaml::as_str).is_some(),
        "image.tag"
    );
    assert!(
        at(&values, "redis.url").and_then(Yaml::as_str).is_some(),
        "redis.url"
    );
    for off in [
        "metrics.serviceMonitor.enabled",
        "worker.autoscaling.enabled",
    ] {
        assert_eq!(
            at(&values, off).and_then(Yaml::as_bool),
            Some(false),
            "{off} is off by default"
        );
    }
}

#[test]
fn templates_pass_only_flags_and_variables_the_binaries_accept() {
    let coordinator = Accepted::of(COORDINATOR, &[]);
    let worker = Accepted::of(WORKER, &[]);
    let submit = Accepted::of("revu", &["submit"]);

    let mut problems = Vec::new();
    let mut checked = 0;
    for (name, text) in templates() {
        // Which binaries read what this file passes on: a name in the
        // shared helpers must be one both accept.
        let readers: Vec<(&str, &Accepted)> = if name == "_helpers.tpl" {
            vec![(COORDINATOR, &coordinator), (WORKER, &worker)]
        } else if name.starts_with("coordinator-") {
            vec![(COORDINATOR, &coordinator)]
        } else if name.starts_with("worker-") {
            vec![(WORKER, &worker)]
        } else if name == "NOTES.txt" {
            // Only the revu command lines; the rest is kubectl.
            let revu: String = text
                .lines()
                .filter(|l| l.trim_start().starts_with("revu submit"))
                .collect::<Vec<_>>()
                .join("\n");
            assert!(!revu.is_empty(), "NOTES.txt shows how to submit");
            for unknown in submit.unknown_in(&revu) {
                problems.push(format!("NOTES.txt: `revu submit` has no {unknown}"));
            }
            continue;
        } else {
            vec![]
        };
        if readers.is_empty() {
            let stray: Vec<String> = flags_in(&text).into_iter().chain(env_in(&text)).collect();
            assert!(
                stray.is_empty(),
                "templates/{name} passes {stray:?} to no known binary: name it \
                 coordinator-* or worker-*, or move it to _helpers.tpl"
            );
            continue;
        }
        for (bin, accepted) in readers {
            for unknown in accepted.unknown_in(&text) {
                problems.push(format!("templates/{name}: {bin} has no {unknown}"));
            }
        }
        checked += flags_in(&text).len() + env_in(&text).len();
    }
    assert!(checked > 10, "the templates pass on only {checked} names");

    // values.yaml: the variables it sets per component, and what its
    // comments name.
    let values = yaml("values.yaml");
    for (path, bin, accepted) in [
        ("coordinator.env", COORDINATOR, &coordinator),
        ("worker.env", WORKER, &worker),
    ] {
        for key in keys_at(&values, path) {
            if key.starts_with("REVU_") && !accepted.env.contains(&key) {
                problems.push(format!("values.yaml: {path}.{key}: {bin} has no {key}"));
            }
        }
    }
    for key in keys_at(&values, "otel.env") {
        if !key.starts_with("OTEL_") {
            problems.push(format!(
                "values.yaml: otel.env.{key} is not an OTEL_* variable"
            ));
        }
    }
    let text = read("values.yaml");
    for name in flags_in(&text).into_iter().chain(env_in(&text)) {
        let known = [&coordinator, &worker]
            .iter()
            .any(|a| a.flags.contains(&name) || a.env.contains(&name));
        if !known {
            problems.push(format!("values.yaml: no binary has {name}"));
        }
    }

    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_value_a_template_reads_has_a_default() {
    let values = yaml("values.yaml");
    let mut missing = BTreeSet::new();
    for (name, text) in templates() {
        // `{{- $w := .Values.worker }}` makes `$w.drainSecs` read
        // `worker.drainSecs`.
        let mut aliases = BTreeMap::new();
        for line in text.lines() {
            if let Some((lhs, rhs)) = line.split_once(":= .Values.")
                && let Some(var) = lhs.trim_end().rsplit(' ').next()
                && var.starts_with('$')
            {
                let path: String = rhs.chars().take_while(|c| is_path(*c)).collect();
                aliases.insert(format!("{var}."), path);
            }
        }
        let mut paths: Vec<String> = tokens(&text, ".Values.", false, is_path)
            .into_iter()
            .map(|t| t[".Values.".len()..].to_owned())
            .collect();
        for (alias, base) in &aliases {
            for t in tokens(&text, alias, false, is_path) {
                paths.push(format!("{base}.{}", &t[alias.len()..]));
            }
        }
        for path in paths {
            let path = path.trim_end_matches('.');
            if !path.is_empty() && at(&values, path).is_none() {
                missing.insert(format!("templates/{name}: .Values.{path}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "values.yaml has no default for:\n{}",
        missing.into_iter().collect::<Vec<_>>().join("\n")
    );
}

fn is_path(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.'
}

#[test]
fn worker_grace_period_outlasts_its_drain() {
    let values = yaml("values.yaml");
    let grace = int_at(&values, "worker.terminationGracePeriodSeconds");
    let drain = int_at(&values, "worker.drainSecs");
    assert!(
        grace > drain,
        "worker.terminationGracePeriodSeconds ({grace}) must exceed worker.drainSecs ({drain}): \
         Kubernetes sends SIGKILL when the grace period ends"
    );
    // Both values reach the pod: the grace period in the Deployment, the
    // drain as the worker's REVU_DRAIN_SECS.
    let templates = templates();
    let deployment = templates.get("worker-deployment.yaml").map(String::as_str);
    assert!(
        deployment
            .is_some_and(|t| t
                .contains("terminationGracePeriodSeconds: {{ $w.terminationGracePeriodSeconds }}")),
        "worker-deployment.yaml sets the grace period from worker.terminationGracePeriodSeconds"
    );
    let config = templates.get("worker-configmap.yaml").map(String::as_str);
    assert!(
        config.is_some_and(|t| t.contains("\"REVU_DRAIN_SECS\" $w.drainSecs")),
        "worker-configmap.yaml sets REVU_DRAIN_SECS from worker.drainSecs"
    );
}
