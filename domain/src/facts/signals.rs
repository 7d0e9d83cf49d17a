//! Risk signals: path- and content-based hints that a change touches a
//! sensitive surface.

use crate::diff::{Diff, FileStatus};
use crate::paths::{MigrationPath, migration_path};
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

/// What signal detection needs to know about one changed file.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Surface<'a> {
    pub path: &'a str,
    pub status: FileStatus,
    /// An added line drops or truncates data ([`drops_data`]).
    pub adds_drop: bool,
}

/// Every signal the diff raises, sorted and without repeats.
pub fn detect_signals(diff: &Diff) -> Vec<Signal> {
    signals_of(diff.files.iter().map(|f| Surface {
        path: f.path(),
        status: f.status,
        // Only a migration's lines can raise the signal: skip the rest.
        adds_drop: is_migration_path(f.path())
            && f.added_lines().any(|(_, text)| drops_data(text.as_bytes())),
    }))
}

/// The always-human signals each changed file raises on its own, for the
/// files that raise any.
pub fn always_human_files(diff: &Diff) -> Vec<(String, Vec<Signal>)> {
    diff.files
        .iter()
        .filter_map(|f| {
            let surface = Surface {
                path: f.path(),
                status: f.status,
                adds_drop: is_migration_path(f.path())
                    && f.added_lines().any(|(_, text)| drops_data(text.as_bytes())),
            };
            let signals: Vec<Signal> = signals_of(std::iter::once(surface))
                .into_iter()
                .filter(|s| s.always_human())
                .collect();
            (!signals.is_empty()).then(|| (f.path().to_owned(), signals))
        })
        .collect()
}

/// The signals of a change, from each file's [`Surface`].
pub(crate) fn signals_of<'a>(files: impl Iterator<Item = Surface<'a>>) -> Vec<Signal> {
    let mut out = Vec::new();
    let mut any = false;
    let mut all_docs = true;
    for file in files {
        let path = file.path.to_ascii_lowercase();
        any = true;
        all_docs &= is_docs_path(&path);
        if is_auth_path(&path) {
            out.push(Signal::AuthSurface);
        }
        // Deleting a migration file drops no data by itself.
        if file.adds_drop && file.status != FileStatus::Deleted && is_migration_path(file.path) {
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
    if any && all_docs {
        out.push(Signal::DocsOnly);
    }
    out.sort();
    out.dedup();
    out
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
    // No word holds a `/`, so a word inside one segment is a word inside
    // the path: one search per word instead of one per word and segment.
    WORDS.iter().any(|w| path.contains(w))
}

/// Whether `path` is a migration an application runs: named like one, in
/// a migrations directory, and not test code. A migration framework's own
/// source and tests drop tables too, but against no one's data.
pub(crate) fn is_migration_path(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let in_migrations = lower.contains("migration")
        || lower.contains("/migrate/")
        || lower.starts_with("migrate/")
        || lower.contains("alembic/versions");
    in_migrations && migration_path(path) == MigrationPath::Migration
}

/// Whether a line drops or truncates data (SQL, or a migration DSL),
/// in any letter case. Works on bytes: the words are ASCII, so invalid
/// UTF-8 around them changes nothing.
pub(crate) fn drops_data(text: &[u8]) -> bool {
    const WORDS: [&[u8]; 6] = [
        b"drop table",
        b"drop column",
        b"truncate ",
        b"drop_table",
        b"drop_column",
        b"remove_column",
    ];
    WORDS.iter().any(|w| {
        text.windows(w.len())
            .any(|window| window.eq_ignore_ascii_case(w))
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
    matches!(
        super::SkipKind::of(path),
        Some(super::SkipKind::Generated | super::SkipKind::Vendored)
    )
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drop_words_in_any_case_and_around_invalid_utf8() {
        assert!(drops_data(b"ALTER TABLE t DROP COLUMN c;"));
        assert!(drops_data(b"\xff\xfedrop_table(:users)\xc3"));
        assert!(drops_data(b"TRUNCATE users;"));
        assert!(!drops_data(b"truncated"));
        assert!(!drops_data(b"-- drops nothing"));
    }

    #[test]
    fn only_an_app_migration_raises_destructive_migration() {
        let surface = |path| Surface {
            path,
            status: FileStatus::Added,
            adds_drop: true,
        };
        let raised = |path| signals_of([surface(path)].into_iter());
        assert!(raised("shop/migrations/0002_drop.py").contains(&Signal::DestructiveMigration));
        for path in [
            "tests/migrations/test_autodetector.py",
            "tests/migrations/test_migrations/0002_second.py",
            "django/db/migrations/recorder.py",
        ] {
            assert!(
                !raised(path).contains(&Signal::DestructiveMigration),
                "{path}"
            );
        }
    }

    #[test]
    fn path_classes() {
        assert!(is_auth_path("src/middleware/oauth2.rs"));
        assert!(!is_auth_path("src/widgets/button.rs"));
        assert!(is_migration_path("db/migrations/0001.sql"));
        assert!(is_migration_path("db/migrate/20240101_drop_users.rb"));
        assert!(is_migration_path("app/migrations/0002_drop.py"));
        assert!(!is_migration_path("tests/migrations/test_operations.py"));
        assert!(!is_migration_path(
            "django/db/migrations/operations/models.py"
        ));
        assert!(is_public_api_path("proto/revu/v1/review.proto"));
        assert!(is_ci_path(".github/workflows/ci.yml"));
        assert!(is_dependency_manifest("crates/x/cargo.toml"));
        assert!(is_generated_or_vendored("third_party/zlib/inflate.c"));
        assert!(is_docs_path("docs/facts.md"));
        assert!(!is_docs_path("requirements.txt"));
    }
}
