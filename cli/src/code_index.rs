//! The code index of a git change: every file of the repository at head
//! (the work tree, the index or the commit, matching what was diffed)
//! streamed through the indexer, the base side of the changed files beside
//! it, and the downstream sweep under `--consumers-root`. A commit's files
//! are listed by blob id, so that what the cache holds is never read
//! ([`crate::index_cache`]), and what it lacks can be asked of the fleet
//! first ([`crate::shared_index`]).

use crate::blobs::Blobs;
use crate::error::CliError;
use crate::head::{HeadOf, Heads};
use crate::shared_index::{Fleet, FleetStats, GiveBack, Key};
use crate::source::{Change, git};
use revu_domain::code_index::CodeIndex;
use revu_index::{CacheStats, ChangeInput, Indexer, Listed, Options};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Debug, Clone, clap::Args)]
pub struct IndexArgs {
    /// Build no code index: findings' blast radius then reads `graph
    /// unavailable`, and no stale use of a renamed or removed symbol is
    /// found.
    #[arg(long, env = "REVU_NO_INDEX")]
    pub no_index: bool,
    /// A directory of sibling checkouts of downstream repositories, each
    /// searched for the symbols the change removes, renames or changes.
    #[arg(long, value_name = "DIR")]
    pub consumers_root: Option<PathBuf>,
    /// Most files of the repository the code index parses; the rest are
    /// counted as skipped.
    #[arg(long, value_name = "N", default_value_t = 200_000)]
    pub max_index_files: usize,
    /// Largest file the code index parses, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 1024 * 1024)]
    pub max_index_file_bytes: usize,
    /// Where the code index keeps what it read of each file, by content,
    /// so that a file is parsed once whatever commit it is in [default:
    /// $XDG_CACHE_HOME/revu/index, else ~/.cache/revu/index].
    #[arg(long, env = "REVU_INDEX_CACHE", value_name = "DIR")]
    pub index_cache: Option<PathBuf>,
    /// Build the code index without its cache (whatever --index-cache
    /// says).
    #[arg(long, env = "REVU_NO_INDEX_CACHE")]
    pub no_index_cache: bool,
}

/// What building the index took.
#[derive(Debug, Clone, Copy, Default)]
pub struct IndexCost {
    pub elapsed: Duration,
    /// Bytes of files read (those the cache answered for are not).
    pub bytes: u64,
    /// What the cache did, when there was one.
    pub cache: Option<CacheStats>,
    /// What the fleet's shared cache gave, when it was asked.
    pub fleet: Option<FleetStats>,
    /// Whether the index came from a summary of the base tree.
    pub tree: TreeUse,
}

/// How the index used the summaries of trees ([`revu_index::tree`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TreeUse {
    /// Every file of the tree was read (from the cache where it held it).
    #[default]
    Full,
    /// Read in full, and the summary of the tree at head kept.
    Kept,
    /// From the summary of the base tree: only the files naming what the
    /// change touched were read.
    Warm,
}

impl TreeUse {
    pub fn as_str(self) -> &'static str {
        match self {
            TreeUse::Full => "full",
            TreeUse::Kept => "full, summary kept",
            TreeUse::Warm => "warm",
        }
    }
}

/// An index, what it took, and the entries to give the fleet that lacked
/// them.
#[derive(Debug)]
pub struct Built {
    pub index: CodeIndex,
    pub cost: IndexCost,
    pub give_back: Option<GiveBack>,
}

impl Built {
    /// One line on what the index parsed and what the fleet gave.
    pub fn summary(&self) -> String {
        let files = self.index.stats.files;
        let parsed = self.cost.cache.map_or(files, |c| c.misses);
        // The changed files' base side is parsed too: `parsed` can be
        // more than `files`.
        let mut line = format!("code index: {files} files; {parsed} parsed");
        if let Some(f) = self.cost.fleet {
            line.push_str(&format!(
                "; {} of the {} entries this machine lacked came from the fleet ({} rejected)",
                f.fetched, f.asked, f.rejected
            ));
        }
        line.push_str(&format!(
            "; built in {:.2} s",
            self.cost.elapsed.as_secs_f64()
        ));
        line
    }
}

