//! What a path says about a file: test code, examples, scripts, migrations,
//! generated or vendored files.

pub(crate) use revu_domain::paths::{
    MigrationPath, file_name, has_dir, in_migration_dir, is_test_path, migration_path, split,
};

/// Whether `path` is test code, an example, a benchmark or a build script:
/// code where panicking and printing are normal.
pub(crate) fn is_non_production_path(path: &str) -> bool {
    let name = file_name(path);
    is_test_path(path)
        || has_dir(
            path,
            &["examples", "benches", "bench", "benchmark", "benchmarks"],
        )
        || name == "build.rs"
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
    let name = file_name(path);
    has_dir(path, SCRIPT_DIRS) || SCRIPT_FILES.contains(&name)
}

/// Where a key or certificate file sits, by the conventions projects use to
/// lay out their test material and documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeyPlacement {
    /// Test code or test data: a test directory or file ([`is_test_path`]),
    /// a directory named for test material (`test-ca/`, `test_certs/`,
    /// `dummyserver/`, `fake_keys/`, `mocks/`), or a key file named as one
    /// (`test_rsa.key`, `snakeoil.pem`, `dummy-key.pem`).
    TestFixture,
    /// Documentation or an example: `docs/`, `examples/`, `demos/`,
    /// `samples/`, or a Markdown, reStructuredText or AsciiDoc page.
    Example,
    /// Anywhere else: code or configuration that may run with the key.
    Other,
}

impl KeyPlacement {
    pub(crate) fn of(path: &str) -> Self {
        const FIXTURE_DIR_PREFIXES: &[&str] = &[
            "test-",
            "test_",
            "tests-",
            "tests_",
            "testkeys",
            "testcerts",
            "dummy",
            "fake",
            "mock",
        ];
        const FIXTURE_NAME_WORDS: &[&str] = &[
            "test", "dummy", "fake", "example", "sample", "snakeoil", "demo",
        ];
        const KEY_FILE_EXTENSIONS: &[&str] = &[
            ".pem", ".key", ".crt", ".cer", ".der", ".p8", ".pk8", ".priv", ".asc",
        ];
        const EXAMPLE_DIRS: &[&str] = &[
            "docs", "doc", "examples", "example", "demos", "demo", "samples", "sample",
        ];
        const DOC_EXTENSIONS: &[&str] = &[".md", ".markdown", ".rst", ".adoc"];
        let (dirs, name) = split(path);
        let name = name.to_ascii_lowercase();
        let key_file = KEY_FILE_EXTENSIONS.iter().any(|e| name.ends_with(e));
        if is_test_path(path)
            || dirs
                .iter()
                .any(|d| FIXTURE_DIR_PREFIXES.iter().any(|p| d.starts_with(p)))
            || (key_file
                && name
                    .split(|c: char| !c.is_ascii_alphanumeric())
                    .any(|part| FIXTURE_NAME_WORDS.iter().any(|w| part.starts_with(w))))
        {
            KeyPlacement::TestFixture
        } else if has_dir(path, EXAMPLE_DIRS) || DOC_EXTENSIONS.iter().any(|e| name.ends_with(e)) {
            KeyPlacement::Example
        } else {
            KeyPlacement::Other
        }
    }
}

/// Whether `path` is a lock file, vendored or generated code: content nobody
/// writes by hand, as the review's coverage tells it
/// ([`revu_domain::facts::SkipKind::of`]).
pub(crate) fn is_generated_path(path: &str) -> bool {
    revu_domain::facts::SkipKind::of(path).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_placement_by_test_and_docs_layout() {
        for p in [
            "tests/fixtures/server.key",
            "src/twisted/conch/test/keydata.py",
            "tests/test_crypto.py",
            "test-ca/rsa/end.key",
            "dummyserver/certs/server.key",
            "demos/test_rsa.key",
            "pkg/server_test.go",
        ] {
            assert_eq!(KeyPlacement::of(p), KeyPlacement::TestFixture, "{p}");
        }
        for p in [
            "docs/core/examples/server.pem",
            "demos/user_rsa_key",
            "README.md",
            "guide/tls.rst",
        ] {
            assert_eq!(KeyPlacement::of(p), KeyPlacement::Example, "{p}");
        }
        for p in [
            "src/config.py",
            "deploy/tls/server.key",
            "certs/prod.pem",
            "src/latest/key.pem",
            "keys/attestation.pem",
        ] {
            assert_eq!(KeyPlacement::of(p), KeyPlacement::Other, "{p}");
        }
    }

    #[test]
    fn other_path_kinds() {
        assert!(is_non_production_path("examples/demo.rs"));
        assert!(is_non_production_path("build.rs"));
        assert!(is_script_path("scripts/release.py"));
        assert!(!is_script_path("src/app/views.py"));
        assert!(is_generated_path("Cargo.lock"));
        assert!(is_generated_path("docs/_static/underscore-1.13.1.js"));
        assert!(is_generated_path("docs/_build/html/searchindex.js"));
        assert!(!is_generated_path("web/_static/app.js"));
        assert!(!is_generated_path("src/lib.rs"));
    }
}
