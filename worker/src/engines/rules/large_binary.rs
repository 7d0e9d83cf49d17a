use super::paths::is_test_path;
use super::meta::{Example, RuleMeta};
use super::{Message, Rule, RuleContext, finding};
use revu_domain::diff::FileStatus;
use revu_domain::finding::{BlastRadius, Dimension, Finding, Severity};

/// Size from which any committed binary is flagged.
const LIMIT: u64 = 1024 * 1024;
/// Extensions of build artifacts, archives and media that rarely belong in
/// source control, flagged even when git does not report their size.
const ARTIFACTS: &[&str] = &[
    "zip", "tar", "gz", "tgz", "bz2", "xz", "7z", "rar", "jar", "war", "exe", "dll", "so", "dylib",
    "bin", "mp4", "mov", "avi", "mkv", "psd", "iso", "dmg", "whl", "pdb",
];

/// The `large-binary` rule: [`META`].
#[derive(Debug, Clone, Copy, Default)]
pub struct LargeBinary;

/// The `large-binary` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-OPS-003",
    name: "large-binary",
    dimension: Dimension::Operability,
    severity: Severity::Important,
    confidence: 85,
    languages: &["binary files"],
    catches: "Flags a binary file of 1 MiB or more added or modified by the change, and any \
              added archive, executable, library or media file (`.zip`, `.jar`, `.exe`, `.so`, \
              `.mp4`, `.iso` …) whose size the diff does not show. Test fixtures of unknown \
              size are not flagged.",
    why: "Git keeps every version of a binary forever: each one grows every clone, fetch and CI \
          checkout, and cannot be removed without rewriting history. Build artifacts in the \
          repository also drift from the source that should produce them.",
    example: Example {
        path: "dist/app-1.4.2.jar",
        code: "",
        context: "added as a binary file, of a size the diff does not show.",
    },
    instead: "publish artifacts to a package or artifact registry, and keep large media in Git \
              LFS or object storage.",
};

impl Rule for LargeBinary {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, ctx: &RuleContext<'_>, out: &mut Vec<Finding>) {
        for patch in ctx.files.iter().filter(|p| p.binary) {
            let path = patch.path();
            let ext = path
                .rsplit_once('.')
                .map(|(_, e)| e.to_ascii_lowercase())
                .unwrap_or_default();
            let summary = match (patch.status, patch.binary_size) {
                (FileStatus::Added | FileStatus::Modified, Some(size)) if size >= LIMIT => {
                    format!("Binary file `{path}` of {} committed.", human(size))
                }
                (FileStatus::Added, None)
                    if ARTIFACTS.contains(&ext.as_str()) && !is_test_path(path) =>
                {
                    format!("Build artifact or media file `{path}` (`.{ext}`) committed.")
                }
                _ => continue,
            };
            let msg = Message {
                summary,
                why: "Git keeps every version of a binary forever: it grows every clone, fetch \
                      and CI checkout and cannot be removed without rewriting history; committed \
                      artifacts also drift from the source that should produce them."
                    .into(),
                fix: "Remove it from the change; publish artifacts to a package or artifact \
                      registry and keep large media in Git LFS or object storage, then ignore \
                      the path in `.gitignore`."
                    .into(),
            };
            out.push(finding(self, path, patch.anchor_line(), BlastRadius::Service, msg));
        }
    }
}

/// `1572864` → `1.5 MiB`.
fn human(bytes: u64) -> String {
    let mib = bytes / (1024 * 1024);
    let tenths = (bytes % (1024 * 1024)) * 10 / (1024 * 1024);
    format!("{mib}.{tenths} MiB")
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::super::testing::{assert_well_formed, binary, cited, run};
    use super::*;

    #[test]
    fn flags_large_binaries_and_artifacts() {
        let change = [
            binary(
                "assets/intro.mp4",
                FileStatus::Added,
                Some(40 * 1024 * 1024 + 512 * 1024),
            ),
            binary("dist/app-1.4.2.jar", FileStatus::Added, None),
            binary(
                "assets/logo.png",
                FileStatus::Modified,
                Some(3 * 1024 * 1024),
            ),
        ];
        let found = run(&LargeBinary, &change);
        assert_eq!(
            cited(&found),
            vec![
                ("assets/intro.mp4", 1),
                ("dist/app-1.4.2.jar", 1),
                ("assets/logo.png", 1)
            ]
        );
        assert_eq!(
            found[0].summary,
            "Binary file `assets/intro.mp4` of 40.5 MiB committed."
        );
        assert_well_formed(&LargeBinary, &found);
    }

    #[test]
    fn ignores_small_deleted_and_fixture_binaries() {
        let change = [
            binary("assets/logo.png", FileStatus::Added, Some(20 * 1024)),
            binary("assets/logo.png", FileStatus::Added, None),
            binary("dist/old.jar", FileStatus::Deleted, Some(5 * 1024 * 1024)),
            binary("tests/fixtures/sample.zip", FileStatus::Added, None),
            binary("lib/native.so", FileStatus::Modified, None),
        ];
        assert!(run(&LargeBinary, &change).is_empty());
    }
}
