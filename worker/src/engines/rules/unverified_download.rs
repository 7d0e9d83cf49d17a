use super::meta::{Example, RuleMeta};
use revu_domain::finding::{Dimension, Severity};
use super::table::{Check, Files, Wording, table_rule};
use std::sync::LazyLock;

static CHECKS: LazyLock<Vec<Check>> = LazyLock::new(|| {
    vec![
        Check::new(
            "curl | sh",
            Files::Commands,
            r"\b(?:curl|wget)\b[^|#]*\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+\S+\s+)?(?:ba|z|da|k)?sh\b",
        ),
        Check::new("curl | python", Files::Commands, r"\b(?:curl|wget)\b[^|#]*\|\s*(?:sudo\s+)?(?:python3?|perl|ruby|node)\b"),
        Check::new("sh <(curl …)", Files::Commands, r"\b(?:ba|z)?sh\s+<\(\s*(?:curl|wget)\b"),
        Check::new("ADD from a URL", Files::Dockerfile, r"(?i)^\s*ADD\s+(?:--\S+\s+)*https?://")
            .unless(r"--checksum="),
    ]
});

fn summary(label: &str) -> String {
    format!("Remote code run or installed unverified (`{label}`).")
}

static WORDING: Wording = Wording {
    summary,
    why: "Whoever controls the URL, its CDN or the network path on the day of the \
          build runs code in it, with its secrets, and the build cannot be reproduced.",
    fix: "Download to a file, check it against a pinned SHA-256 (`sha256sum -c`, \
          `ADD --checksum=sha256:…`), then run it; or install from a signed package \
          index.",
};

/// The `unverified-download` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-SEC-013",
    name: "unverified-download",
    dimension: Dimension::Security,
    severity: Severity::Important,
    confidence: 85,
    languages: &["shell", "Dockerfile", "Makefile", "CI YAML"],
    catches: "Flags code fetched over the network and run or installed without a check of what \
              arrived: `curl … | sh` (and `| bash`, `| python`, `sh <(curl …)`) in scripts, \
              Dockerfiles, Makefiles and CI files, and a Dockerfile `ADD https://…` without \
              `--checksum`. The class of hadolint's DL3020 and DL4006-adjacent advice and of \
              the supply-chain checks of container scanners.",
    why: "Whoever controls that URL, its CDN or the network path on the day of the build runs \
          code in the build, with its secrets; and the build is not reproducible, since the \
          script can change under the same URL.",
    example: Example {
        path: "scripts/bootstrap.sh",
        code: "curl -fsSL https://get.example.com/install.sh | sh",
        context: "",
    },
    instead: "download to a file, check it against a pinned SHA-256 (`sha256sum -c`, `ADD \
              --checksum=sha256:…`), then run it; or install from a package manager with signed \
              indexes.",
};

table_rule! {
    /// The `unverified-download` rule: [`META`].
    UnverifiedDownload {
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
    fn flags_piped_installers_and_unchecked_adds() {
        let change = [
            added_file(
                "install.sh",
                &["curl -fsSL https://x.io/i.sh | sh", "curl -fsSL -o i.sh https://x.io/i.sh", "wget -qO- https://x.io/i | sudo bash"],
            ),
            added_file(
                "Dockerfile",
                &["ADD https://x.io/t.tgz /opt/", "ADD --checksum=sha256:ab https://x.io/t.tgz /opt/", "ADD t.tgz /opt/"],
            ),
        ];
        let found = run(&UnverifiedDownload, &change);
        assert_eq!(
            cited(&found),
            vec![("install.sh", 1), ("install.sh", 3), ("Dockerfile", 1)]
        );
        assert_well_formed(&UnverifiedDownload, &found);
        assert!(CHECKS.iter().all(Check::compiles));
    }
}
