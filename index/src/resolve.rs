//! Which files an import names, per language: Python modules and packages
//! (from the top, the directories above the importer, and the packages a
//! monorepo installs from `src/` layouts and `pyproject.toml`s),
//! JavaScript/TypeScript specifiers (relative, `tsconfig.json` aliases, a
//! workspace package by its `package.json` name), Go packages under each
//! `go.mod` (and local `replace`s), Rust `use` paths and `mod`
//! declarations within a workspace's crates, Java classes and packages by
//! path suffix. A specifier that names nothing in the repository (the
//! standard library, a dependency) resolves to nothing.
//!
//! Manifests are read once per index into maps by name; resolving an
//! import is a few lookups and the probing of candidate paths.

mod cargo;
mod gomod;
mod jsonc;
mod npm;
mod python;
mod tsconfig;

use crate::extract::Import;
use crate::lang::Lang;
use std::collections::HashMap;
use std::sync::Mutex;

/// The repository's files and manifests, for resolving imports.
#[derive(Debug, Default)]
pub struct Resolver {
    ids: HashMap<String, usize>,
    /// Id → path.
    paths: Vec<String>,
    /// Directory → ids of the indexed files directly in it.
    dirs: HashMap<String, Vec<usize>>,
    /// File name → ids, for Java's suffix lookups.
    by_name: HashMap<String, Vec<usize>>,
    /// Go module path → its directory.
    go_modules: Vec<(String, String)>,
    /// Crate name (with `_`) → its library's directory and root file.
    crates: HashMap<String, (String, String)>,
    /// Directories that hold a `Cargo.toml`.
    crate_dirs: Vec<String>,
    /// npm/pnpm/yarn packages by name.
    packages: npm::Packages,
    /// `tsconfig.json` aliases.
    tsconfigs: tsconfig::TsConfigs,
    /// Python packages by top-level name.
    python_roots: python::PythonRoots,
    /// `pyproject.toml`s, read once the files are known.
    pyprojects: Vec<(String, String)>,
    /// Bare script specifiers resolved so far, by the `tsconfig.json`
    /// options that apply: a monorepo imports the same few packages from
    /// thousands of files.
    bare: Mutex<HashMap<BareSpec, Option<usize>>>,
}

/// A bare script specifier under the `tsconfig.json` options that apply
/// (see [`tsconfig::TsConfigs::applying`]).
type BareSpec = (Option<usize>, String);

/// Whether `path` is a manifest the resolver reads.
pub(crate) fn is_manifest(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    matches!(
        name,
        "go.mod" | "go.work" | "Cargo.toml" | "package.json" | "pyproject.toml"
    ) || tsconfig::is_config(name)
}

pub fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

fn join(dir: &str, rest: &str) -> String {
    if dir.is_empty() {
        rest.to_owned()
    } else if rest.is_empty() {
        dir.to_owned()
    } else {
        format!("{dir}/{rest}")
    }
}

