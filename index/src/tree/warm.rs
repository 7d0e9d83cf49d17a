//! What a warm index reads of the files a change left alone, and what it
//! takes from the summary instead.
//!
//! A use of a name counts only where it is bound to the changed file's
//! definition ([`crate::analyze`]): through an import of the changed file
//! or of a file importing it (a package re-exporting it), as the file's
//! own or its package's name, or through a receiver, qualifier or class
//! (a [`super::FAR`] mark). So of the files naming what the change
//! defines or took away, only those that may be bound so are read: those
//! marked far, the changed files' importers and theirs, and the files
//! of a changed Go or Java file's package. The definitions of those names
//! elsewhere are counted from the postings' marks.

use super::{DEFS, FAR, NAMED, StoredTree};
use crate::ChangeInput;
use crate::extract::FileFacts;
use crate::lang::Lang;
use crate::resolve::dir_of;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// What a warm index reads and takes.
#[derive(Debug, Default)]
pub(crate) struct Plan {
    /// Summary indices of the files whose facts are read.
    pub read: BTreeSet<u32>,
    /// Files whose imports are resolved again: they import a package (a
    /// directory) the change adds a file to.
    pub reresolve: HashSet<String>,
    /// (family, name) → definitions in the files the change left alone.
    pub defined: HashMap<(Lang, String), usize>,
}

type Sides = BTreeMap<String, (Lang, FileFacts)>;

/// The code files directly in `dirs`.
fn in_dirs(tree: &StoredTree, dirs: &BTreeSet<&str>) -> BTreeSet<u32> {
    dirs.iter()
        .filter_map(|d| tree.in_dir(d))
        .flatten()
        .collect()
}

pub(crate) fn plan(tree: &StoredTree, change: &ChangeInput, heads: &Sides, bases: &Sides) -> Plan {
    let mut plan = Plan::default();
    let changed_paths = change.paths();
    let changed: BTreeSet<u32> = changed_paths.iter().filter_map(|p| tree.find(p)).collect();
    let importers = |of: &BTreeSet<u32>| -> BTreeSet<u32> {
        of.iter()
            .flat_map(|&i| tree.importers_of(i as usize))
            .filter(|i| !changed.contains(i))
            .collect()
    };
    // A changed file's direct importers are read whole: a use elsewhere
    // may reach it through one of them.
    let direct = importers(&changed);
    plan.read.extend(&direct);
    // An import of a package (a Go or Java package, a Python package's
    // directory) may name a file the change adds to it: the files
    // importing a file beside an added one are read, and their imports
    // resolved again.
    let added: BTreeSet<&str> = change
        .head
        .keys()
        .filter(|p| tree.find(p).is_none())
        .map(|p| dir_of(p))
        .collect();
    let again = importers(&in_dirs(tree, &added));
    for &i in &again {
        if let Some(f) = tree.file(i as usize) {
            plan.reresolve.insert(f.path.to_owned());
        }
    }
    plan.read.extend(&again);
    // Their importers may take a name from them.
    let mut relays = direct.clone();
    relays.extend(&again);
    relays.extend(&changed);
    let near: BTreeSet<u32> = importers(&relays);
    // Go's and Java's files see their package's names without an import.
    let dirs: BTreeSet<&str> = changed_paths
        .iter()
        .filter(|p| matches!(Lang::of(p), Some(Lang::Go | Lang::Java)))
        .map(|p| dir_of(p))
        .collect();
    let beside = in_dirs(tree, &dirs);
    // A name's uses count only in files of its definition's family.
    let mut wanted: HashMap<&str, HashSet<Lang>> = HashMap::new();
    for (lang, facts) in heads.values().chain(bases.values()) {
        for d in &facts.defs {
            wanted
                .entry(d.name.as_str())
                .or_default()
                .insert(lang.family());
        }
    }
    for (name, families) in &wanted {
        for (file, mark, lang) in tree.postings(name) {
            let Some(lang) = lang else { continue };
            if changed.contains(&file) {
                continue;
            }
            let family = lang.family();
            let defs = usize::from(mark & DEFS);
            if defs > 0 {
                *plan
                    .defined
                    .entry((family, (*name).to_owned()))
                    .or_default() += defs;
            }
            let bound = mark & FAR != 0 || near.contains(&file) || beside.contains(&file);
            if mark & NAMED != 0 && families.contains(&family) && bound {
                plan.read.insert(file);
            }
        }
    }
    plan.read.retain(|i| !changed.contains(i));
    plan
}
