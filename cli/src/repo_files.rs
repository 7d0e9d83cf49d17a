//! A repository's own review settings: `REVIEW.md` and `revu.toml` at its
//! root, the `REVIEW.md` of each directory that holds changed files, and
//! its `CODEOWNERS`. Read from a directory (`revu review`, `revu submit`)
//! or from a commit (`revu eval`, which reviews each commit with the
//! settings it had).

use crate::blobs::{Blob, Blobs};
use crate::error::CliError;
use revu_domain::bundle::OwnersFile;
use revu_domain::packages::{MANIFESTS, Package, is_package_manifest, manifest_needs_text};
use revu_stages::conventions::codeowners::LOCATIONS;
use revu_stages::conventions::{REPO_CONFIG, REVIEW_MD};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The settings files of a repository, each when present.
#[derive(Debug, Default)]
pub struct RepoFiles {
    pub review_md: Option<String>,
    pub revu_toml: Option<String>,
    /// `REVIEW.md` files below the root, by directory (`pkg/api`).
    pub nested_review_md: BTreeMap<String, String>,
    pub codeowners: Option<OwnersFile>,
    /// The packages that hold a changed file (directories below the root
    /// with a manifest of their own), by directory.
    pub packages: Vec<Package>,
    /// Where they were read, to read the nested ones from the same place.
    from: Option<From>,
}

#[derive(Debug)]
enum From {
    Dir(PathBuf),
    Commit { top: PathBuf, rev: String },
}

impl RepoFiles {
    /// Reads `REVIEW.md`, `revu.toml` and `CODEOWNERS` from `dir`, or from
    /// the current directory. A missing file is not an error (the report
    /// says none was used); an explicit `--repo` that is not a directory
    /// is.
    pub fn read(dir: Option<&Path>) -> Result<RepoFiles, CliError> {
        if let Some(d) = dir
            && !d.is_dir()
        {
            return Err(CliError::Input(format!(
                "--repo {}: not a directory",
                d.display()
            )));
        }
        let dir = dir.unwrap_or(Path::new("."));
        let mut files = RepoFiles {
            review_md: read_file(&dir.join(REVIEW_MD))?,
            revu_toml: read_file(&dir.join(REPO_CONFIG))?,
            from: Some(From::Dir(dir.to_owned())),
            ..RepoFiles::default()
        };
        for location in LOCATIONS {
            if let Some(text) = read_file(&dir.join(location))? {
                files.codeowners = Some(OwnersFile {
                    path: location.to_owned(),
                    text,
                });
                break;
            }
        }
        Ok(files)
    }

    /// The same files as commit `rev` of the repository at `top` has them,
    /// read with git: the work tree plays no part.
    pub fn at_commit(top: &Path, rev: &str) -> Result<RepoFiles, CliError> {
        let mut names = vec![REVIEW_MD.to_owned(), REPO_CONFIG.to_owned()];
        names.extend(LOCATIONS.iter().map(|l| (*l).to_owned()));
        let found = read_blobs(top, rev, names)?;
        let mut files = RepoFiles {
            from: Some(From::Commit {
                top: top.to_owned(),
                rev: rev.to_owned(),
            }),
            ..RepoFiles::default()
        };
        for (name, content) in found {
            match name.as_str() {
                REVIEW_MD => files.review_md = Some(content),
                REPO_CONFIG => files.revu_toml = Some(content),
                location if files.codeowners.is_none() => {
                    files.codeowners = Some(OwnersFile {
                        path: location.to_owned(),
                        text: content,
                    });
                }
                _ => {}
            }
        }
        Ok(files)
    }

    /// Reads, for every directory below the root that holds a file `diff`
    /// changes (or lies above one), its `REVIEW.md` and whether it is a
    /// package, from where the root's files came.
    pub fn read_nested(&mut self, diff: &[u8]) -> Result<(), CliError> {
        let dirs = changed_dirs(diff);
        if dirs.is_empty() {
            return Ok(());
        }
        let mut manifests: BTreeMap<String, (String, String)> = BTreeMap::new();
        match &self.from {
            None => {}
            Some(From::Dir(root)) => {
                for dir in &dirs {
                    if let Some(text) = read_file(&root.join(dir).join(REVIEW_MD))? {
                        self.nested_review_md.insert(dir.clone(), text);
                    }
                    for name in MANIFESTS {
                        let path = root.join(dir).join(name);
                        let text = if manifest_needs_text(name) {
                            read_file(&path)?
                        } else {
                            path.is_file().then(String::new)
                        };
                        if let Some(text) = text {
                            manifests.insert(format!("{dir}/{name}"), (dir.clone(), text));
                        }
                    }
                }
            }
            Some(From::Commit { top, rev }) => {
                let mut names: Vec<String> =
                    dirs.iter().map(|d| format!("{d}/{REVIEW_MD}")).collect();
                for dir in &dirs {
                    names.extend(MANIFESTS.iter().map(|m| format!("{dir}/{m}")));
                }
                for (name, text) in read_blobs(top, rev, names)? {
                    let Some((dir, file)) = name.rsplit_once('/') else {
                        continue;
                    };
                    if file == REVIEW_MD {
                        self.nested_review_md.insert(dir.to_owned(), text);
                    } else {
                        manifests.insert(name.clone(), (dir.to_owned(), text));
                    }
                }
            }
        }
        self.packages = packages_of(manifests);
        Ok(())
    }
}

