//! `revu review`: the whole pipeline in this process.

use crate::embedded;
use crate::error::CliError;
use crate::output::{FailOn, Format, emit, emit_report};
use crate::source::ChangeArgs;
use revu_common::facts::SkipFiles;
use revu_common::report::Rigor;
use revu_coordinator::config::ReviewSettings;
use revu_coordinator::service::{APART_MIN_BYTES, Submission};
use revu_stages::conventions::{REPO_CONFIG, REVIEW_MD};
use revu_worker::engines::lint::LintSettings;
use revu_worker::engines::llm::LlmSettings;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    change: ChangeArgs,
    /// Report format.
    #[arg(long, value_enum, default_value = "md")]
    format: Format,
    /// Exit 1 iff a finding counts at or above this severity or a lane did
    /// not complete (`never`: always 0); without it the gate decides.
    #[arg(long, value_enum)]
    fail_on: Option<FailOn>,
    /// Review rigor: poc, prototype or production.
    #[arg(long, value_parser = parse_rigor)]
    rigor: Option<Rigor>,
    /// What the change is meant to do.
    #[arg(long, default_value = "")]
    intent: String,
    /// Lanes run at once.
    #[arg(long, default_value_t = 4)]
    workers: usize,
    /// Repository root holding REVIEW.md and revu.toml [default: the current
    /// directory].
    #[arg(long)]
    repo: Option<PathBuf>,
    /// Re-try every verified BLOCKER and IMPORTANT finding in an
    /// adjudication lane run by this engine (`rules`: confirm a finding if
    /// its rule still fires, else drop it; `llm`: a model confirms,
    /// downgrades or drops each, with reasons).
    #[arg(long, value_name = "ENGINE")]
    adjudicate: Option<String>,
    /// Refine the domain slices in a grouping lane run by this engine
    /// before the domain lanes start (`rules`: keep the deterministic
    /// slices; `llm`: a model moves, splits, merges and renames them);
    /// slices that are not an exact cover of the change are refused.
    #[arg(long, value_name = "ENGINE")]
    refine_grouping: Option<String>,
    /// Write the report's walkthrough and a line per changed file in a
    /// synthesis lane run by this engine (`rules`: from the diff and the
    /// findings; `llm`: a model); it has no say over findings or verdict.
    #[arg(long, value_name = "ENGINE")]
    synthesize: Option<String>,
    /// Changed files left out of the lanes and listed in the report's
    /// coverage: `generated`, `vendored`, `lock`, comma-separated, or
    /// `none` to review every file.
    #[arg(long, env = "REVU_SKIP_FILES", value_name = "KINDS", default_value_t = SkipFiles::default())]
    skip_files: SkipFiles,
    /// Engine of every lane: `rules` (built in, offline) or `llm` (a model,
    /// with `--llm-provider` and `--llm-model`).
    #[arg(long, value_name = "ENGINE", default_value = "rules")]
    engine: String,
    /// Most tokens (input and output) the review's lanes may spend together
    /// on model services; a lane that would go over stops, and is
    /// INCOMPLETE with what it did not send. No cap when unset.
    #[arg(long, env = "REVU_REVIEW_TOKEN_CAP", value_name = "TOKENS")]
    review_token_cap: Option<u64>,
    #[command(flatten)]
    llm: LlmSettings,
    #[command(flatten)]
    lint: LintSettings,
}

/// A repository's `REVIEW.md` and `revu.toml`, each when present.
#[derive(Debug, Default)]
pub(crate) struct RepoFiles {
    pub review_md: Option<String>,
    pub revu_toml: Option<String>,
}

/// Reads `REVIEW.md` and `revu.toml` from `dir`, or from the current
/// directory. A missing file is not an error (the report says none was
/// used); an explicit `--repo` that is not a directory is.
pub(crate) fn read_repo(dir: Option<&Path>) -> Result<RepoFiles, CliError> {
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
            Ok(bytes) => String::from_utf8(bytes)
                .map(Some)
                .map_err(|_| CliError::Input(format!("{}: not UTF-8 text", path.display()))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(CliError::Input(format!("reading {}: {e}", path.display()))),
        }
    };
    Ok(RepoFiles {
        review_md: read(REVIEW_MD)?,
        revu_toml: read(REPO_CONFIG)?,
    })
}

pub(crate) fn parse_rigor(s: &str) -> Result<Rigor, String> {
    Rigor::parse(s)
        .ok_or_else(|| format!("unknown rigor {s:?}; expected poc, prototype or production"))
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let change = args.change.source.read()?;
    let mut heads = change.heads(args.change.head_limits)?;
    heads.say_skipped();
    let code_index = change
        .code_index(&mut heads, &args.change.index)?
        .map(|(index, _)| index);
    // In a work tree, REVIEW.md and revu.toml come from its top.
    let repo = read_repo(args.repo.as_deref().or(change.work_tree.as_deref()))?;
    let submission = Submission {
        code_index,
        diff: change.diff,
        head_files: heads.files,
        intent: args.intent,
        rigor: args.rigor,
        conventions: repo.review_md,
        repo_config: repo.revu_toml,
        ..Submission::default()
    };
    let settings = ReviewSettings {
        adjudicate: args.adjudicate,
        refine_grouping: args.refine_grouping,
        synthesize: args.synthesize,
        skip_files: args.skip_files,
        engine: args.engine,
        review_token_cap: args.review_token_cap,
        ..ReviewSettings::default()
    };
    settings.validate().map_err(CliError::Input)?;
    let runtime = runtime()?;
    let large = submission.diff.len() >= APART_MIN_BYTES;
    let finished = runtime.block_on(async {
        let engines = embedded::engines(&args.llm, &args.lint).await?;
        embedded::review(submission, settings, engines, args.workers.max(1)).await
    })?;
    let code = match &finished.report {
        Some(report) => emit_report(report, &finished.json, args.format, args.fail_on),
        None => emit(&finished.json, args.format, args.fail_on),
    };
    // A large review's report and the runtime's threads take milliseconds
    // to free, and the process is about to exit: that happens on a thread
    // of its own, which the exit ends.
    if large {
        let _ = std::thread::Builder::new()
            .name("revu-free".into())
            .spawn(move || drop((finished, runtime)));
    }
    code
}

/// The runtime of a review in this process. Its CPU work (parsing, the
/// rules, the report) runs on blocking threads, as many as there are
/// cores: more would not run it sooner, and each thread that allocates
/// takes an allocator arena of its own, whose high-water mark adds to the
/// process's peak (3 to 4 MB on a 1,353-file diff). The rest (the queue,
/// the gathering of lane reports) is light: one thread runs it, which
/// takes one arena fewer (0.8 MB less at django's peak).
fn runtime() -> Result<tokio::runtime::Runtime, CliError> {
    let cores = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .worker_threads(1)
        .max_blocking_threads(cores.max(2))
        .build()
        .map_err(|e| CliError::Internal(format!("starting the runtime: {e}")))
}
