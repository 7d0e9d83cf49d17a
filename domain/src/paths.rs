//! What a path says about a file, by the conventions of the common
//! languages and frameworks: test code, and schema migrations. Shared by
//! the facts signals and the built-in rules, so that both agree on what a
//! migration is. And what a directory a client names must be: below the
//! root.

/// `dir`, a directory a client names from the repository's root, without
/// its leading and trailing `/`: `None` unless it lies below the root,
/// with no empty, `.` or `..` part.
pub fn dir_below_root(dir: &str) -> Option<&str> {
    let dir = dir.trim_matches('/');
    (!dir.is_empty()
        && !dir
            .split('/')
            .any(|p| p.is_empty() || p == ".." || p == "."))
    .then_some(dir)
}

/// The directory components of `path` (lowercased) and its file name.
pub fn split(path: &str) -> (Vec<String>, &str) {
    let (dirs, name) = path.rsplit_once('/').unwrap_or(("", path));
    let dirs = dirs
        .split('/')
        .filter(|d| !d.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    (dirs, name)
}

/// The file name of `path`: what follows its last `/`. Found with a
/// vectorised search: the rules ask it of every file many times.
pub fn file_name(path: &str) -> &str {
    match memchr::memrchr(b'/', path.as_bytes()) {
        Some(slash) => path.get(slash + 1..).unwrap_or_default(),
        None => path,
    }
}

/// Whether any directory of `path` is one of `names` (lowercase).
///
/// Read as bytes, a component at a time: the rules ask it of every file
/// many times, with a few names each.
pub fn has_dir(path: &str, names: &[&str]) -> bool {
    let bytes = path.as_bytes();
    let Some(slash) = memchr::memrchr(b'/', bytes) else {
        return false;
    };
    bytes[..slash].split(|&b| b == b'/').any(|dir| {
        !dir.is_empty()
            && names
                .iter()
                .any(|n| n.len() == dir.len() && dir.eq_ignore_ascii_case(n.as_bytes()))
    })
}

/// Directories that hold a test suite, its data or its fixtures.
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

/// Whether `path` is test code: a test directory, or a test file by the
/// naming conventions of the common languages.
pub fn is_test_path(path: &str) -> bool {
    if has_dir(path, TEST_DIRS) {
        return true;
    }
    let name = file_name(path);
    (starts_with_ignore_case(name, "test_") && ends_with_ignore_case(name, ".py"))
        || name.eq_ignore_ascii_case("conftest.py")
        || name.eq_ignore_ascii_case("tests.rs")
        || [
            "_test.py",
            "_test.go",
            "_test.rs",
            "_tests.rs",
            "_spec.rb",
            "_test.rb",
        ]
        .iter()
        .any(|s| ends_with_ignore_case(name, s))
        || contains_ignore_case(name, ".test.")
        || contains_ignore_case(name, ".spec.")
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

/// Whether `text` starts with `prefix`, ASCII letters compared without
/// case (no lowercased copy is made: the rules ask this of every file).
pub fn starts_with_ignore_case(text: &str, prefix: &str) -> bool {
    text.as_bytes()
        .get(..prefix.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix.as_bytes()))
}

/// Whether `text` ends with `suffix`, ASCII letters compared without case.
pub fn ends_with_ignore_case(text: &str, suffix: &str) -> bool {
    text.len()
        .checked_sub(suffix.len())
        .and_then(|at| text.as_bytes().get(at..))
        .is_some_and(|tail| tail.eq_ignore_ascii_case(suffix.as_bytes()))
}

/// Whether `text` holds `needle`, ASCII letters compared without case.
pub fn contains_ignore_case(text: &str, needle: &str) -> bool {
    needle.is_empty()
        || text
            .as_bytes()
            .windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

/// Directories whose files are schema migrations.
const MIGRATION_DIRS: &[&str] = &["migrations", "migrate", "migration"];

/// Whether `path` lies in a migrations directory (`migrations/`,
/// `db/migrate/`, `alembic/versions/`).
pub fn in_migration_dir(path: &str) -> bool {
    has_dir(path, MIGRATION_DIRS) || contains_ignore_case(path, "alembic/versions/")
}

/// What a path says about schema changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MigrationPath {
    /// Nothing: neither SQL nor in a migrations directory.
    None,
    /// A migration an application runs against its database: a versioned
    /// file of a migrations directory (`0002_drop.py`, `20240101_x.rb`,
    /// `V3__x.sql`, `versions/ab12_x.py`), or SQL outside test code.
    Migration,
    /// In a migrations directory but not named like a migration: the
    /// source of a migration framework, or an application's helpers.
    Unversioned,
    /// Test code or test data: a migration framework's own tests and the
    /// migrations and schemas they load run against a throwaway database.
    Test,
}

/// What `path` says about schema changes, by the naming conventions of the
/// common migration tools (Django, Alembic, Rails, Flyway, Knex, Laravel,
/// Ecto, goose, sqlx, diesel, Prisma …): each names a migration by a
/// number, a timestamp or a revision under `versions/`.
pub fn migration_path(path: &str) -> MigrationPath {
    let sql = path.to_ascii_lowercase().ends_with(".sql");
    if !sql && !in_migration_dir(path) {
        return MigrationPath::None;
    }
    if is_test_path(path) {
        return MigrationPath::Test;
    }
    if sql || is_versioned(path) {
        MigrationPath::Migration
    } else {
        MigrationPath::Unversioned
    }
}

/// Whether a component after the innermost migrations directory of `path`
/// is a version: `versions/` (Alembic), or a name that starts with a digit
/// (`0002_drop.py`, `20240101_init/`) or a Flyway prefix (`V3__x`, `R__x`).
fn is_versioned(path: &str) -> bool {
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    let lower: Vec<String> = parts.iter().map(|p| p.to_ascii_lowercase()).collect();
    let start = lower
        .iter()
        .rposition(|p| MIGRATION_DIRS.contains(&p.as_str()) || p == "alembic")
        .map_or(0, |i| i + 1);
    let after = parts.get(start..).unwrap_or_default();
    after
        .first()
        .is_some_and(|p| p.eq_ignore_ascii_case("versions"))
        || after.iter().any(|p| is_version_name(p))
}

fn is_version_name(name: &str) -> bool {
    let mut chars = name.chars();
    match (chars.next(), chars.next()) {
        (Some(c), _) if c.is_ascii_digit() => true,
        (Some('V' | 'U'), Some(d)) => d.is_ascii_digit(),
        (Some('R'), Some('_')) => name.starts_with("R__"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dirs_stay_below_the_root() {
        assert_eq!(dir_below_root("/crates/api/"), Some("crates/api"));
        for bad in ["", "/", "a//b", "../x", "a/./b"] {
            assert_eq!(dir_below_root(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn case_blind_comparisons_match_lowercased_ones() {
        let words = ["", "a", "Test_x.PY", "x.Spec.ts", "ÉtÉ.py", "tests.RS", "é"];
        let needles = ["", "test_", ".py", ".spec.", "é", "tests.rs", "x"];
        for text in words {
            let lower = text.to_ascii_lowercase();
            for needle in needles {
                assert_eq!(
                    starts_with_ignore_case(text, needle),
                    lower.starts_with(needle),
                    "{text:?} starts with {needle:?}"
                );
                assert_eq!(
                    ends_with_ignore_case(text, needle),
                    lower.ends_with(needle),
                    "{text:?} ends with {needle:?}"
                );
                assert_eq!(
                    contains_ignore_case(text, needle),
                    lower.contains(needle),
                    "{text:?} holds {needle:?}"
                );
            }
        }
    }

    #[test]
    fn a_directory_is_any_component_but_the_file_name() {
        let names = ["vendor", "gen"];
        for (path, has) in [
            ("vendor/x.go", true),
            ("a/Vendor/b/x.go", true),
            ("a//gen/x.rs", true),
            ("/gen/x.rs", true),
            ("vendor", false),
            ("a/vendor.go", false),
            ("a/vendors/x.go", false),
            ("a/ge/x.rs", false),
            ("a/b/", false),
            ("", false),
            ("é/gen/x", true),
        ] {
            assert_eq!(has_dir(path, &names), has, "{path}");
        }
    }

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
    fn versioned_files_of_migration_dirs_and_sql_are_migrations() {
        for p in [
            "app/migrations/0002_drop.py",
            "db/migrate/20240101120000_drop_users.rb",
            "db/migrations/0042_users.sql",
            "schema/001_init.sql",
            "alembic/versions/9f1_drop_sessions.py",
            "app/migrations/versions/ab12cd_drop.py",
            "src/main/resources/db/migration/V3__drop_orders.sql",
            "database/migrations/2014_10_12_000000_create_users_table.php",
            "migrations/2024-01-01-000000_create_users/up.sql",
            "priv/repo/migrations/20240101_drop.exs",
        ] {
            assert_eq!(migration_path(p), MigrationPath::Migration, "{p}");
        }
    }

    #[test]
    fn framework_source_tests_and_other_files_are_not_migrations() {
        for p in [
            "django/db/migrations/operations/models.py",
            "django/db/migrations/autodetector.py",
            "app/migrations/__init__.py",
            "migrate/database/postgres/postgres.go",
        ] {
            assert_eq!(migration_path(p), MigrationPath::Unversioned, "{p}");
        }
        for p in [
            "tests/migrations/test_autodetector.py",
            "tests/migrations/test_migrations/0002_second.py",
            "tests/fixtures/schema.sql",
            "db/migrate/spec/drop_spec.rb",
        ] {
            assert_eq!(migration_path(p), MigrationPath::Test, "{p}");
        }
        for p in [
            "src/app.py",
            "alembic/operations/ops.py",
            "docs/migrations.md",
        ] {
            assert_eq!(migration_path(p), MigrationPath::None, "{p}");
        }
    }
}