/// The packages among the manifests found (by path, with their directory
/// and text): one per directory, named by the first manifest of
/// [`MANIFESTS`] that makes it one.
fn packages_of(manifests: BTreeMap<String, (String, String)>) -> Vec<Package> {
    let mut packages: BTreeMap<String, &str> = BTreeMap::new();
    for name in MANIFESTS {
        for (dir, text) in manifests
            .iter()
            .filter(|(path, _)| path.rsplit_once('/').is_some_and(|(_, f)| f == *name))
            .map(|(_, found)| found)
        {
            if is_package_manifest(name, text) {
                packages.entry(dir.clone()).or_insert(name);
            }
        }
    }
    packages
        .into_iter()
        .map(|(dir, manifest)| Package {
            dir,
            manifest: manifest.to_owned(),
        })
        .collect()
}

/// The directories below the root that hold, or lie above, a file the
/// diff names on either side. Read from its `--- `/`+++ ` header pairs
/// alone: a quick look, not a parse, that at worst asks for a directory
/// that has no `REVIEW.md`.
fn changed_dirs(diff: &[u8]) -> BTreeSet<String> {
    let mut dirs = BTreeSet::new();
    let mut previous: &[u8] = b"";
    for line in diff.split(|b| *b == b'\n') {
        if let (Some(old), Some(new)) = (previous.strip_prefix(b"--- "), line.strip_prefix(b"+++ "))
        {
            for side in [old, new] {
                if let Some(path) = header_path(side) {
                    add_ancestors(&mut dirs, path);
                }
            }
        }
        previous = line;
    }
    dirs
}

/// The path of one side of a file header, without its `a/`/`b/` prefix;
/// `None` for `/dev/null` or a name that is not text.
fn header_path(side: &[u8]) -> Option<&str> {
    let path = std::str::from_utf8(side).ok()?;
    let path = path.split('\t').next()?.trim().trim_matches('"');
    if path == "/dev/null" {
        return None;
    }
    Some(
        path.strip_prefix("a/")
            .or_else(|| path.strip_prefix("b/"))
            .unwrap_or(path),
    )
}

/// Adds every directory above `path` (none for a file at the root).
fn add_ancestors(dirs: &mut BTreeSet<String>, path: &str) {
    let mut dir = path;
    while let Some((parent, _)) = dir.rsplit_once('/') {
        let outside = parent.is_empty() || parent.split('/').any(|p| p == "..");
        if outside || !dirs.insert(parent.to_owned()) {
            break;
        }
        dir = parent;
    }
}

/// `path`'s text, `None` when it does not exist.
fn read_file(path: &Path) -> Result<Option<String>, CliError> {
    match std::fs::read(path) {
        Ok(bytes) => text(bytes, &path.display().to_string()).map(Some),
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            Ok(None)
        }
        Err(e) => Err(CliError::Input(format!("reading {}: {e}", path.display()))),
    }
}

/// The text of each of `names` that commit `rev` has, in order.
fn read_blobs(
    top: &Path,
    rev: &str,
    names: Vec<String>,
) -> Result<Vec<(String, String)>, CliError> {
    let spec = |p: &str| format!("{rev}:{p}");
    let mut blobs = Blobs::open(top, names, &spec, u64::MAX)?;
    let mut found = Vec::new();
    while let Some(next) = blobs.next_blob() {
        let (name, blob) = next.map_err(|e| CliError::Internal(format!("git cat-file: {e}")))?;
        if let Blob::Bytes(bytes) = blob {
            let content = text(bytes, &format!("{rev}:{name}"))?;
            found.push((name, content));
        }
    }
    Ok(found)
}

fn text(bytes: Vec<u8>, name: &str) -> Result<String, CliError> {
    String::from_utf8(bytes).map_err(|_| CliError::Input(format!("{name}: not UTF-8 text")))
}

#[cfg(test)]
mod tests {
    use super::changed_dirs;

    #[test]
    fn every_directory_above_a_changed_file_is_asked_once() {
        let diff = b"diff --git a/pkg/api/x.py b/pkg/api/x.py\n\
--- a/pkg/api/x.py\n\
+++ b/pkg/api/x.py\n\
@@ -1 +1 @@\n\
--- a SQL comment, removed\n\
+b\n\
--- a/old/gone.rs\n\
+++ /dev/null\n\
--- /dev/null\n\
+++ b/top.rs\n";
        let dirs: Vec<String> = changed_dirs(diff).into_iter().collect();
        assert_eq!(dirs, ["old", "pkg", "pkg/api"]);
    }
}
