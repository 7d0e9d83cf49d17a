//! `compilerOptions.paths` and `baseUrl` of `tsconfig.json` (and
//! `jsconfig.json`): `"@app/*": ["src/*"]` makes `@app/x` name `src/x`.
//!
//! A file takes the nearest config above it that has either; `extends`
//! (a relative path, or a workspace package's config) is followed, the
//! extending config's own options winning. As TypeScript does, `paths`
//! are relative to `baseUrl` when there is one, else to the config that
//! wrote them.

use super::npm::{Packages, split};
use super::{dir_of, join, jsonc, normalize, star_match};
use serde_json::Value;
use std::collections::HashMap;

/// How deep `extends` is followed (it may loop).
const MAX_EXTENDS: usize = 8;

/// `compilerOptions.paths`: pattern → targets, as written.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Aliases {
    /// The directory of the config that wrote them: what they are
    /// relative to without a `baseUrl`.
    written_in: String,
    entries: Vec<(String, Vec<String>)>,
}

/// One config as written, its paths made relative to the repository.
#[derive(Debug, Default, Clone)]
struct Raw {
    base_url: Option<String>,
    paths: Option<Aliases>,
    /// `extends` as written.
    extends: Vec<String>,
}

/// What applies to the files below a config.
#[derive(Debug, Default, Clone, PartialEq, Eq, Hash)]
struct Effective {
    base_url: Option<String>,
    paths: Option<Aliases>,
}

#[derive(Debug, Default)]
pub(super) struct TsConfigs {
    /// Every config read, by path (`tsconfig.base.json` only through
    /// `extends`).
    raw: HashMap<String, Raw>,
    /// What the configs give, each once: the configs of a monorepo's
    /// packages extend one base as a rule.
    effective: Vec<Effective>,
    /// Directory → what its `tsconfig.json`/`jsconfig.json` gives (an
    /// index into `effective`), where that is something.
    applies: HashMap<String, usize>,
}

/// Whether the file named `name` is a TypeScript or JavaScript config.
pub(crate) fn is_config(name: &str) -> bool {
    name == "jsconfig.json" || (name.starts_with("tsconfig") && name.ends_with(".json"))
}

impl TsConfigs {
    /// Reads the config at `path`; a bad one is ignored.
    pub fn add(&mut self, path: &str, text: &str) {
        let Some(Value::Object(json)) = jsonc::parse(text) else {
            return;
        };
        let dir = dir_of(path);
        let options = json.get("compilerOptions");
        let base_url = options
            .and_then(|o| o.get("baseUrl"))
            .and_then(Value::as_str)
            .and_then(|b| normalize(&join(dir, b)));
        let paths = options
            .and_then(|o| o.get("paths"))
            .and_then(Value::as_object)
            .map(|m| {
                let entries = m
                    .iter()
                    .map(|(k, v)| {
                        let targets = match v {
                            Value::Array(a) => a
                                .iter()
                                .filter_map(Value::as_str)
                                .map(str::to_owned)
                                .collect(),
                            Value::String(s) => vec![s.clone()],
                            _ => Vec::new(),
                        };
                        (k.clone(), targets)
                    })
                    .collect();
                Aliases {
                    written_in: dir.to_owned(),
                    entries,
                }
            });
        let extends = match json.get("extends") {
            Some(Value::String(s)) => vec![s.clone()],
            Some(Value::Array(a)) => a
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            _ => Vec::new(),
        };
        self.raw.insert(
            path.to_owned(),
            Raw {
                base_url,
                paths,
                extends,
            },
        );
    }

    /// Follows `extends` once every config and package is read.
    pub fn finish(&mut self, packages: &Packages) {
        let mut paths: Vec<&String> = self.raw.keys().collect();
        paths.sort();
        let mut ids: HashMap<Effective, usize> = HashMap::new();
        let mut effective = Vec::new();
        let mut applies = HashMap::new();
        for path in paths {
            let name = path.rsplit('/').next().unwrap_or(path);
            if name != "tsconfig.json" && name != "jsconfig.json" {
                continue;
            }
            let e = self.effective(path, packages, 0);
            if e.base_url.is_none() && e.paths.is_none() {
                continue;
            }
            let dir = dir_of(path).to_owned();
            // tsconfig.json over jsconfig.json in one directory.
            if name == "jsconfig.json" && applies.contains_key(&dir) {
                continue;
            }
            let id = *ids.entry(e.clone()).or_insert_with(|| {
                effective.push(e);
                effective.len() - 1
            });
            applies.insert(dir, id);
        }
        self.effective = effective;
        self.applies = applies;
    }

