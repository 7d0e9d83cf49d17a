//! A summary made from a full index, and what a warm index takes from
//! one.

use super::{StoredTree, Summary, TreeFile};
use crate::ChangeInput;
use crate::cache::BlobId;
use crate::extract::FileFacts;
use crate::lang::Lang;
use crate::scan::{Options, ScannedFile, wanted_path};
use revu_domain::code_index::IndexStats;
use std::collections::{BTreeMap, HashSet};

/// The import graph a full index resolved: each file's path by id, and
/// the ids it imports.
pub(crate) struct Edges {
    pub paths: Vec<String>,
    pub forward: Vec<Vec<usize>>,
}

/// The files of the tree at head, from the scan (taking each file's name
/// hashes) and the changed files; `None` when some file's blob is not
/// known (the scan ran without the cache).
pub(crate) fn files(
    change: &ChangeInput,
    heads: &BTreeMap<String, (Lang, FileFacts)>,
    scanned: &mut [ScannedFile],
    options: &Options,
    skipped: usize,
) -> Option<Summary> {
    let mut rows: Vec<(TreeFile, Vec<super::Mark>, Option<String>)> = Vec::new();
    for s in scanned.iter_mut() {
        let names = std::mem::take(&mut s.names);
        rows.push((
            TreeFile {
                path: s.path.clone(),
                blob: s.blob?,
                lang: s.lang,
                size: s.size,
                has_errors: s.facts.has_errors,
            },
            names,
            s.manifest.clone(),
        ));
    }
    let max_bytes = u64::try_from(options.max_file_bytes).unwrap_or(u64::MAX);
    for (path, (lang, facts)) in heads {
        let Some(text) = change.head.get(path) else {
            continue;
        };
        let size = u64::try_from(text.len()).unwrap_or(u64::MAX);
        // As a full index of the tree would admit it.
        if !wanted_path(path) || size > max_bytes {
            continue;
        }
        rows.push((
            TreeFile {
                path: path.clone(),
                blob: BlobId::of(text),
                lang: Some(*lang),
                size,
                has_errors: facts.has_errors,
            },
            super::marks(facts),
            None,
        ));
    }
    rows.sort_by(|a, b| a.0.path.cmp(&b.0.path));
    rows.dedup_by(|a, b| a.0.path == b.0.path);
    let mut summary = Summary {
        skipped: u64::try_from(skipped).unwrap_or(u64::MAX),
        ..Summary::default()
    };
    for (i, (file, names, manifest)) in rows.into_iter().enumerate() {
        if let Some(text) = manifest {
            summary
                .manifests
                .push((u32::try_from(i).unwrap_or(u32::MAX), text));
        }
        summary.files.push(file);
        summary.names.push(names);
    }
    summary.imports = vec![Vec::new(); summary.files.len()];
    summary.python = python(&summary);
    Some(summary)
}

/// Python's top-level modules in the summarised tree, as its resolver
/// finds them.
fn python(summary: &Summary) -> Vec<(String, Vec<String>)> {
    let pyprojects = summary.manifests.iter().filter_map(|(i, text)| {
        let f = summary.files.get(*i as usize)?;
        (crate::resolve::manifest_kind(&f.path) == Some("py"))
            .then_some((f.path.as_str(), text.as_str()))
    });
    let code = |f: &&TreeFile| f.lang.is_some();
    let paths = summary.files.iter().filter(code).map(|f| f.path.as_str());
    let exists = |p: &str| {
        summary
            .files
            .binary_search_by(|f| f.path.as_str().cmp(p))
            .is_ok_and(|i| summary.files[i].lang.is_some())
    };
    crate::resolve::python_tops(pyprojects, paths, &exists)
}

/// Each file's imports in `summary`, from the graph the index resolved.
pub(crate) fn imports(summary: &mut Summary, edges: &Edges) {
    let at = |path: &str| {
        summary
            .files
            .binary_search_by(|f| f.path.as_str().cmp(path))
            .ok()
    };
    let mut imports = vec![Vec::new(); summary.files.len()];
    for (id, targets) in edges.forward.iter().enumerate() {
        let Some(from) = edges.paths.get(id).and_then(|p| at(p)) else {
            continue;
        };
        let mut list: Vec<u32> = targets
            .iter()
            .filter_map(|&t| edges.paths.get(t).and_then(|p| at(p)))
            .filter_map(|j| u32::try_from(j).ok())
            .collect();
        list.sort_unstable();
        list.dedup();
        imports[from] = list;
    }
    summary.imports = imports;
}

/// The index's figures for the tree after the change: the summary's
/// files the change left alone, and the changed files.
pub(crate) fn stats(
    tree: &StoredTree,
    heads: &BTreeMap<String, (Lang, FileFacts)>,
    changed: &HashSet<String>,
) -> IndexStats {
    let mut stats = IndexStats {
        skipped: usize::try_from(tree.skipped).unwrap_or(usize::MAX),
        ..IndexStats::default()
    };
    let mut count = |lang: Lang, files: i64, errors: i64| {
        let add = |n: usize, by: i64| usize::try_from(n as i64 + by).unwrap_or(0);
        stats.files = add(stats.files, files);
        stats.with_errors = add(stats.with_errors, errors);
        let n = stats.languages.entry(lang.name().to_owned()).or_default();
        *n = add(*n, files);
    };
    for &(lang, files, errors) in &tree.languages {
        count(lang, files as i64, errors as i64);
    }
    // The changed files' rows at the base leave; their heads come in.
    for path in changed {
        if let Some(row) = tree.find(path).and_then(|i| tree.file(i as usize))
            && let Some(lang) = row.lang
        {
            count(lang, -1, -i64::from(row.has_errors));
        }
    }
    for (lang, facts) in heads.values() {
        count(*lang, 1, i64::from(facts.has_errors));
    }
    stats.languages.retain(|_, n| *n > 0);
    stats
}