impl Change {
    /// The code index of a git change; `None` for a diff given as a file,
    /// or with `--no-index`.
    pub fn code_index(
        &self,
        heads: &mut Heads,
        args: &IndexArgs,
    ) -> Result<Option<(CodeIndex, IndexCost)>, CliError> {
        Ok(self
            .code_index_shared(heads, args, None)?
            .map(|built| (built.index, built.cost)))
    }

    /// [`Change::code_index`], taking the entries this machine's cache
    /// lacks from `fleet` where it holds them ([`crate::shared_index`]).
    /// The fleet is asked for a commit's files, which are listed by blob
    /// id before any is read; the index of the staged change or the work
    /// tree is built from this machine's cache alone.
    pub fn code_index_shared(
        &self,
        heads: &mut Heads,
        args: &IndexArgs,
        fleet: Option<&mut dyn Fleet>,
    ) -> Result<Option<Built>, CliError> {
        self.build_index(heads, args, fleet, true)
    }

    /// [`Change::code_index_shared`]; with `warm`, from the base tree's
    /// summary where the cache holds it.
    fn build_index(
        &self,
        heads: &mut Heads,
        args: &IndexArgs,
        mut fleet: Option<&mut dyn Fleet>,
        warm: bool,
    ) -> Result<Option<Built>, CliError> {
        let (Some(top), Some(head_of)) = (&self.work_tree, &self.head_of) else {
            if args.consumers_root.is_some() {
                eprintln!("revu: --consumers-root needs a git change to index; not searched");
            }
            return Ok(None);
        };
        if args.no_index {
            return Ok(None);
        }
        let started = Instant::now();
        let diff = match heads.parsed.take() {
            Some(diff) => diff,
            None => revu_domain::diff::parse(&self.diff)
                .map_err(|e| CliError::Input(format!("git wrote a diff revu cannot read: {e}")))?,
        };
        let mut input = ChangeInput {
            head: heads
                .files
                .iter()
                .filter(|(p, _)| revu_index::Lang::of(p).is_some())
                .map(|(p, t)| (p.clone(), t.clone()))
                .collect(),
            ..ChangeInput::default()
        };
        if let Some(base) = &self.base_rev {
            let olds: Vec<String> = diff
                .files
                .iter()
                .filter_map(|p| p.old_path.clone())
                .filter(|p| revu_index::Lang::of(p).is_some())
                .collect();
            let spec = |p: &str| format!("{base}:{p}");
            for (path, bytes) in Blobs::open(top, olds, &spec, u64::MAX)? {
                input.base.insert(path, bytes);
            }
        }
        input.diff = diff;
        let options = Options {
            max_files: args.max_index_files,
            max_file_bytes: args.max_index_file_bytes,
            ..Options::default()
        };
        let dir =
            crate::index_cache::dir(args.index_cache.as_deref(), args.no_index_cache, &|name| {
                std::env::var_os(name)
            });
        let cache = crate::index_cache::open(dir);
        let trees = cache.as_ref().and_then(|cache| {
            crate::index_tree::Trees::of(top, cache, head_of, self.base_rev.as_deref(), &options)
        });
        let changed = Changed::of(&input);
        let mut bytes = 0u64;
        let count = |(_, b): &(String, Vec<u8>)| bytes += b.len() as u64;
        // Warm from the base tree's summary where there is one, else the
        // whole tree (keeping its summary for the next change to it).
        let base_tree = match (&cache, &trees) {
            (Some(_), Some(trees)) if warm => trees
                .base_summary(top, &input.diff, self.whole)
                .map(Arc::new),
            _ => None,
        };
        let summary_used = base_tree.clone();
        let mut shared = None;
        let mut listed = None;
        let (mut indexer, needed) = match (base_tree, &cache) {
            (Some(tree), Some(cache)) => match Indexer::warm(input, options, cache.clone(), tree) {
                (indexer, Ok(needed)) => (indexer, Some(needed)),
                (indexer, Err(e)) => {
                    eprintln!("revu: {e}; the code index reads the whole tree");
                    (indexer.summarized(), None)
                }
            },
            _ => {
                // The fleet is asked only when the whole tree is read, and
                // before any file is parsed (the changed ones too): a warm
                // index reads few entries, and a runner that starts empty
                // has no summary.
                let files = listed_files(top, head_of)?;
                if let (Some(fleet), Some(cache), Some(files)) = (fleet.take(), &cache, &files) {
                    let keys = shared_keys(&changed, files, args.max_index_file_bytes);
                    match crate::shared_index::fill(cache, fleet, keys) {
                        Ok(filled) => shared = Some(filled),
                        Err(e) => {
                            eprintln!(
                                "revu: {e}; the code index is built from this machine's cache alone"
                            );
                        }
                    }
                }
                listed = Some(files);
                let indexer = Indexer::cached(input, options, cache.clone());
                match trees {
                    Some(_) => (indexer.summarized(), None),
                    None => (indexer, None),
                }
            }
        };
        let tree = match needed {
            Some(needed) => {
                indexer.scan(blobs(top, needed)?.inspect(count));
                TreeUse::Warm
            }
            None => {
                let files = match listed {
                    Some(files) => files,
                    None => listed_files(top, head_of)?,
                };
                match files {
                    Some(files) => {
                        let needed = indexer.scan_listed(files.into_iter());
                        indexer.scan(blobs(top, needed)?.inspect(count));
                    }
                    None => indexer.scan(indexed_files(top, head_of)?.inspect(count)),
                }
                TreeUse::Full
            }
        };
        let cache_stats = indexer.cache_stats();
        let (mut index, summary) = indexer.finish_summarized();
        // A part of the summary that could not be read answered nothing:
        // the index is built again from the whole tree.
        if let Some(why) = summary_used.as_ref().and_then(|t| t.failed()) {
            eprintln!("revu: {why}; the code index reads the whole tree");
            return self.build_index(heads, args, fleet, false);
        }
        let tree = match (summary, &trees) {
            (Some(summary), Some(trees)) if trees.keep(&summary) => TreeUse::Kept,
            _ => tree,
        };
        // The lines around the sites of changed symbols in files the
        // change did not touch: the scan kept no texts, so the few files
        // the snippets need are read again.
        let mut plan = revu_index::SnippetPlan::of(&index);
        if !plan.is_done() {
            let files = files_at_head(top, head_of, plan.files(), args.max_index_file_bytes)?;
            for (path, text) in files {
                bytes += text.len() as u64;
                plan.read(&path, &text);
            }
            plan.apply(&mut index);
        }
        if let Some(cache) = &cache {
            // At most once a day; what it cannot remove stays.
            let _ = cache.trim_if_due(revu_index::cache::MAX_AGE);
        }
        if let Some(root) = &args.consumers_root {
            let tokens = revu_index::downstream::contract_tokens(&index);
            index.downstream = revu_index::downstream::sweep(root, &tokens).map_err(|e| {
                CliError::Input(format!("--consumers-root {}: {e}", root.display()))
            })?;
        }
        let (fleet, give_back) = match shared {
            Some((stats, give_back)) => (Some(stats), Some(give_back)),
            None => (None, None),
        };
        let cost = IndexCost {
            elapsed: started.elapsed(),
            bytes,
            cache: cache_stats,
            fleet,
            tree,
        };
        Ok(Some(Built {
            index,
            cost,
            give_back,
        }))
    }
}

