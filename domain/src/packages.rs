//! A repository's packages: the directories below its root with a manifest
//! of their own. In a monorepo they are the natural domain slices, each
//! with its own owners and conventions.

use serde::{Deserialize, Serialize};

/// A package: its directory from the root and the manifest that makes it
/// one.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Package {
    /// From the root, without leading or trailing `/` (`crates/api`).
    pub dir: String,
    /// The manifest's file name (`Cargo.toml`).
    pub manifest: String,
}

/// The manifests that make a directory a package, in the order a client
/// looks for them; a directory is one package whichever it has.
pub const MANIFESTS: &[&str] = &[
    "Cargo.toml",
    "package.json",
    "go.mod",
    "pyproject.toml",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "BUILD.bazel",
    "BUILD",
];

/// Whether manifest `name` with text `text` makes its directory a
/// package: a `Cargo.toml` that declares `[package]` (a workspace's own
/// manifest alone does not), a `pyproject.toml` that declares a project
/// (`[project]` or `[tool.poetry]`), any other manifest of [`MANIFESTS`].
pub fn is_package_manifest(name: &str, text: &str) -> bool {
    let declares = |table: &str| text.lines().any(|l| l.trim() == table);
    match name {
        "Cargo.toml" => declares("[package]"),
        "pyproject.toml" => declares("[project]") || declares("[tool.poetry]"),
        _ => MANIFESTS.contains(&name),
    }
}

/// Whether the manifest's text is needed to tell (see
/// [`is_package_manifest`]); for the others, being there is enough.
pub fn manifest_needs_text(name: &str) -> bool {
    matches!(name, "Cargo.toml" | "pyproject.toml")
}

/// The package `path` belongs to: the deepest of `packages` whose
/// directory holds it.
pub fn package_of<'a>(path: &str, packages: &'a [Package]) -> Option<&'a Package> {
    packages
        .iter()
        .filter(|p| {
            path.strip_prefix(p.dir.as_str())
                .is_some_and(|rest| rest.starts_with('/'))
        })
        .max_by_key(|p| p.dir.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkg(dir: &str) -> Package {
        Package {
            dir: dir.into(),
            manifest: "package.json".into(),
        }
    }

    #[test]
    fn a_file_belongs_to_its_deepest_package() {
        let packages = [
            pkg("packages/web"),
            pkg("packages/web/plugins/a"),
            pkg("crates/x"),
        ];
        let of = |p: &str| package_of(p, &packages).map(|p| p.dir.as_str());
        assert_eq!(of("packages/web/src/index.ts"), Some("packages/web"));
        assert_eq!(
            of("packages/web/plugins/a/x.ts"),
            Some("packages/web/plugins/a")
        );
        assert_eq!(of("packages/webby/x.ts"), None);
        assert_eq!(of("crates/x"), None);
        assert_eq!(of("README.md"), None);
    }

    #[test]
    fn workspace_manifests_alone_are_not_packages() {
        assert!(is_package_manifest(
            "Cargo.toml",
            "[package]\nname = \"a\"\n"
        ));
        assert!(!is_package_manifest(
            "Cargo.toml",
            "[workspace]\nmembers = [\"a\"]\n"
        ));
        assert!(is_package_manifest(
            "pyproject.toml",
            "[project]\nname = \"a\"\n"
        ));
        assert!(is_package_manifest(
            "pyproject.toml",
            "[tool.poetry]\nname = \"a\"\n"
        ));
        assert!(!is_package_manifest(
            "pyproject.toml",
            "[tool.ruff]\nline-length = 99\n"
        ));
        assert!(is_package_manifest("go.mod", ""));
        assert!(!is_package_manifest("Makefile", ""));
    }
}
