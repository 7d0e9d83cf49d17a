//! Risk signals: path- and content-based hints that a change touches a
//! sensitive surface.

use crate::diff::{Diff, FilePatch, FileStatus};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Signal {
    /// Authentication, authorization, sessions, crypto or secrets handling.
    AuthSurface,
    /// A migration that drops or truncates data.
    DestructiveMigration,
    /// A public API or consumer contract (protos, OpenAPI, exported headers).
    PublicApi,
    /// CI/CD pipelines or deployment manifests.
    CiCd,
    /// A dependency manifest or lock file.
    DependencyChange,
    /// Generated or vendored files.
    GeneratedOrVendored,
    /// Only documentation changed.
    DocsOnly,
}

impl Signal {
    /// Signals that always need a person, whatever the findings say.
    pub fn always_human(self) -> bool {
        matches!(self, Signal::AuthSurface | Signal::DestructiveMigration)
    }
}

/// Every signal the diff raises, sorted and without repeats.
pub fn detect_signals(diff: &Diff) -> Vec<Signal> {
    let mut out = Vec::new();
    for file in &diff.files {
        let path = file.path().to_ascii_lowercase();
        if is_auth_path(&path) {
            out.push(Signal::AuthSurface);
        }
        if is_migration_path(&path) && drops_data(file) {
            out.push(Signal::DestructiveMigration);
        }
        if is_public_api_path(&path) {
            out.push(Signal::PublicApi);
        }
        if is_ci_path(&path) {
            out.push(Signal::CiCd);
        }
        if is_dependency_manifest(&path) {
            out.push(Signal::DependencyChange);
        }
        if is_generated_or_vendored(&path) {
            out.push(Signal::GeneratedOrVendored);
        }
    }
    if !diff.files.is_empty()
        && diff
            .files
            .iter()
            .all(|f| is_docs_path(&f.path().to_ascii_lowercase()))
    {
        out.push(Signal::DocsOnly);
    }
    out.sort();
    out.dedup();
    out
}

fn segments(path: &str) -> impl Iterator<Item = &str> {
    path.split('/')
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn is_auth_path(path: &str) -> bool {
    const WORDS: [&str; 9] = [
        "auth",
        "login",
        "session",
        "oauth",
        "permission",
        "rbac",
        "acl",
        "crypto",
        "password",
    ];
    segments(path).any(|seg| WORDS.iter().any(|w| seg.contains(w)))
}

pub(crate) fn is_migration_path(path: &str) -> bool {
    path.contains("migration")
        || path.contains("/migrate/")
        || path.starts_with("migrate/")
        || path.contains("alembic/versions")
}

fn drops_data(file: &FilePatch) -> bool {
    if file.status == FileStatus::Deleted {
        return false;
    }
    file.added_lines().any(|(_, text)| {
        let t = text.to_ascii_lowercase();
        t.contains("drop table")
            || t.contains("drop column")
            || t.contains("truncate ")
            || t.contains("drop_table")
            || t.contains("drop_column")
            || t.contains("remove_column")
    })
}

fn is_public_api_path(path: &str) -> bool {
    path.ends_with(".proto")
        || path.contains("openapi")
        || path.contains("swagger")
        || path.ends_with(".graphql")
        || path.starts_with("api/")
        || path.contains("/api/")
        || path.starts_with("include/")
}

fn is_ci_path(path: &str) -> bool {
    path.starts_with(".github/workflows/")
        || path.starts_with(".gitlab-ci")
        || path.starts_with(".circleci/")
        || path.starts_with(".ci/")
        || path.starts_with(".buildkite/")
        || file_name(path) == "jenkinsfile"
        || path.starts_with("deploy/")
        || path.contains("/helm/")
        || path.starts_with("helm/")
        || file_name(path) == "dockerfile"
}

fn is_dependency_manifest(path: &str) -> bool {
    const NAMES: [&str; 18] = [
        "cargo.toml",
        "cargo.lock",
        "package.json",
        "package-lock.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "go.mod",
        "go.sum",
        "requirements.txt",
        "pyproject.toml",
        "poetry.lock",
        "uv.lock",
        "pipfile",
        "pipfile.lock",
        "gemfile",
        "gemfile.lock",
        "pom.xml",
        "build.gradle",
    ];
    NAMES.contains(&file_name(path))
}

fn is_generated_or_vendored(path: &str) -> bool {
    segments(path).any(|s| matches!(s, "vendor" | "third_party" | "node_modules" | "generated"))
        || path.contains(".generated.")
        || path.ends_with(".pb.go")
        || path.ends_with("_pb2.py")
        || path.ends_with(".min.js")
}

pub(crate) fn is_docs_path(path: &str) -> bool {
    let name = file_name(path);
    path.starts_with("docs/")
        || path.starts_with("doc/")
        || name.ends_with(".md")
        || name.ends_with(".rst")
        || name.ends_with(".adoc")
        || name.ends_with(".txt") && !name.starts_with("requirements")
        || name == "license"
        || name == "authors"
}
