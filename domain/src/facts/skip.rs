//! Files a review leaves out by default: what a generator wrote (its
//! source is what to review), vendored copies of other projects, and
//! dependency lock files (the manifest change is what to review). Each
//! kind can be put back with `--skip-files`.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Why a changed file is not given to the lanes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipKind {
    Generated,
    Vendored,
    Lock,
}

impl SkipKind {
    pub const ALL: [SkipKind; 3] = [SkipKind::Generated, SkipKind::Vendored, SkipKind::Lock];

    pub fn as_str(self) -> &'static str {
        match self {
            SkipKind::Generated => "generated",
            SkipKind::Vendored => "vendored",
            SkipKind::Lock => "lock",
        }
    }

    /// What the file is, when it is one of the kinds: the one test of
    /// "content nobody writes by hand", which the review's coverage and
    /// the rules both ask. Sphinx's `_build/` output is generated, and the
    /// `_static/` assets of a documentation tree are vendored (the theme's
    /// copies of jQuery, Underscore and its own search scripts).
    pub fn of(path: &str) -> Option<SkipKind> {
        // Compared without case and without a lowercased copy: asked of
        // every changed file before the review is planned.
        use crate::paths::{contains_ignore_case, ends_with_ignore_case, file_name, has_dir};
        let name = file_name(path);
        let ends = |suffix: &str| ends_with_ignore_case(name, suffix);
        if LOCK_FILES.iter().any(|f| name.eq_ignore_ascii_case(f)) || ends(".lock") {
            return Some(SkipKind::Lock);
        }
        if has_dir(
            path,
            &[
                "vendor",
                "_vendor",
                "vendored",
                "third_party",
                "node_modules",
            ],
        ) || (has_dir(path, &["_static"]) && has_dir(path, &["docs", "doc"]))
        {
            return Some(SkipKind::Vendored);
        }
        let generated = has_dir(path, &["generated", "gen", "dist", "_build"])
            || contains_ignore_case(name, ".generated.")
            || GENERATED_SUFFIXES.iter().any(|s| ends(s));
        generated.then_some(SkipKind::Generated)
    }
}

/// File name endings of generated files: protocol buffers' and Dart's
/// generated code, minified assets, source maps, test snapshots.
const GENERATED_SUFFIXES: [&str; 8] = [
    ".pb.go",
    "_pb2.py",
    "_pb2_grpc.py",
    ".g.dart",
    ".min.js",
    ".min.css",
    ".map",
    ".snap",
];

impl fmt::Display for SkipKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Lock files of the common package managers, by file name.
const LOCK_FILES: [&str; 12] = [
    "cargo.lock",
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "go.sum",
    "poetry.lock",
    "uv.lock",
    "pipfile.lock",
    "gemfile.lock",
    "composer.lock",
    "packages.lock.json",
];

/// The kinds a review skips: `--skip-files generated,vendored,lock` (the
/// default), a subset, or `none`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct SkipFiles(pub Vec<SkipKind>);

impl Default for SkipFiles {
    fn default() -> Self {
        SkipFiles(SkipKind::ALL.to_vec())
    }
}

impl SkipFiles {
    /// Why `path` is skipped, if it is.
    pub fn skips(&self, path: &str) -> Option<SkipKind> {
        SkipKind::of(path).filter(|k| self.0.contains(k))
    }
}

impl std::str::FromStr for SkipFiles {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s.trim() == "none" {
            return Ok(SkipFiles(Vec::new()));
        }
        let mut kinds = Vec::new();
        for word in s.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            let kind = SkipKind::ALL
                .into_iter()
                .find(|k| k.as_str() == word)
                .ok_or_else(|| {
                    format!("{word:?} is not a kind of file to skip (generated, vendored, lock, or none)")
                })?;
            if !kinds.contains(&kind) {
                kinds.push(kind);
            }
        }
        kinds.sort();
        Ok(SkipFiles(kinds))
    }
}

impl TryFrom<String> for SkipFiles {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        s.parse()
    }
}

impl From<SkipFiles> for String {
    fn from(s: SkipFiles) -> String {
        s.to_string()
    }
}

impl fmt::Display for SkipFiles {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("none");
        }
        let words: Vec<&str> = self.0.iter().map(|k| k.as_str()).collect();
        f.write_str(&words.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_vendored_and_generated_files_are_told_apart() {
        assert_eq!(SkipKind::of("Cargo.lock"), Some(SkipKind::Lock));
        assert_eq!(SkipKind::of("web/package-lock.json"), Some(SkipKind::Lock));
        assert_eq!(
            SkipKind::of("vendor/github.com/x/y.go"),
            Some(SkipKind::Vendored)
        );
        assert_eq!(
            SkipKind::of("ui/node_modules/a/index.js"),
            Some(SkipKind::Vendored)
        );
        assert_eq!(
            SkipKind::of("api/v1/review.pb.go"),
            Some(SkipKind::Generated)
        );
        assert_eq!(SkipKind::of("static/app.min.js"), Some(SkipKind::Generated));
        assert_eq!(
            SkipKind::of("src/generated/client.ts"),
            Some(SkipKind::Generated)
        );
        assert_eq!(
            SkipKind::of("src/vendor.rs"),
            None,
            "a file named vendor is code"
        );
        assert_eq!(SkipKind::of("Cargo.toml"), None);
        // Names are compared without ASCII case.
        assert_eq!(SkipKind::of("Pipfile.lock"), Some(SkipKind::Lock));
        assert_eq!(SkipKind::of("Vendor/lib.c"), Some(SkipKind::Vendored));
        assert_eq!(SkipKind::of("web/App.MIN.JS"), Some(SkipKind::Generated));
        assert_eq!(
            SkipKind::of("src/Types.Generated.cs"),
            Some(SkipKind::Generated)
        );
        assert_eq!(SkipKind::of("generated"), None, "a file, not a directory");
        // What the rules also treat as nobody's handiwork.
        assert_eq!(SkipKind::of("flake.lock"), Some(SkipKind::Lock));
        assert_eq!(
            SkipKind::of("docs/_static/underscore-1.13.1.js"),
            Some(SkipKind::Vendored)
        );
        assert_eq!(SkipKind::of("web/_static/app.js"), None);
        assert_eq!(
            SkipKind::of("docs/_build/html/searchindex.js"),
            Some(SkipKind::Generated)
        );
        assert_eq!(
            SkipKind::of("tests/__snapshots__/view.test.js.snap"),
            Some(SkipKind::Generated)
        );
    }

    #[test]
    fn the_knob_reads_kinds_or_none_and_writes_them_back() {
        let all: SkipFiles = "lock,generated,vendored".parse().unwrap_or_default();
        assert_eq!(all, SkipFiles::default());
        assert_eq!(all.to_string(), "generated,vendored,lock");
        let none: SkipFiles = "none".parse().unwrap_or_default();
        assert_eq!(none.skips("Cargo.lock"), None);
        assert_eq!(none.to_string(), "none");
        let lock: SkipFiles = "lock".parse().unwrap_or_default();
        assert_eq!(lock.skips("go.sum"), Some(SkipKind::Lock));
        assert_eq!(lock.skips("app.min.js"), None);
        assert!("logs".parse::<SkipFiles>().is_err());
    }
}
