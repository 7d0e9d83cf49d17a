//! Packages of an npm, pnpm or yarn workspace by their `package.json`
//! name: `@acme/money` and `@acme/money/sub` name files of the package's
//! directory through its `exports`, else its `module`/`main`/`types`
//! fields, else its `index.*` or `src/index.*`.
//!
//! Every `package.json` outside `node_modules/` counts: a workspace's
//! members are the repository's packages, whichever tool lists them.

use super::{join, jsonc, normalize, star_match};
use serde_json::Value;
use std::collections::HashMap;

/// Conditions of an `exports` entry, in the order they are tried: the
/// source a package points at before what it builds.
const CONDITIONS: [&str; 9] = [
    "source",
    "import",
    "module",
    "default",
    "types",
    "require",
    "node",
    "browser",
    "development",
];

/// Entry fields of a package without `exports`, in the order tried.
const FIELDS: [&str; 5] = ["source", "module", "main", "types", "typings"];

/// Build output directories: a target under one is also looked for under
/// `src/`, since the build output is not in the repository.
const BUILT: [&str; 5] = ["dist", "build", "out", "lib", "esm"];

#[derive(Debug)]
struct Package {
    dir: String,
    /// `exports` as subpath (`.`, `./sub`, `./*`) → its target.
    exports: Option<Vec<(String, Value)>>,
    /// The entry fields' values, in [`FIELDS`] order.
    entries: Vec<String>,
}

/// The repository's packages by name.
#[derive(Debug, Default)]
pub(super) struct Packages {
    by_name: HashMap<String, Package>,
}

impl Packages {
    /// Reads the `package.json` in `dir`; a bad one is ignored.
    pub fn add(&mut self, dir: &str, text: &str) {
        let Some(Value::Object(json)) = jsonc::parse(text) else {
            return;
        };
        let Some(name) = json.get("name").and_then(Value::as_str) else {
            return;
        };
        if name.is_empty() || self.by_name.contains_key(name) {
            // The first in path order wins: a copy (a fixture, a template)
            // sits deeper as a rule.
            return;
        }
        let exports = json.get("exports").map(|e| match e {
            Value::Object(m) if m.keys().any(|k| k.starts_with('.')) => m
                .iter()
                .filter(|(k, _)| k.starts_with('.'))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            other => vec![(".".to_owned(), other.clone())],
        });
        let entries = FIELDS
            .iter()
            .filter_map(|f| json.get(*f).and_then(Value::as_str))
            .map(str::to_owned)
            .collect();
        self.by_name.insert(
            name.to_owned(),
            Package {
                dir: dir.to_owned(),
                exports,
                entries,
            },
        );
    }

    /// The directory of the package named `name`.
    pub fn dir(&self, name: &str) -> Option<&str> {
        self.by_name.get(name).map(|p| p.dir.as_str())
    }

    /// The paths `spec` may name, most likely first, each to be tried as
    /// written and with the usual extensions; empty when it names no
    /// package of the repository.
    pub fn candidates(&self, spec: &str) -> Vec<String> {
        let Some((name, sub)) = split(spec) else {
            return Vec::new();
        };
        let Some(package) = self.by_name.get(name) else {
            return Vec::new();
        };
        let subpath = if sub.is_empty() {
            ".".to_owned()
        } else {
            format!("./{sub}")
        };
        let mut targets: Vec<String> = Vec::new();
        if let Some(exports) = &package.exports {
            let found = exports
                .iter()
                .find(|(k, _)| *k == subpath)
                .map(|(_, v)| (v, ""))
                .or_else(|| star_match(exports.iter().map(|(k, v)| (k.as_str(), v)), &subpath));
            if let Some((value, star)) = found {
                let mut written = Vec::new();
                flatten(value, &mut written, 0);
                targets.extend(written.into_iter().map(|t| t.replace('*', star)));
            }
        }
        if sub.is_empty() {
            targets.extend(package.entries.iter().cloned());
            targets.extend(["index", "src/index"].map(str::to_owned));
        } else {
            targets.push(sub.to_owned());
            targets.push(format!("src/{sub}"));
        }
        let mut out: Vec<String> = Vec::new();
        for t in &targets {
            out.extend(normalize(&join(&package.dir, t)));
        }
        // What a build writes, looked for in its source.
        for t in &targets {
            if let Some(source) = built_source(t) {
                out.extend(normalize(&join(&package.dir, &source)));
            }
        }
        out.dedup();
        out
    }
}

