use super::meta::{Example, RuleMeta};
use revu_domain::finding::{Dimension, Severity};
use super::table::{Check, Files, Wording, table_rule};
use std::sync::LazyLock;

static CHECKS: LazyLock<Vec<Check>> = LazyLock::new(|| {
    let yaml = Files::Yaml;
    vec![
        Check::new("privileged: true", yaml, r"^\s*privileged:\s*true\b"),
        Check::new("allowPrivilegeEscalation: true", yaml, r"^\s*allowPrivilegeEscalation:\s*true\b"),
        Check::new("hostNetwork/hostPID/hostIPC: true", yaml, r"^\s*host(?:Network|PID|IPC):\s*true\b"),
        Check::new("network_mode: host", yaml, r#"^\s*network_mode:\s*["']?host\b"#),
        Check::new("runAsUser: 0", yaml, r"^\s*runAsUser:\s*0\s*(?:#.*)?$"),
        Check::new("runAsNonRoot: false", yaml, r"^\s*runAsNonRoot:\s*false\b"),
        Check::new("capabilities added", yaml, r"^\s*add:\s*\[.*\b(?:CAP_)?(?:SYS_ADMIN|NET_ADMIN|SYS_PTRACE|SYS_MODULE|ALL)\b"),
        // A list item under `add:`, not under `drop:` (dropping ALL is the
        // safe spelling).
        Check::new("capabilities added", yaml, r#"^\s*-\s*["']?(?:CAP_)?(?:SYS_ADMIN|NET_ADMIN|SYS_PTRACE|SYS_MODULE|ALL)["']?\s*$"#)
            .inside(r"^\s*add:\s*$", r"^\s*[\w-]+:"),
        Check::new("the Docker socket mounted", yaml, r"/var/run/docker\.sock\b"),
        Check::new("USER root", Files::Dockerfile, r"(?i)^\s*USER\s+(?:root|0)(?::\S+)?\s*$"),
        Check::new("sudo in RUN", Files::Dockerfile, r"(?i)^\s*RUN\b.*\bsudo\b"),
    ]
});

fn summary(label: &str) -> String {
    format!("Container given the host's powers (`{label}`).")
}

static WORDING: Wording = Wording {
    summary,
    why: "A compromised process in this container is root on the node or a step from \
          it: other workloads' traffic and secrets, kernel modules, new containers \
          through the socket.",
    fix: "Run as a non-root user, set `allowPrivilegeEscalation: false`, drop all \
          capabilities and add back only what is needed, and leave host namespaces \
          and the Docker socket out.",
};

/// The `container-privilege` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-SEC-014",
    name: "container-privilege",
    dimension: Dimension::Security,
    severity: Severity::Important,
    confidence: 85,
    languages: &["YAML", "Dockerfile"],
    catches: "Flags containers given the host's powers: `privileged: true`, \
              `allowPrivilegeEscalation: true`, `hostNetwork`/`hostPID`/`hostIPC`, Compose's \
              `network_mode: host`, `runAsUser: 0`, `runAsNonRoot: false`, added capabilities \
              such as `SYS_ADMIN` or `ALL`, the Docker socket mounted, and in Dockerfiles `USER \
              root` and `sudo`. The classes of checkov's CKV_K8S_16/17/18/19/20/23/27/39 and \
              hadolint's DL3002/DL3004.",
    why: "A compromised process in such a container is root on the node, or a step from it: it \
          can read other pods' traffic and secrets, load kernel modules or start containers of \
          its own through the socket.",
    example: Example {
        path: "k8s/deployment.yaml",
        code: concat!(
            "securityContext:\n",
            "  privileged: true",
        ),
        context: "",
    },
    instead: "run as a non-root user (`runAsNonRoot: true`, `USER app`), \
              `allowPrivilegeEscalation: false`, `capabilities: { drop: [ALL] }` adding back \
              only what is needed, and no host namespaces.",
};

table_rule! {
    /// The `container-privilege` rule: [`META`].
    ContainerPrivilege {
        meta: META,
        checks: CHECKS,
        wording: WORDING,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{added_file, assert_well_formed, cited, run};
    use super::*;

    #[test]
    fn flags_host_powers_and_leaves_safe_settings() {
        let change = [
            added_file(
                "k8s/api.yaml",
                &[
                    "securityContext:",
                    "  privileged: true",
                    "  runAsUser: 10001",
                    "  capabilities:",
                    "    drop:",
                    "      - ALL",
                    "    add:",
                    "      - NET_ADMIN",
                ],
            ),
            added_file("Dockerfile", &["USER root", "USER app"]),
        ];
        let found = run(&ContainerPrivilege, &change);
        assert_eq!(
            cited(&found),
            vec![("k8s/api.yaml", 2), ("k8s/api.yaml", 8), ("Dockerfile", 1)]
        );
        assert_well_formed(&ContainerPrivilege, &found);
        assert!(CHECKS.iter().all(Check::compiles));
    }
}