/// The changed files' entries on both sides, and their head paths.
struct Changed {
    keys: Vec<Key>,
    heads: std::collections::HashSet<String>,
}

impl Changed {
    fn of(input: &ChangeInput) -> Changed {
        let sides = input.head.iter().chain(&input.base);
        Changed {
            keys: sides
                .filter_map(|(path, text)| {
                    revu_index::Lang::of(path).map(|lang| (revu_index::BlobId::of(text), lang))
                })
                .collect(),
            heads: input.head.keys().cloned().collect(),
        }
    }
}

/// The entries a commit's index reads: those of the changed files on both
/// sides, and of every listed file of an indexed language within the
/// size limit.
fn shared_keys(changed: &Changed, listed: &[Listed], max_file_bytes: usize) -> BTreeSet<Key> {
    let max_bytes = u64::try_from(max_file_bytes).unwrap_or(u64::MAX);
    let rest = listed
        .iter()
        .filter(|f| f.size <= max_bytes && !changed.heads.contains(&f.path))
        .filter_map(|f| revu_index::Lang::of(&f.path).map(|lang| (f.blob, lang)));
    changed.keys.iter().copied().chain(rest).collect()
}

impl Change {
    /// Reads every file the index would read, parsing none: the reference
    /// the index's cost is measured against.
    pub fn read_only(&self) -> Result<IndexCost, CliError> {
        let (Some(top), Some(head_of)) = (&self.work_tree, &self.head_of) else {
            return Ok(IndexCost::default());
        };
        let started = Instant::now();
        let bytes = indexed_files(top, head_of)?
            .map(|(_, b)| b.len() as u64)
            .sum();
        Ok(IndexCost {
            elapsed: started.elapsed(),
            bytes,
            cache: None,
            fleet: None,
            tree: TreeUse::Full,
        })
    }
}

