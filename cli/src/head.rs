//! The head side of a git change: the full contents of each changed text
//! file as the change leaves it (from the work tree, the index or the
//! commit, matching what was diffed), so that verification can check a
//! citation of any line of a changed file and engines can read the whole
//! file.
//!
//! Contents travel byte-exact, whatever their encoding. Bounded per file
//! and per review. A file over the per-file limit, binary, or a symbolic
//! link is left out and named; a change whose
//! head contents together pass the per-review limit is refused with the
//! limit and the flag that raises it.

use crate::blobs::{Blob, Blobs};
use crate::error::CliError;
use std::collections::BTreeMap;
use std::path::Path;

/// Where the head side of the change lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeadOf {
    /// The staged change: the index.
    Index,
    /// The unstaged change: the files in the work tree.
    WorkTree,
    /// A range of commits: its last commit.
    Commit(String),
}

/// Limits on what travels with a review.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct HeadLimits {
    /// Largest changed file whose full contents are sent with a git
    /// change, in bytes; larger ones are left out and named.
    #[arg(long, value_name = "BYTES", default_value_t = 1024 * 1024)]
    pub max_head_file_bytes: u64,
    /// Most bytes of full file contents one git change may send.
    #[arg(long, value_name = "BYTES", default_value_t = 32 * 1024 * 1024)]
    pub max_head_bytes: u64,
}

/// The head contents collected, and what was left out and why.
#[derive(Debug, Default)]
pub struct Heads {
    pub files: BTreeMap<String, Vec<u8>>,
    pub skipped: Vec<(String, String)>,
    /// The diff as parsed to find them, for the code index to take.
    pub parsed: Option<revu_domain::diff::Diff>,
}

impl crate::source::Change {
    /// The head contents of a git change (none for a diff file).
    pub fn heads(&self, limits: HeadLimits) -> Result<Heads, CliError> {
        match (&self.work_tree, &self.head_of) {
            (Some(top), Some(of)) => collect(top, of, &self.diff, limits),
            _ => Ok(Heads::default()),
        }
    }
}

impl Heads {
    /// One line on stderr naming what was left out, if anything was.
    pub fn say_skipped(&self) {
        say_left_out(&self.skipped);
    }
}

/// One line on stderr naming the files whose full contents were left out
/// (`(path, why)`), if any were.
pub fn say_left_out(skipped: &[(String, String)]) {
    if skipped.is_empty() {
        return;
    }
    let list: Vec<String> = skipped
        .iter()
        .map(|(path, why)| format!("{path} ({why})"))
        .collect();
    eprintln!(
        "revu: full contents not sent for {} file(s), reviewed from the diff alone: {}",
        list.len(),
        list.join(", ")
    );
}

/// Collects the head side of every changed file of `diff` in work tree
/// `top`.
pub fn collect(
    top: &Path,
    of: &HeadOf,
    diff: &[u8],
    limits: HeadLimits,
) -> Result<Heads, CliError> {
    let parsed = revu_domain::diff::parse(diff)
        .map_err(|e| CliError::Input(format!("git wrote a diff revu cannot read: {e}")))?;
    let mut heads = Heads::default();
    let mut wanted = Vec::new();
    for patch in &parsed.files {
        let Some(path) = patch.new_path.as_deref() else {
            continue;
        };
        if path.contains('\n') {
            heads
                .skipped
                .push((path.to_owned(), "a newline in its name".to_owned()));
        } else if patch.binary {
            heads.skipped.push((path.to_owned(), "binary".to_owned()));
        } else if patch.new_mode.as_deref() == Some("120000") {
            heads
                .skipped
                .push((path.to_owned(), "a symbolic link".to_owned()));
        } else if patch.new_mode.as_deref() == Some("160000") {
            heads
                .skipped
                .push((path.to_owned(), "a submodule".to_owned()));
        } else {
            wanted.push(path.to_owned());
        }
    }
    let blobs = match of {
        HeadOf::WorkTree => read_work_tree(top, &wanted, limits)?,
        HeadOf::Index => read_blobs(top, "", &wanted, limits)?,
        HeadOf::Commit(rev) => read_blobs(top, rev, &wanted, limits)?,
    };
    let mut total = 0u64;
    for (path, blob) in blobs {
        match blob {
            Blob::Bytes(bytes) => {
                total += bytes.len() as u64;
                heads.files.insert(path, bytes);
            }
            Blob::TooLarge(size) => heads.skipped.push((
                path,
                format!(
                    "{size} bytes, over --max-head-file-bytes {}",
                    limits.max_head_file_bytes
                ),
            )),
            Blob::Missing => heads.skipped.push((path, "not found at head".to_owned())),
        }
    }
    if total > limits.max_head_bytes {
        return Err(CliError::Input(format!(
            "the changed files' full contents are {total} bytes, over --max-head-bytes {} \
             (raise it, or narrow the change with paths after --)",
            limits.max_head_bytes
        )));
    }
    heads.parsed = Some(parsed);
    Ok(heads)
}

fn read_work_tree(
    top: &Path,
    paths: &[String],
    limits: HeadLimits,
) -> Result<Vec<(String, Blob)>, CliError> {
    let mut out = Vec::new();
    for path in paths {
        let file = top.join(path);
        let blob = match std::fs::symlink_metadata(&file) {
            Ok(meta) if meta.len() > limits.max_head_file_bytes => Blob::TooLarge(meta.len()),
            Ok(meta) if meta.is_file() => match std::fs::read(&file) {
                Ok(bytes) => Blob::Bytes(bytes),
                Err(e) => {
                    return Err(CliError::Input(format!("reading {}: {e}", file.display())));
                }
            },
            _ => Blob::Missing,
        };
        out.push((path.clone(), blob));
    }
    Ok(out)
}

/// The blobs of `paths` at `rev` (the index when `rev` is empty), through
/// one `git cat-file --batch`.
fn read_blobs(
    top: &Path,
    rev: &str,
    paths: &[String],
    limits: HeadLimits,
) -> Result<Vec<(String, Blob)>, CliError> {
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    let spec = |p: &str| format!("{rev}:{p}");
    let mut blobs = Blobs::open(top, paths.to_vec(), &spec, limits.max_head_file_bytes)?;
    let mut out = Vec::new();
    while let Some(next) = blobs.next_blob() {
        out.push(next.map_err(|e| CliError::Internal(format!("git cat-file: {e}")))?);
    }
    Ok(out)
}
