//! What a path says about a file: test code, examples, scripts, migrations,
//! generated or vendored files.

pub(crate) use revu_common::paths::{
    MigrationPath, has_dir, in_migration_dir, is_test_path, migration_path, split,
};

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
    fn other_path_kinds() {
        assert!(is_non_production_path("examples/demo.rs"));
        assert!(is_non_production_path("build.rs"));
        assert!(is_script_path("scripts/release.py"));
        assert!(!is_script_path("src/app/views.py"));
        assert!(is_generated_path("Cargo.lock"));
        assert!(!is_generated_path("src/lib.rs"));
    }
}