    fn effective(&self, path: &str, packages: &Packages, depth: usize) -> Effective {
        let Some(raw) = self.raw.get(path) else {
            return Effective::default();
        };
        let mut e = Effective::default();
        if depth < MAX_EXTENDS {
            for ext in &raw.extends {
                if let Some(parent) = self.extended(dir_of(path), ext, packages) {
                    let p = self.effective(&parent, packages, depth + 1);
                    e.base_url = p.base_url.or(e.base_url);
                    e.paths = p.paths.or(e.paths);
                }
            }
        }
        if raw.base_url.is_some() {
            e.base_url.clone_from(&raw.base_url);
        }
        if raw.paths.is_some() {
            e.paths.clone_from(&raw.paths);
        }
        e
    }

    /// The config `extends` names from `dir`, if the repository has it.
    fn extended(&self, dir: &str, ext: &str, packages: &Packages) -> Option<String> {
        let mut bases = Vec::new();
        if ext.starts_with("./") || ext.starts_with("../") {
            bases.extend(normalize(&join(dir, ext)));
        } else {
            let (name, sub) = split(ext)?;
            let pkg = packages.dir(name)?;
            if sub.is_empty() {
                bases.push(join(pkg, "tsconfig.json"));
            } else {
                bases.extend(normalize(&join(pkg, sub)));
            }
        }
        bases
            .into_iter()
            .flat_map(|b| [b.clone(), format!("{b}.json"), join(&b, "tsconfig.json")])
            .find(|c| self.raw.contains_key(c))
    }

    /// What applies to the file `from`, as an id for
    /// [`TsConfigs::candidates`]: files under configs that give the same
    /// share it.
    pub fn applying(&self, from: &str) -> Option<usize> {
        let mut dir = dir_of(from);
        loop {
            if let Some(&id) = self.applies.get(dir) {
                return Some(id);
            }
            if dir.is_empty() {
                return None;
            }
            dir = dir_of(dir);
        }
    }

    /// The paths `spec` may name under the config `id` (see
    /// [`TsConfigs::applying`]), most likely first: through the aliases,
    /// then under `baseUrl`.
    pub fn candidates(&self, id: Option<usize>, spec: &str) -> Vec<String> {
        let Some(config) = id.and_then(|i| self.effective.get(i)) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        if let Some(Aliases {
            written_in,
            entries: aliases,
        }) = &config.paths
        {
            let base = config.base_url.as_deref().unwrap_or(written_in);
            let exact = aliases
                .iter()
                .find(|(k, _)| k == spec)
                .map(|(_, t)| (t, ""));
            let found =
                exact.or_else(|| star_match(aliases.iter().map(|(k, t)| (k.as_str(), t)), spec));
            if let Some((targets, star)) = found {
                for t in targets {
                    out.extend(normalize(&join(base, &t.replace('*', star))));
                }
            }
        }
        if let Some(base) = &config.base_url {
            out.extend(normalize(&join(base, spec)));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_config_applies_with_what_it_extends() {
        let mut c = TsConfigs::default();
        c.add(
            "tsconfig.base.json",
            r#"{ "compilerOptions": { "baseUrl": ".", "paths": { "@lib/*": ["libs/*/src"], } } }"#,
        );
        c.add(
            "apps/web/tsconfig.json",
            r#"{ "extends": "../../tsconfig.base.json" }"#,
        );
        c.add(
            "apps/api/tsconfig.json",
            r#"{ "compilerOptions": { "paths": { "~/*": ["./src/*"] } } }"#,
        );
        c.finish(&Packages::default());
        assert_eq!(
            c.candidates(c.applying("apps/web/src/main.ts"), "@lib/ui"),
            vec!["libs/ui/src".to_owned(), "@lib/ui".to_owned()]
        );
        assert_eq!(
            c.candidates(c.applying("apps/api/x/y.ts"), "~/db"),
            vec!["apps/api/src/db".to_owned()]
        );
        assert!(c.candidates(c.applying("other/z.ts"), "@lib/ui").is_empty());
    }

    #[test]
    fn extends_that_loop_end() {
        let mut c = TsConfigs::default();
        c.add(
            "a/tsconfig.json",
            r#"{ "extends": "../b/tsconfig.json", "compilerOptions": {"baseUrl": "."} }"#,
        );
        c.add("b/tsconfig.json", r#"{ "extends": "../a/tsconfig.json" }"#);
        c.finish(&Packages::default());
        assert_eq!(
            c.candidates(c.applying("b/x.ts"), "m"),
            vec!["a/m".to_owned()]
        );
    }
}