/// `a/./b/../c` → `a/c`; `None` when it climbs above the top.
fn normalize(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

impl Resolver {
    /// Registers a file at `path`; its id is the count registered before.
    pub fn add(&mut self, path: &str) -> usize {
        if let Some(&id) = self.ids.get(path) {
            return id;
        }
        let id = self.paths.len();
        self.paths.push(path.to_owned());
        self.ids.insert(path.to_owned(), id);
        self.dirs
            .entry(dir_of(path).to_owned())
            .or_default()
            .push(id);
        let name = path.rsplit('/').next().unwrap_or(path);
        self.by_name.entry(name.to_owned()).or_default().push(id);
        id
    }

    pub fn path(&self, id: usize) -> &str {
        &self.paths[id]
    }

    pub fn len(&self) -> usize {
        self.paths.len()
    }

    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }

    /// Reads the manifest at `path` (see [`is_manifest`]); one that does
    /// not parse is ignored.
    pub fn manifest(&mut self, path: &str, text: &str) {
        let dir = dir_of(path);
        let name = path.rsplit('/').next().unwrap_or(path);
        match name {
            "go.mod" | "go.work" => self.go_modules.extend(gomod::modules(dir, text)),
            "Cargo.toml" => {
                self.crate_dirs.push(dir.to_owned());
                if let Some((name, src, root)) = cargo::library(dir, text) {
                    self.crates.entry(name).or_insert((src, root));
                }
            }
            "package.json" => self.packages.add(dir, text),
            "pyproject.toml" => self.pyprojects.push((dir.to_owned(), text.to_owned())),
            _ if tsconfig::is_config(name) => self.tsconfigs.add(path, text),
            _ => {}
        }
    }

    /// Builds what resolving needs once every file and manifest is added.
    pub fn finish(&mut self) {
        // Longest module path first, so the most specific module wins.
        self.go_modules
            .sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.cmp(b)));
        self.crate_dirs.sort_by_key(|d| std::cmp::Reverse(d.len()));
        self.tsconfigs.finish(&self.packages);
        for (dir, text) in std::mem::take(&mut self.pyprojects) {
            self.python_roots.add(&dir, &text);
        }
        let ids = &self.ids;
        let python = self
            .paths
            .iter()
            .filter(|p| p.ends_with(".py") || p.ends_with(".pyi"))
            .map(String::as_str);
        self.python_roots
            .finish(python, &|p: &str| ids.contains_key(p));
    }

    /// Whether `name` is a crate of the workspace.
    pub fn is_crate(&self, name: &str) -> bool {
        self.crates.contains_key(name)
    }

    pub fn id(&self, path: &str) -> Option<usize> {
        self.ids.get(path).copied()
    }

    /// The ids of indexed files in `path`'s directory.
    pub fn same_dir(&self, path: &str) -> &[usize] {
        self.dirs.get(dir_of(path)).map_or(&[], Vec::as_slice)
    }

    /// The files `import` in `from` names.
    pub fn resolve(&self, from: &str, lang: Lang, import: &Import) -> Vec<usize> {
        let mut out = match lang {
            Lang::Python => self.python(from, import),
            Lang::JavaScript | Lang::TypeScript | Lang::Tsx => {
                self.script(from, &import.spec).into_iter().collect()
            }
            Lang::Go => self.go(&import.spec),
            Lang::Rust => self.rust(from, import),
            Lang::Java => self.java(import),
        };
        out.sort_unstable();
        out.dedup();
        out
    }

    fn first(&self, candidates: &[String]) -> Option<usize> {
        candidates.iter().find_map(|c| self.id(c))
    }

    fn python_module(&self, base: &str) -> Option<usize> {
        self.first(&[
            format!("{base}.py"),
            format!("{base}/__init__.py"),
            format!("{base}.pyi"),
        ])
    }

    fn python(&self, from: &str, import: &Import) -> Vec<usize> {
        let spec = import.spec.as_str();
        let dots = spec.len() - spec.trim_start_matches('.').len();
        let module = spec[dots..].replace('.', "/");
        let mut roots: Vec<String> = Vec::new();
        if dots > 0 {
            let mut dir = dir_of(from).to_owned();
            for _ in 1..dots {
                dir = dir_of(&dir).to_owned();
            }
            roots.push(dir);
        } else {
            // The top, then each directory above the importing file (a
            // package root inside a monorepo), then `src/`.
            let mut dir = dir_of(from);
            roots.push(String::new());
            while !dir.is_empty() {
                roots.push(dir.to_owned());
                dir = dir_of(dir);
            }
            roots.push("src".to_owned());
            // Then the packages a monorepo installs from elsewhere.
            let top = module.split('/').next().unwrap_or_default();
            roots.extend(self.python_roots.roots(top).iter().cloned());
        }
        for root in roots {
            let base = join(&root, &module);
            let mut found: Vec<usize> = import
                .names
                .iter()
                .filter_map(|n| self.python_module(&join(&base, n)))
                .collect();
            if let Some(m) = (!module.is_empty())
                .then(|| self.python_module(&base))
                .flatten()
            {
                found.push(m);
            } else if module.is_empty()
                && let Some(init) = self.id(&join(&base, "__init__.py"))
            {
                found.push(init);
            }
            if !found.is_empty() {
                return found;
            }
        }
        Vec::new()
    }

    fn script(&self, from: &str, spec: &str) -> Option<usize> {
        if spec.starts_with("./") || spec.starts_with("../") {
            return self.script_file(&normalize(&join(dir_of(from), spec))?);
        }
        if spec.starts_with('/') || spec.contains(':') {
            return None;
        }
        let config = self.tsconfigs.applying(from);
        let key = (config, spec.to_owned());
        if let Some(found) = self.bare.lock().ok().and_then(|m| m.get(&key).copied()) {
            return found;
        }
        // As TypeScript looks: the aliases and `baseUrl`, then packages.
        let found = self
            .tsconfigs
            .candidates(config, spec)
            .into_iter()
            .chain(self.packages.candidates(spec))
            .find_map(|base| self.script_file(&base));
        if let Ok(mut m) = self.bare.lock() {
            m.insert(key, found);
        }
        found
    }

    /// The file `base` names as a script specifier does: as written, with
    /// an extension, or as a directory's `index`.
    fn script_file(&self, base: &str) -> Option<usize> {
        const EXTS: [&str; 8] = [
            ".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts",
        ];
        if let Some(id) = self.id(base) {
            return Some(id);
        }
        // Most candidates name no directory of the repository: two
        // lookups rule them out before any path is built.
        let in_dir = self.dirs.contains_key(dir_of(base));
        let as_dir = self.dirs.contains_key(base);
        if !in_dir && !as_dir {
            return None;
        }
        let mut candidates = Vec::with_capacity(2 + 2 * EXTS.len());
        if in_dir {
            // TypeScript written for ES modules imports `./x.js` for `x.ts`.
            if let Some(stem) = base.strip_suffix(".js") {
                candidates.push(format!("{stem}.ts"));
                candidates.push(format!("{stem}.tsx"));
            }
            candidates.extend(EXTS.iter().map(|e| format!("{base}{e}")));
        }
        if as_dir {
            candidates.extend(EXTS.iter().map(|e| join(base, &format!("index{e}"))));
        }
        self.first(&candidates)
    }

    fn go(&self, spec: &str) -> Vec<usize> {
        for (module, dir) in &self.go_modules {
            let rest = if spec == module {
                Some("")
            } else {
                spec.strip_prefix(module.as_str())
                    .and_then(|r| r.strip_prefix('/'))
            };
            if let Some(files) = rest.and_then(|r| self.dirs.get(&join(dir, r))) {
                return files.clone();
            }
        }
        Vec::new()
    }

    /// The directory holding the modules a Rust file declares.
    fn rust_module_dir(from: &str) -> String {
        let file = from.rsplit('/').next().unwrap_or(from);
        let dir = dir_of(from);
        match file {
            "mod.rs" | "lib.rs" | "main.rs" => dir.to_owned(),
            _ => join(dir, file.trim_end_matches(".rs")),
        }
    }

    fn rust_crate_src(&self, from: &str) -> Option<String> {
        self.crate_dirs
            .iter()
            .find(|d| d.is_empty() || from.starts_with(&format!("{d}/")))
            .map(|d| join(d, "src"))
    }

    fn rust_file(&self, base: &str) -> Option<usize> {
        self.first(&[format!("{base}.rs"), format!("{base}/mod.rs")])
    }

    fn rust(&self, from: &str, import: &Import) -> Vec<usize> {
        if import.module_decl {
            let dir = Self::rust_module_dir(from);
            return self
                .rust_file(&join(&dir, &import.spec))
                .into_iter()
                .collect();
        }
        let path = import.spec.split('{').next().unwrap_or_default();
        let mut segs: Vec<&str> = path
            .split("::")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        if segs.is_empty() {
            return Vec::new();
        }
        let root = match segs[0] {
            "crate" => self.rust_crate_src(from),
            "self" => Some(Self::rust_module_dir(from)),
            "super" => {
                let mut dir = Self::rust_module_dir(from);
                while segs.first() == Some(&"super") {
                    dir = dir_of(&dir).to_owned();
                    segs.remove(0);
                }
                segs.insert(0, "super");
                Some(dir)
            }
            name => self.crates.get(name).map(|(src, _)| src.clone()),
        };
        let Some(root) = root else { return Vec::new() };
        let segs_first = segs[0];
        let segs = &segs[1..];
        for k in (1..=segs.len()).rev() {
            if let Some(id) = self.rust_file(&join(&root, &segs[..k].join("/"))) {
                return vec![id];
            }
        }
        let named_root = self.crates.get(segs_first).map(|(_, file)| file.clone());
        self.first(&[
            named_root.unwrap_or_default(),
            join(&root, "lib.rs"),
            join(&root, "main.rs"),
            join(&root, "mod.rs"),
        ])
        .into_iter()
        .collect()
    }

    fn java(&self, import: &Import) -> Vec<usize> {
        let spec = import.spec.trim_start_matches("static ").trim();
        let parts: Vec<&str> = spec.split('.').collect();
        if import.wildcard {
            let suffix = parts.join("/");
            return self
                .dirs
                .iter()
                .filter(|(d, _)| *d == &suffix || d.ends_with(&format!("/{suffix}")))
                .flat_map(|(_, ids)| ids.iter().copied())
                .collect();
        }
        // `a.b.C`, or `a.b.C.member` for a static import.
        for take in [parts.len(), parts.len().saturating_sub(1)] {
            if take == 0 {
                continue;
            }
            let suffix = format!("{}.java", parts[..take].join("/"));
            let name = format!("{}.java", parts[take - 1]);
            let found: Vec<usize> = self
                .by_name
                .get(&name)
                .into_iter()
                .flatten()
                .copied()
                .filter(|&id| {
                    let p = &self.paths[id];
                    p == &suffix || p.ends_with(&format!("/{suffix}"))
                })
                .collect();
            if !found.is_empty() {
                return found;
            }
        }
        Vec::new()
    }
}

/// The value of the entry whose key matches `spec`, `*` in a key standing
/// for any text, and that text: the key with the longest part before its
/// `*` wins, as Node's `exports` and TypeScript's `paths` choose.
fn star_match<'k, 's, T>(
    entries: impl Iterator<Item = (&'k str, T)>,
    spec: &'s str,
) -> Option<(T, &'s str)> {
    let mut best: Option<(usize, T, &'s str)> = None;
    for (key, value) in entries {
        let Some((prefix, suffix)) = key.split_once('*') else {
            continue;
        };
        if spec.len() < prefix.len() + suffix.len()
            || !spec.starts_with(prefix)
            || !spec.ends_with(suffix)
        {
            continue;
        }
        if best.as_ref().is_none_or(|(len, _, _)| prefix.len() > *len) {
            best = Some((
                prefix.len(),
                value,
                &spec[prefix.len()..spec.len() - suffix.len()],
            ));
        }
    }
    best.map(|(_, value, star)| (value, star))
}
