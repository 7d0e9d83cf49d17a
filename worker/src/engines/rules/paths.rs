//! What a path says about a file: test code, examples, scripts, migrations,
//! generated or vendored files.

/// The directory components of `path` (lowercased) and its file name.
fn split(path: &str) -> (Vec<String>, &str) {
    let (dirs, name) = path.rsplit_once('/').unwrap_or(("", path));
    let dirs = dirs
        .split('/')
        .filter(|d| !d.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    (dirs, name)
}

/// Whether any directory of `path` is one of `names` (lowercase).
pub(crate) fn has_dir(path: &str, names: &[&str]) -> bool {
    split(path).0.iter().any(|d| names.contains(&d.as_str()))
}

/// Whether `path` is test code: a test directory, or a test file by the
/// naming conventions of the common languages.
pub(crate) fn is_test_path(path: &str) -> bool {
    const TEST_DIRS: &[&str] = &[
        "test",
        "tests",
        "__tests__",
        "spec",
        "specs",
        "testdata",
        "test_data",
        "testing",
        "testutil",
        "testutils",
        "fixtures",
        "e2e",
    ];
    if has_dir(path, TEST_DIRS) {
        return true;
    }
    let (_, name) = split(path);
    let lower = name.to_ascii_lowercase();
    (lower.starts_with("test_") && lower.ends_with(".py"))
        || lower == "conftest.py"
        || lower == "tests.rs"
        || [
            "_test.py",
            "_test.go",
            "_test.rs",
            "_tests.rs",
            "_spec.rb",
            "_test.rb",
        ]
        .iter()
        .any(|s| lower.ends_with(s))
        || lower.contains(".test.")
        || lower.contains(".spec.")
        || [
            "Test.java",
            "Tests.java",
            "IT.java",
            "Test.kt",
            "Tests.cs",
            "Test.cs",
        ]
        .iter()
        .any(|s| name.ends_with(s))
}

/// Whether `path` is test code, an example, a benchmark or a build script:
/// code where panicking and printing are normal.
pub(crate) fn is_non_production_path(path: &str) -> bool {
    let (_, name) = split(path);
    is_test_path(path) || has_dir(path, &["examples", "benches"]) || name == "build.rs"
}

/// Whether `path` is a script or command-line entry point, where printing to
/// stdout is the point.
pub(crate) fn is_script_path(path: &str) -> bool {
    const SCRIPT_FILES: &[&str] = &[
        "__main__.py",
        "cli.py",
        "main.py",
        "manage.py",
        "setup.py",
        "noxfile.py",
        "fabfile.py",
        "cmdline.py",
    ];
    const SCRIPT_DIRS: &[&str] = &[
        "scripts", "script", "bin", "tools", "cli", "cmd", "commands", "examples",
    ];
    let (_, name) = split(path);
    has_dir(path, SCRIPT_DIRS) || SCRIPT_FILES.contains(&name)
}

/// Whether `path` lies in a migrations directory.
pub(crate) fn in_migration_dir(path: &str) -> bool {
    has_dir(path, &["migrations", "migrate", "migration"])
        || path.to_ascii_lowercase().contains("alembic/versions/")
}

/// Whether `path` may hold schema changes: a migration, or any SQL file.
pub(crate) fn is_migration_path(path: &str) -> bool {
    path.to_ascii_lowercase().ends_with(".sql") || in_migration_dir(path)
}

/// Whether `path` is a lock file, vendored or generated code: content nobody
/// writes by hand.
pub(crate) fn is_generated_path(path: &str) -> bool {
    let (_, name) = split(path);
    let lower = name.to_ascii_lowercase();
    has_dir(
        path,
        &[
            "vendor",
            "_vendor",
            "vendored",
            "third_party",
            "node_modules",
            "dist",
            "generated",
            "gen",
        ],
    ) || lower.ends_with(".lock")
        || lower == "package-lock.json"
        || lower == "pnpm-lock.yaml"
        || lower == "go.sum"
        || [".min.js", ".map", "_pb2.py", ".pb.go", ".g.dart", ".snap"]
            .iter()
            .any(|s| lower.ends_with(s))
        || lower.contains(".generated.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_paths_follow_common_conventions() {
        for p in [
            "tests/api.rs",
            "pkg/server/handler_test.go",
            "app/test_views.py",
            "web/src/App.test.tsx",
            "spec/models/user_spec.rb",
            "src/main/java/FooTest.java",
            "src/diff/tests.rs",
        ] {
            assert!(is_test_path(p), "{p}");
        }
        for p in ["src/testimony.rs", "src/contest.py", "latest/app.py"] {
            assert!(!is_test_path(p), "{p}");
        }
    }

    #[test]
    fn other_path_kinds() {
        assert!(is_non_production_path("examples/demo.rs"));
        assert!(is_non_production_path("build.rs"));
        assert!(is_script_path("scripts/release.py"));
        assert!(!is_script_path("src/app/views.py"));
        assert!(is_migration_path("db/migrate/20240101_drop_users.rb"));
        assert!(is_migration_path("schema/001_init.sql"));
        assert!(!in_migration_dir("schema/001_init.sql"));
        assert!(is_generated_path("Cargo.lock"));
        assert!(!is_generated_path("src/lib.rs"));
    }
}
