//! The files imports resolve to: registered one by one for a full index,
//! or a summarised tree's (read as asked) with the change's files beside
//! them for a warm one.

use super::dir_of;
use crate::tree::StoredTree;
use std::collections::HashMap;
use std::sync::Arc;

/// The repository's files, each by an id.
#[derive(Debug)]
pub(super) enum Files {
    Own(Own),
    Tree(Tree),
}

impl Default for Files {
    fn default() -> Files {
        Files::Own(Own::default())
    }
}

/// Files registered one by one; an id is the count registered before.
#[derive(Debug, Default)]
pub(super) struct Own {
    ids: HashMap<String, usize>,
    paths: Vec<String>,
    /// Directory → ids of the files directly in it.
    dirs: HashMap<String, Vec<usize>>,
    /// File name → ids, for Java's suffix lookups.
    by_name: HashMap<String, Vec<usize>>,
}

impl Own {
    pub fn add(&mut self, path: &str) -> usize {
        if let Some(&id) = self.ids.get(path) {
            return id;
        }
        let id = self.paths.len();
        self.paths.push(path.to_owned());
        list(&mut self.ids, &mut self.dirs, &mut self.by_name, path, id);
        id
    }

    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.paths.iter().map(String::as_str)
    }
}

type Ids = HashMap<String, usize>;
type Lists = HashMap<String, Vec<usize>>;

/// Lists file `id` at `path`: by path, in its directory, by its name.
fn list(ids: &mut Ids, dirs: &mut Lists, by_name: &mut Lists, path: &str, id: usize) {
    ids.insert(path.to_owned(), id);
    dirs.entry(dir_of(path).to_owned()).or_default().push(id);
    let name = path.rsplit('/').next().unwrap_or(path);
    by_name.entry(name.to_owned()).or_default().push(id);
}

/// The summary's index of the code file at `path`.
fn code_file(tree: &StoredTree, path: &str) -> Option<u32> {
    tree.find(path)
        .filter(|&i| tree.file(i as usize).is_some_and(|f| f.lang.is_some()))
}

/// A summarised tree's code files, and beside them the change's files at
/// head (ids `0..h`, by path) and the paths it took away that the summary
/// does not hold (after the summary's). The summary's file `i` is
/// `h + i`, or the head file at its path.
#[derive(Debug)]
pub(super) struct Tree {
    tree: Arc<StoredTree>,
    heads: Vec<String>,
    /// Paths not in the summary: the heads it lacks, then the rest.
    ids: HashMap<String, usize>,
    extra: Vec<String>,
    /// Summary index → the id of the head file at its path.
    moved: HashMap<u32, usize>,
    /// The heads the summary lacks and the extra paths, by directory and
    /// by name.
    dirs: HashMap<String, Vec<usize>>,
    by_name: HashMap<String, Vec<usize>>,
}

impl Tree {
    /// `heads` sorted by path; `gone` the paths taken away.
    pub fn new(tree: Arc<StoredTree>, heads: Vec<String>, gone: Vec<String>) -> Tree {
        let mut t = Tree {
            tree,
            heads: Vec::new(),
            ids: HashMap::new(),
            extra: Vec::new(),
            moved: HashMap::new(),
            dirs: HashMap::new(),
            by_name: HashMap::new(),
        };
        for (id, path) in heads.iter().enumerate() {
            match code_file(&t.tree, path) {
                Some(i) => {
                    t.moved.insert(i, id);
                }
                None => t.beside(path, id),
            }
        }
        t.heads = heads;
        for path in gone {
            if t.id(&path).is_none() {
                let id = t.heads.len() + t.tree.len() + t.extra.len();
                t.beside(&path, id);
                t.extra.push(path);
            }
        }
        t
    }

    fn beside(&mut self, path: &str, id: usize) {
        list(&mut self.ids, &mut self.dirs, &mut self.by_name, path, id);
    }

    pub fn id(&self, path: &str) -> Option<usize> {
        if let Some(&id) = self.ids.get(path) {
            return Some(id);
        }
        code_file(&self.tree, path).map(|i| self.id_of(i))
    }