/// Files streamed with their contents: a path and its bytes at a time.
type Files = Box<dyn Iterator<Item = (String, Vec<u8>)>>;

/// The files the index reads, at head.
fn indexed_files(top: &Path, head_of: &HeadOf) -> Result<Files, CliError> {
    let paths: Vec<String> = list(top, head_of)?
        .into_iter()
        .filter(|p| Indexer::wants(p))
        .collect();
    files_at_head(top, head_of, paths, usize::MAX)
}

/// `paths` at head, those over `max_bytes` passed over.
fn files_at_head(
    top: &Path,
    head_of: &HeadOf,
    paths: Vec<String>,
    max_bytes: usize,
) -> Result<Files, CliError> {
    let rev = match head_of {
        HeadOf::WorkTree => return Ok(Box::new(work_tree_files(top, paths, max_bytes))),
        HeadOf::Index => "",
        HeadOf::Commit(rev) => rev.as_str(),
    };
    let spec = |p: &str| format!("{rev}:{p}");
    let max_bytes = u64::try_from(max_bytes).unwrap_or(u64::MAX);
    Ok(Box::new(Blobs::open(top, paths, &spec, max_bytes)?))
}

/// A commit's files by blob id; `None` at the index or the work tree,
/// whose files are read whole.
fn listed_files(top: &Path, head_of: &HeadOf) -> Result<Option<Vec<Listed>>, CliError> {
    match head_of {
        HeadOf::Commit(rev) => crate::index_cache::list_commit(top, rev),
        HeadOf::WorkTree | HeadOf::Index => Ok(None),
    }
}

/// The contents of `files`, asked of git by blob id.
fn blobs(top: &Path, files: Vec<Listed>) -> Result<Files, CliError> {
    let ids: std::collections::HashMap<String, String> = files
        .iter()
        .map(|f| (f.path.clone(), f.blob.to_string()))
        .collect();
    let paths = files.into_iter().map(|f| f.path).collect();
    let spec = move |p: &str| ids.get(p).cloned().unwrap_or_default();
    Ok(Box::new(Blobs::open(top, paths, &spec, u64::MAX)?))
}

/// The paths of the repository at head, as git lists them.
fn list(top: &Path, head_of: &HeadOf) -> Result<Vec<String>, CliError> {
    let mut cmd = git(top);
    match head_of {
        HeadOf::WorkTree | HeadOf::Index => cmd.args(["ls-files", "-z", "--cached"]),
        HeadOf::Commit(rev) => cmd.args(["ls-tree", "-r", "-z", "--name-only", rev.as_str()]),
    };
    let out = cmd
        .output()
        .map_err(|e| CliError::Internal(format!("listing the repository's files: {e}")))?;
    if !out.status.success() {
        return Err(CliError::Internal(format!(
            "listing the repository's files: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(out
        .stdout
        .split(|&b| b == 0)
        .filter(|p| !p.is_empty())
        .filter_map(|p| std::str::from_utf8(p).ok().map(str::to_owned))
        .collect())
}

/// The files of the work tree, read one at a time; one that is gone or not
/// a regular file is passed over.
fn work_tree_files(
    top: &Path,
    paths: Vec<String>,
    max_bytes: usize,
) -> impl Iterator<Item = (String, Vec<u8>)> + use<> {
    let top = top.to_path_buf();
    let max_bytes = u64::try_from(max_bytes).unwrap_or(u64::MAX);
    paths.into_iter().filter_map(move |p| {
        let file = top.join(&p);
        let meta = std::fs::symlink_metadata(&file).ok()?;
        if !meta.is_file() || meta.len() > max_bytes {
            return None;
        }
        std::fs::read(&file).ok().map(|bytes| (p, bytes))
    })
}
