//! Python packages installed from the repository, by the name they are
//! imported as: `packages/money/src/money/__init__.py` is `money` from
//! anywhere in the repository.
//!
//! A package root is a `src/` directory, a directory a `pyproject.toml`
//! names as one (`[tool.setuptools] package-dir`, `packages.find.where`,
//! Poetry's `packages`, Hatch's wheel `packages`), or the directory of a
//! `pyproject.toml` itself (a flat layout). From a flat root only the
//! project's own package counts (its normalised `[project] name`, or a
//! directory with an `__init__.py`), so that its `tests/` and scripts are
//! no package of their own.

use super::{dir_of, join, normalize};
use std::collections::{HashMap, HashSet};

#[derive(Debug, Default)]
pub(super) struct PythonRoots {
    /// Roots any module under which counts.
    roots: HashSet<String>,
    /// Flat roots: a `pyproject.toml`'s directory → its normalised
    /// project name.
    flat: HashMap<String, String>,
    /// Top-level module name → the roots it is under.
    by_name: HashMap<String, Vec<String>>,
}

/// `Acme.Money-Core` → `acme_money_core`, the name as a module would be.
fn normalise(name: &str) -> String {
    name.trim().to_ascii_lowercase().replace(['-', '.'], "_")
}

impl PythonRoots {
    /// Reads the `pyproject.toml` in `dir`; a bad one is still a flat root.
    pub fn add(&mut self, dir: &str, text: &str) {
        let table = toml::from_str::<toml::Table>(text).unwrap_or_default();
        let get = |keys: &[&str]| {
            let mut v = table.get(keys[0])?;
            for k in &keys[1..] {
                v = v.get(k)?;
            }
            Some(v)
        };
        let name = get(&["project", "name"])
            .or_else(|| get(&["tool", "poetry", "name"]))
            .and_then(toml::Value::as_str)
            .map(normalise)
            .unwrap_or_default();
        self.flat.insert(dir.to_owned(), name);
        let mut roots: Vec<String> = Vec::new();
        if let Some(d) = get(&["tool", "setuptools", "package-dir", ""]).and_then(|v| v.as_str()) {
            roots.push(d.to_owned());
        }
        let strings = |v: Option<&toml::Value>| -> Vec<String> {
            v.and_then(toml::Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(toml::Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default()
        };
        roots.extend(strings(get(&[
            "tool",
            "setuptools",
            "packages",
            "find",
            "where",
        ])));
        // Hatch lists packages (`src/money`): their directory is a root.
        roots.extend(
            strings(get(&[
                "tool", "hatch", "build", "targets", "wheel", "packages",
            ]))
            .iter()
            .map(|p| dir_of(p.trim_end_matches('/')).to_owned()),
        );
        if let Some(list) = get(&["tool", "poetry", "packages"]).and_then(toml::Value::as_array) {
            for p in list {
                if let Some(from) = p.get("from").and_then(toml::Value::as_str) {
                    roots.push(from.to_owned());
                }
            }
        }
        for r in roots {
            if let Some(r) = normalize(&join(dir, &r))
                && r != dir
            {
                self.roots.insert(r);
            }
        }
    }

    /// Finds the top-level modules under each root, given every Python
    /// file and whether a path is one.
    pub fn finish<'a>(
        &mut self,
        files: impl Iterator<Item = &'a str>,
        exists: &dyn Fn(&str) -> bool,
    ) {
        let mut by_name: HashMap<String, Vec<String>> = HashMap::new();
        for path in files {
            let Some((root, top)) = self.top_module(path, exists) else {
                continue;
            };
            let roots = by_name.entry(top.to_owned()).or_default();
            if !roots.iter().any(|r| r == root) {
                roots.push(root.to_owned());
            }
        }
        for roots in by_name.values_mut() {
            roots.sort();
        }
        self.by_name = by_name;
    }

    /// Takes the top-level modules found before ([`PythonRoots::tops`]).
    pub fn set(&mut self, tops: Vec<(String, Vec<String>)>) {
        self.by_name = tops.into_iter().collect();
    }

    /// Adds the top-level modules of more files to those found.
    pub fn extend<'a>(
        &mut self,
        files: impl Iterator<Item = &'a str>,
        exists: &dyn Fn(&str) -> bool,
    ) {
        for path in files {
            let Some((root, top)) = self.top_module(path, exists) else {
                continue;
            };
            let roots = self.by_name.entry(top.to_owned()).or_default();
            if !roots.iter().any(|r| r == root) {
                roots.push(root.to_owned());
                roots.sort();
            }
        }
    }

    /// The top-level modules found, by name, each with its roots.
    pub fn tops(&self) -> Vec<(String, Vec<String>)> {
        let mut out: Vec<(String, Vec<String>)> = self
            .by_name
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        out.sort();
        out
    }

    /// The nearest root above `path`, and the top-level module `path` is
    /// part of there.
    fn top_module<'p>(
        &self,
        path: &'p str,
        exists: &dyn Fn(&str) -> bool,
    ) -> Option<(&'p str, &'p str)> {
        let mut dir = dir_of(path);
        while !dir.is_empty() {
            let named_src = dir == "src" || dir.ends_with("/src");
            let rest = &path[dir.len() + 1..];
            let top = rest.split('/').next().unwrap_or(rest);
            let top_name = top
                .strip_suffix(".py")
                .or_else(|| top.strip_suffix(".pyi"))
                .unwrap_or(top);
            if named_src || self.roots.contains(dir) {
                return Some((dir, top_name));
            }
            if let Some(project) = self.flat.get(dir) {
                let package = rest.contains('/') && exists(&format!("{dir}/{top}/__init__.py"));
                return (package || top_name == project).then_some((dir, top_name));
            }
            dir = dir_of(dir);
        }
        None
    }

    /// The roots a module whose first segment is `top` may be under.
    pub fn roots(&self, top: &str) -> &[String] {
        self.by_name.get(top).map_or(&[], Vec::as_slice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn src_layouts_and_flat_projects_give_their_packages() {
        let mut p = PythonRoots::default();
        p.add("libs/fx", "[project]\nname = \"Acme-FX\"\n");
        p.add("libs/bad", "not = [toml");
        p.add(
            "libs/hatched",
            "[tool.hatch.build.targets.wheel]\npackages = [\"lib/hatched\"]\n",
        );
        let files = [
            "packages/money/src/money/__init__.py",
            "packages/money/src/money/core.py",
            "libs/fx/acme_fx/rates.py",
            "libs/fx/tests/test_rates.py",
            "libs/fx/setup.py",
            "libs/hatched/lib/hatched/x.py",
        ];
        p.finish(files.into_iter(), &|_| false);
        assert_eq!(p.roots("money"), ["packages/money/src".to_owned()]);
        assert_eq!(p.roots("acme_fx"), ["libs/fx".to_owned()]);
        assert_eq!(p.roots("hatched"), ["libs/hatched/lib".to_owned()]);
        assert!(p.roots("tests").is_empty());
        assert!(p.roots("setup").is_empty());
    }
}