    /// The summary's index of the file `id` names, if it holds it.
    pub fn in_tree(&self, id: usize) -> Option<u32> {
        let h = self.heads.len();
        if id < h {
            let path = self.heads.get(id)?;
            return self.tree.find(path);
        }
        let i = id - h;
        (i < self.tree.len()).then(|| u32::try_from(i).ok())?
    }

    /// The id of the summary's file `i`.
    pub fn id_of(&self, i: u32) -> usize {
        self.moved
            .get(&i)
            .copied()
            .unwrap_or(self.heads.len() + i as usize)
    }

    pub fn tree(&self) -> &StoredTree {
        &self.tree
    }

    /// The paths the summary lacks, with their ids.
    pub fn added(&self) -> impl Iterator<Item = &str> {
        self.heads
            .iter()
            .filter(|p| self.ids.contains_key(p.as_str()))
            .map(String::as_str)
    }
}

impl Files {
    pub fn id(&self, path: &str) -> Option<usize> {
        match self {
            Files::Own(o) => o.ids.get(path).copied(),
            Files::Tree(t) => t.id(path),
        }
    }

    pub fn path(&self, id: usize) -> &str {
        match self {
            Files::Own(o) => o.paths.get(id).map_or("", String::as_str),
            Files::Tree(t) => {
                let h = t.heads.len();
                let n = t.tree.len();
                if id < h {
                    &t.heads[id]
                } else if id < h + n {
                    t.tree.file(id - h).map_or("", |f| f.path)
                } else {
                    t.extra.get(id - h - n).map_or("", String::as_str)
                }
            }
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Files::Own(o) => o.paths.len(),
            Files::Tree(t) => t.heads.len() + t.tree.len() + t.extra.len(),
        }
    }

    /// The ids of the files directly in `dir`; `None` when it holds none.
    pub fn in_dir(&self, dir: &str) -> Option<Vec<usize>> {
        match self {
            Files::Own(o) => o.dirs.get(dir).cloned(),
            Files::Tree(t) => {
                let beside = t.dirs.get(dir);
                let listed = t.tree.in_dir(dir);
                if beside.is_none() && listed.is_none() {
                    return None;
                }
                let mut out: Vec<usize> =
                    listed.into_iter().flatten().map(|i| t.id_of(i)).collect();
                out.extend(beside.into_iter().flatten().copied());
                Some(out)
            }
        }
    }

    pub fn has_dir(&self, dir: &str) -> bool {
        match self {
            Files::Own(o) => o.dirs.contains_key(dir),
            Files::Tree(t) => t.dirs.contains_key(dir) || t.tree.in_dir(dir).is_some(),
        }
    }

    /// The ids of the files named `name` (the last part of their path).
    pub fn named(&self, name: &str) -> Vec<usize> {
        match self {
            Files::Own(o) => o.by_name.get(name).cloned().unwrap_or_default(),
            Files::Tree(t) => {
                let mut out: Vec<usize> =
                    t.tree.named(name).into_iter().map(|i| t.id_of(i)).collect();
                out.extend(t.by_name.get(name).into_iter().flatten().copied());
                out
            }
        }
    }

    /// Every directory with the ids of the files directly in it.
    pub fn each_dir(&self, mut f: impl FnMut(&str, &[usize])) {
        match self {
            Files::Own(o) => {
                for (dir, ids) in &o.dirs {
                    f(dir, ids);
                }
            }
            Files::Tree(t) => {
                t.tree.each_dir(|dir, list| {
                    let mut ids: Vec<usize> = list.into_iter().map(|i| t.id_of(i)).collect();
                    if let Some(more) = t.dirs.get(dir) {
                        ids.extend(more);
                    }
                    f(dir, &ids);
                });
                for (dir, ids) in &t.dirs {
                    if t.tree.in_dir(dir).is_none() {
                        f(dir, ids);
                    }
                }
            }
        }
    }
}
