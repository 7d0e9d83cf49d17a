//! The Prometheus alerting rules (`deploy/helm/revu/files/alerts.yml`) and
//! their unit tests (`deploy/prometheus/alerts.test.yml`): `promtool` finds
//! the rules valid and free of lint findings and passes the tests; every
//! alert has a severity, a summary and a description, a case where it
//! fires and one where it stays silent; and the alerts and their tests read
//! only metrics the binaries export. `promtool` comes with Prometheus;
//! `scripts/test` installs it.

use revu_coordinator::metrics::CoordinatorMetrics;
use revu_runtime::metrics::Readiness;
use revu_worker::metrics::WorkerMetrics;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::Command;
use yaml_rust2::{Yaml, YamlLoader};

/// The rules, and their tests, under `deploy/`.
const RULES: &str = "helm/revu/files/alerts.yml";
const TESTS: &str = "prometheus/alerts.test.yml";

fn deploy(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../deploy")
        .join(path)
}

fn yaml(path: &str) -> Yaml {
    let file = deploy(path);
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let docs =
        YamlLoader::load_from_str(&text).unwrap_or_else(|e| panic!("{path} is not YAML: {e}"));
    assert_eq!(docs.len(), 1, "{path}: one document");
    docs.into_iter().next().unwrap_or(Yaml::Null)
}

/// `promtool` on PATH; fails saying how to get it.
fn promtool() -> PathBuf {
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|dir| dir.join("promtool"))
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!(
                "promtool is not on PATH: install Prometheus, which carries it \
                 (Debian/Ubuntu: `apt-get install prometheus`; macOS: `brew install prometheus`), \
                 or run the tests with `scripts/test`, which installs it"
            )
        })
}

/// Runs `promtool ARGS deploy/FILE` and returns what it said; fails with
/// that unless it succeeds.
fn promtool_on(args: &[&str], file: &str) -> String {
    let out = Command::new(promtool())
        .args(args)
        .arg(deploy(file))
        .output()
        .unwrap_or_else(|e| panic!("promtool {}: {e}", args.join(" ")));
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "promtool {} {file}: {}\n{said}",
        args.join(" "),
        out.status
    );
    said
}

/// Every alerting rule of the rules file, by name.
fn alerts() -> BTreeMap<String, Yaml> {
    let rules = yaml(RULES);
    let groups = rules["groups"]
        .as_vec()
        .unwrap_or_else(|| panic!("{RULES}: no groups"));
    let mut alerts = BTreeMap::new();
    for group in groups {
        for rule in group["rules"].as_vec().into_iter().flatten() {
            if let Some(name) = rule["alert"].as_str() {
                let again = alerts.insert(name.to_owned(), rule.clone());
                assert!(again.is_none(), "{RULES}: {name} twice");
            }
        }
    }
    assert!(!alerts.is_empty(), "{RULES}: no alerts");
    alerts
}

/// Identifiers starting with `revu_` in `text`.
fn metric_names(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("revu_") {
        let tail = &rest[at..];
        let end = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(tail.len());
        names.push(tail[..end].to_owned());
        rest = &tail[end..];
    }
    names
}

/// The sample names of every metric the binaries export, from the
/// catalogs their registries are built with (a histogram's family name is
/// kept too, for the names of its samples' prefix).
fn exported() -> BTreeSet<String> {
    let (_, mut coordinator) = CoordinatorMetrics::registered();
    let (_, mut worker) = WorkerMetrics::registered();
    Readiness::default().register(&mut coordinator);
    Readiness::default().register(&mut worker);
    let mut names = BTreeSet::new();
    for name in coordinator
        .sample_names()
        .iter()
        .chain(worker.sample_names())
    {
        names.insert(name.clone());
        if let Some(family) = name.strip_suffix("_bucket") {
            names.insert(family.to_owned());
        }
    }
    names
}

#[test]
fn promtool_finds_the_rules_valid_and_their_tests_passing() {
    // Lint findings (duplicate rules) fail the check too.
    let said = promtool_on(&["check", "rules", "--lint=all", "--lint-fatal"], RULES);
    assert!(said.contains("SUCCESS"), "{said}");
    // The tests name their rules file relative to themselves.
    let said = promtool_on(&["test", "rules"], TESTS);
    assert!(said.contains("SUCCESS"), "{said}");
}

