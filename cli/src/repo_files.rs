//! A repository's own review settings, `REVIEW.md` and `revu.toml`: read
//! from a directory (`revu review`, `revu submit`) or from a commit
//! (`revu eval`, which reviews each commit with the settings it had).

use crate::blobs::{Blob, Blobs};
use crate::error::CliError;
use revu_stages::conventions::{REPO_CONFIG, REVIEW_MD};
use std::path::Path;

/// A repository's `REVIEW.md` and `revu.toml`, each when present.
#[derive(Debug, Default)]
pub struct RepoFiles {
    pub review_md: Option<String>,
    pub revu_toml: Option<String>,
}

impl RepoFiles {
    /// Reads `REVIEW.md` and `revu.toml` from `dir`, or from the current
    /// directory. A missing file is not an error (the report says none was
    /// used); an explicit `--repo` that is not a directory is.
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
        let read = |name: &str| -> Result<Option<String>, CliError> {
            let path = dir.join(name);
            match std::fs::read(&path) {
                Ok(bytes) => text(bytes, &path.display().to_string()).map(Some),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(CliError::Input(format!("reading {}: {e}", path.display()))),
            }
        };
        Ok(RepoFiles {
            review_md: read(REVIEW_MD)?,
            revu_toml: read(REPO_CONFIG)?,
        })
    }

    /// `REVIEW.md` and `revu.toml` as commit `rev` of the repository at
    /// `top` has them, read with git: the work tree plays no part.
    pub fn at_commit(top: &Path, rev: &str) -> Result<RepoFiles, CliError> {
        let names = vec![REVIEW_MD.to_owned(), REPO_CONFIG.to_owned()];
        let spec = |p: &str| format!("{rev}:{p}");
        let mut blobs = Blobs::open(top, names, &spec, u64::MAX)?;
        let mut files = RepoFiles::default();
        while let Some(next) = blobs.next_blob() {
            let (name, blob) =
                next.map_err(|e| CliError::Internal(format!("git cat-file: {e}")))?;
            let Blob::Bytes(bytes) = blob else {
                continue;
            };
            let content = Some(text(bytes, &format!("{rev}:{name}"))?);
            if name == REVIEW_MD {
                files.review_md = content;
            } else {
                files.revu_toml = content;
            }
        }
        Ok(files)
    }
}

fn text(bytes: Vec<u8>, name: &str) -> Result<String, CliError> {
    String::from_utf8(bytes).map_err(|_| CliError::Input(format!("{name}: not UTF-8 text")))
}
