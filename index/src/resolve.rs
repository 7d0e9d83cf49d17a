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
mod files;
mod gomod;
mod jsonc;
mod npm;
mod python;
mod tsconfig;

use crate::extract::Import;
use crate::lang::Lang;
use crate::tree::StoredTree;
use files::Files;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// The repository's files and manifests, for resolving imports.
#[derive(Debug, Default)]
pub struct Resolver {
    files: Files,
    /// The manifests registered, by path (a resolver over a summarised
    /// tree reads the summary's instead).
    manifests: Vec<(String, String)>,
    /// What each kind of manifest says, read the first time an import of
    /// a language it serves is resolved.
    /// Go modules: module path → its directory, longest path first.
    go: OnceLock<Vec<(String, String)>>,
    cargo: OnceLock<Cargo>,
    script: OnceLock<Script>,
    /// Python packages by top-level name.
    python_roots: python::PythonRoots,
    /// Bare script specifiers resolved so far, by the `tsconfig.json`
    /// options that apply: a monorepo imports the same few packages from
    /// thousands of files.
    bare: Mutex<HashMap<BareSpec, Option<usize>>>,
}

#[derive(Debug, Default)]
struct Cargo {
    /// Crate name (with `_`) → its library's directory and root file.
    crates: HashMap<String, (String, String)>,
    /// Directories that hold a `Cargo.toml`, longest first.
    dirs: Vec<String>,
}

#[derive(Debug, Default)]
struct Script {
    /// npm/pnpm/yarn packages by name.
    packages: npm::Packages,
    /// `tsconfig.json` aliases.
    tsconfigs: tsconfig::TsConfigs,
}

/// A bare script specifier under the `tsconfig.json` options that apply
/// (see [`tsconfig::TsConfigs::applying`]).
type BareSpec = (Option<usize>, String);

/// The kind of manifest at `path`, by what reads it: `cargo`, `go`,
/// `npm`, `py` or `ts`; `None` for a file that is none.
pub(crate) fn manifest_kind(path: &str) -> Option<&'static str> {
    let name = path.rsplit('/').next().unwrap_or(path);
    match name {
        "go.mod" | "go.work" => Some("go"),
        "Cargo.toml" => Some("cargo"),
        "package.json" => Some("npm"),
        "pyproject.toml" => Some("py"),
        _ if tsconfig::is_config(name) => Some("ts"),
        _ => None,
    }
}

/// Whether `path` is a manifest the resolver reads.
pub(crate) fn is_manifest(path: &str) -> bool {
    manifest_kind(path).is_some()
}

fn is_python(path: &str) -> bool {
    path.ends_with(".py") || path.ends_with(".pyi")
}