#[test]
fn every_alert_says_how_bad_it_is_and_what_to_check() {
    let mut problems = Vec::new();
    for (name, rule) in alerts() {
        if !name.starts_with("Revu") {
            problems.push(format!("{name}: not named Revu…"));
        }
        if rule["for"].as_str().is_none() {
            problems.push(format!("{name}: no `for`"));
        }
        let severity = rule["labels"]["severity"].as_str();
        if !matches!(severity, Some("warning" | "critical")) {
            problems.push(format!(
                "{name}: severity {severity:?}, not warning or critical"
            ));
        }
        for key in ["summary", "description"] {
            if rule["annotations"][key]
                .as_str()
                .is_none_or(|t| t.trim().is_empty())
            {
                problems.push(format!("{name}: no {key} annotation"));
            }
        }
    }
    assert!(problems.is_empty(), "{RULES}:\n{}", problems.join("\n"));
}

#[test]
fn every_alert_has_a_case_where_it_fires_and_one_where_it_stays_silent() {
    let alerts = alerts();
    let tests = yaml(TESTS);
    let cases = tests["tests"]
        .as_vec()
        .unwrap_or_else(|| panic!("{TESTS}: no tests"));
    let mut firing: BTreeMap<String, usize> = BTreeMap::new();
    let mut silent: BTreeMap<String, usize> = BTreeMap::new();
    let mut problems = Vec::new();
    for case in cases {
        let case_name = case["name"].as_str().unwrap_or("(unnamed)");
        for check in case["alert_rule_test"].as_vec().into_iter().flatten() {
            let Some(name) = check["alertname"].as_str() else {
                problems.push(format!("{case_name}: a check without alertname"));
                continue;
            };
            // No exp_alerts, or an empty list, expects the alert silent.
            let expected = check["exp_alerts"].as_vec().cloned().unwrap_or_default();
            let tally = if expected.is_empty() {
                &mut silent
            } else {
                &mut firing
            };
            *tally.entry(name.to_owned()).or_default() += 1;
            // promtool compares the whole label set, so the severity and
            // the labels the alert groups by are all checked.
            for alert in &expected {
                if alert["exp_labels"]["severity"].as_str().is_none() {
                    problems.push(format!("{case_name}: {name} fires with no severity"));
                }
                for key in ["summary", "description"] {
                    if alert["exp_annotations"][key].as_str().is_none() {
                        problems.push(format!("{case_name}: {name} fires with no {key}"));
                    }
                }
            }
        }
    }
    for name in alerts.keys() {
        if !firing.contains_key(name) {
            problems.push(format!("{name}: no case where it fires"));
        }
        if !silent.contains_key(name) {
            problems.push(format!("{name}: no case where it stays silent"));
        }
    }
    // A check of an alert the rules do not define would pass silently.
    for name in firing.keys().chain(silent.keys()) {
        if !alerts.contains_key(name) {
            problems.push(format!("{name}: tested, but {RULES} has no such alert"));
        }
    }
    assert!(problems.is_empty(), "{TESTS}:\n{}", problems.join("\n"));
}

#[test]
fn alerts_and_their_tests_read_only_exported_metrics() {
    let exported = exported();
    let mut unknown = BTreeSet::new();
    for (name, rule) in alerts() {
        let expr = rule["expr"]
            .as_str()
            .unwrap_or_else(|| panic!("{name}: no expr"));
        let read = metric_names(expr);
        assert!(!read.is_empty(), "{name} reads no revu metric: {expr}");
        // What the annotations tell the operator to look at, too.
        let told = rule["annotations"]
            .as_hash()
            .into_iter()
            .flat_map(|h| h.values())
            .filter_map(Yaml::as_str)
            .flat_map(metric_names);
        for metric in read.into_iter().chain(told) {
            if !exported.contains(&metric) {
                unknown.insert(format!("{RULES}: {name}: {metric}"));
            }
        }
    }
    // A test series under a misspelled name would leave an alert silent
    // for the wrong reason.
    let tests = yaml(TESTS);
    for case in tests["tests"].as_vec().into_iter().flatten() {
        for input in case["input_series"].as_vec().into_iter().flatten() {
            let series = input["series"].as_str().unwrap_or_default();
            let metric = series.split('{').next().unwrap_or_default().trim();
            if !exported.contains(metric) {
                unknown.insert(format!("{TESTS}: {metric:?}"));
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "not among the metrics the binaries export:\n{}",
        unknown.into_iter().collect::<Vec<_>>().join("\n")
    );
}