/// `@scope/name/rest` → (`@scope/name`, `rest`); `name/rest` → (`name`,
/// `rest`). `None` for a relative or absolute path.
pub(super) fn split(spec: &str) -> Option<(&str, &str)> {
    if spec.is_empty() || spec.starts_with('.') || spec.starts_with('/') {
        return None;
    }
    let cut = if spec.starts_with('@') {
        spec.match_indices('/').nth(1).map(|(i, _)| i)
    } else {
        spec.find('/')
    };
    Some(match cut {
        Some(i) => (&spec[..i], &spec[i + 1..]),
        None => (spec, ""),
    })
}

/// The paths an `exports` target names, conditions in [`CONDITIONS`]
/// order, then the rest.
fn flatten(value: &Value, out: &mut Vec<String>, depth: usize) {
    if depth > 8 {
        return;
    }
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| flatten(v, out, depth + 1)),
        Value::Object(m) => {
            for c in CONDITIONS {
                if let Some(v) = m.get(c) {
                    flatten(v, out, depth + 1);
                }
            }
            for (k, v) in m {
                if !CONDITIONS.contains(&k.as_str()) {
                    flatten(v, out, depth + 1);
                }
            }
        }
        _ => {}
    }
}

/// `./dist/esm/money.js` → `src/money`: where the source of a built file
/// is, by the common layout.
fn built_source(target: &str) -> Option<String> {
    let t = target.trim_start_matches("./");
    let (first, rest) = t.split_once('/')?;
    if !BUILT.contains(&first) {
        return None;
    }
    let rest = match rest.split_once('/') {
        Some(("esm" | "cjs" | "es" | "types" | "umd" | "src", r)) => r,
        _ => rest,
    };
    let stem = [".d.ts", ".d.mts", ".d.cts", ".js", ".mjs", ".cjs"]
        .iter()
        .find_map(|e| rest.strip_suffix(e))
        .unwrap_or(rest);
    Some(format!("src/{stem}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_specifier_splits_into_package_and_subpath() {
        assert_eq!(split("@acme/money"), Some(("@acme/money", "")));
        assert_eq!(
            split("@acme/money/fx/rates"),
            Some(("@acme/money", "fx/rates"))
        );
        assert_eq!(split("lodash/get"), Some(("lodash", "get")));
        assert_eq!(split("./x"), None);
    }

    #[test]
    fn conditional_exports_prefer_the_source_and_subpath_patterns_substitute() {
        let mut p = Packages::default();
        p.add(
            "packages/money",
            r#"{"name": "@acme/money", "exports": {
                ".": {"types": "./dist/index.d.ts", "import": "./dist/index.mjs"},
                "./fx/*": "./src/fx/*.ts"
            }}"#,
        );
        let root = p.candidates("@acme/money");
        assert_eq!(root[0], "packages/money/dist/index.mjs");
        assert!(
            root.contains(&"packages/money/src/index".to_owned()),
            "{root:?}"
        );
        assert_eq!(
            p.candidates("@acme/money/fx/rates")[0],
            "packages/money/src/fx/rates.ts"
        );
        assert!(p.candidates("@acme/other").is_empty());
    }

    #[test]
    fn a_bad_manifest_or_one_without_a_name_is_ignored() {
        let mut p = Packages::default();
        p.add("a", "{ nope");
        p.add("b", r#"{"version": "1.0.0"}"#);
        p.add("c", r#"["not", "an", "object"]"#);
        assert!(p.by_name.is_empty());
    }
}