/// Python's top-level modules under the package roots `pyprojects` (their
/// paths and texts) give, among the code files `paths`, with the roots
/// each is under; `exists` says whether a path is a code file.
pub(crate) fn python_tops<'a>(
    pyprojects: impl Iterator<Item = (&'a str, &'a str)>,
    paths: impl Iterator<Item = &'a str>,
    exists: &dyn Fn(&str) -> bool,
) -> Vec<(String, Vec<String>)> {
    let mut roots = python::PythonRoots::default();
    for (path, text) in pyprojects {
        roots.add(dir_of(path), text);
    }
    roots.finish(paths.filter(|p| is_python(p)), exists);
    roots.tops()
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
    /// A resolver over the code files of the tree `tree` summarises, with
    /// beside them `heads` (the change's files at head, sorted by path:
    /// ids `0..heads.len()`) and `gone` (paths the change took away, which
    /// stay resolvable). Its manifests are the summary's, and its Python
    /// packages too, with the heads'; call [`Resolver::finish`] next.
    pub fn over(tree: Arc<StoredTree>, heads: Vec<String>, gone: Vec<String>) -> Resolver {
        let files = files::Tree::new(tree, heads, gone);
        let mut resolver = Resolver::default();
        resolver.python_roots.set(files.tree().python.clone());
        resolver.files = Files::Tree(files);
        resolver
    }

    /// Registers a file at `path`; its id is the count registered before.
    /// A resolver made [`Resolver::over`] a tree registers nothing more.
    pub fn add(&mut self, path: &str) -> Option<usize> {
        match &mut self.files {
            Files::Own(own) => Some(own.add(path)),
            Files::Tree(_) => self.files.id(path),
        }
    }

    pub fn path(&self, id: usize) -> &str {
        self.files.path(id)
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.len() == 0
    }

    /// Over a summarised tree: the summary's index of file `id`, when it
    /// holds it.
    pub(crate) fn in_tree(&self, id: usize) -> Option<u32> {
        match &self.files {
            Files::Tree(t) => t.in_tree(id),
            Files::Own(_) => None,
        }
    }

    /// The summarised tree the resolver is over, if any.
    pub(crate) fn tree(&self) -> Option<&StoredTree> {
        match &self.files {
            Files::Tree(t) => Some(t.tree()),
            Files::Own(_) => None,
        }
    }

    /// Over a summarised tree: the id of its file `i`.
    pub(crate) fn id_in_tree(&self, i: u32) -> Option<usize> {
        match &self.files {
            Files::Tree(t) => Some(t.id_of(i)),
            Files::Own(_) => None,
        }
    }

    /// Registers the manifest at `path` (see [`is_manifest`]); one that
    /// does not parse is ignored.
    pub fn manifest(&mut self, path: &str, text: &str) {
        if manifest_kind(path).is_some() {
            self.manifests.push((path.to_owned(), text.to_owned()));
        }
    }

    /// The manifests of `kind` (see [`manifest_kind`]), in path order.
    fn manifests_of(&self, kind: &str) -> Vec<(String, String)> {
        match &self.files {
            Files::Tree(t) => t.tree().manifests_of(kind),
            Files::Own(_) => {
                let mut out: Vec<(String, String)> = self
                    .manifests
                    .iter()
                    .filter(|(p, _)| manifest_kind(p) == Some(kind))
                    .cloned()
                    .collect();
                out.sort();
                out
            }
        }
    }

    fn go_modules(&self) -> &[(String, String)] {
        self.go.get_or_init(|| {
            let mut modules: Vec<(String, String)> = self
                .manifests_of("go")
                .iter()
                .flat_map(|(path, text)| gomod::modules(dir_of(path), text))
                .collect();
            // Longest module path first, so the most specific module wins.
            modules.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.cmp(b)));
            modules
        })
    }

    fn cargo(&self) -> &Cargo {
        self.cargo.get_or_init(|| {
            let mut cargo = Cargo::default();
            for (path, text) in self.manifests_of("cargo") {
                let dir = dir_of(&path);
                cargo.dirs.push(dir.to_owned());
                if let Some((name, src, root)) = cargo::library(dir, &text) {
                    cargo.crates.entry(name).or_insert((src, root));
                }
            }
            cargo.dirs.sort_by_key(|d| std::cmp::Reverse(d.len()));
            cargo
        })
    }

    fn scripts(&self) -> &Script {
        self.script.get_or_init(|| {
            let mut script = Script::default();
            for (path, text) in self.manifests_of("npm") {
                script.packages.add(dir_of(&path), &text);
            }
            for (path, text) in self.manifests_of("ts") {
                script.tsconfigs.add(&path, &text);
            }
            script.tsconfigs.finish(&script.packages);
            script
        })
    }

    /// Builds what resolving needs once every file and manifest is added.
    pub fn finish(&mut self) {
        let files = &self.files;
        let exists = |p: &str| files.id(p).is_some();
        match files {
            Files::Own(own) => {
                for (path, text) in self.manifests_of("py") {
                    self.python_roots.add(dir_of(&path), &text);
                }
                let python = own.paths().filter(|p| is_python(p));
                self.python_roots.finish(python, &exists);
            }
            // The summary's packages are known: only the files it lacks
            // may add to them.
            Files::Tree(t) => {
                let mut python = t.added().filter(|p| is_python(p)).peekable();
                if python.peek().is_some() {
                    for (path, text) in t.tree().manifests_of("py") {
                        self.python_roots.add(dir_of(&path), &text);
                    }
                    self.python_roots.extend(python, &exists);
                }
            }
        }
    }

    /// Whether `name` is a crate of the workspace.
    pub fn is_crate(&self, name: &str) -> bool {
        self.cargo().crates.contains_key(name)
    }

    pub fn id(&self, path: &str) -> Option<usize> {
        self.files.id(path)
    }

    /// The ids of indexed files in `path`'s directory.
    pub fn same_dir(&self, path: &str) -> Vec<usize> {
        self.files.in_dir(dir_of(path)).unwrap_or_default()
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
        let script = self.scripts();
        let config = script.tsconfigs.applying(from);
        let key = (config, spec.to_owned());
        if let Some(found) = self.bare.lock().ok().and_then(|m| m.get(&key).copied()) {
            return found;
        }
        // As TypeScript looks: the aliases and `baseUrl`, then packages.
        let found = script
            .tsconfigs
            .candidates(config, spec)
            .into_iter()
            .chain(script.packages.candidates(spec))
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
        let in_dir = self.files.has_dir(dir_of(base));
        let as_dir = self.files.has_dir(base);
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
        for (module, dir) in self.go_modules() {
            let rest = if spec == module {
                Some("")
            } else {
                spec.strip_prefix(module.as_str())
                    .and_then(|r| r.strip_prefix('/'))
            };
            if let Some(files) = rest.and_then(|r| self.files.in_dir(&join(dir, r))) {
                return files;
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
        self.cargo()
            .dirs
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
            name => self.cargo().crates.get(name).map(|(src, _)| src.clone()),
        };
        let Some(root) = root else { return Vec::new() };
        let segs_first = segs[0];
        let segs = &segs[1..];
        for k in (1..=segs.len()).rev() {
            if let Some(id) = self.rust_file(&join(&root, &segs[..k].join("/"))) {
                return vec![id];
            }
        }
        let named_root = self
            .cargo()
            .crates
            .get(segs_first)
            .map(|(_, file)| file.clone());
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
            let tail = format!("/{suffix}");
            let mut out = Vec::new();
            self.files.each_dir(|d, ids| {
                if d == suffix || d.ends_with(&tail) {
                    out.extend_from_slice(ids);
                }
            });
            return out;
        }
        // `a.b.C`, or `a.b.C.member` for a static import.
        for take in [parts.len(), parts.len().saturating_sub(1)] {
            if take == 0 {
                continue;
            }
            let suffix = format!("{}.java", parts[..take].join("/"));
            let name = format!("{}.java", parts[take - 1]);
            let found: Vec<usize> = self
                .files
                .named(&name)
                .into_iter()
                .filter(|&id| {
                    let p = self.files.path(id);
                    p == suffix || p.ends_with(&format!("/{suffix}"))
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
