//! One change reviewed in this process, the way `revu review` and `revu
//! eval` both do it: the flags that shape a review ([`ReviewOptions`]),
//! what travels with a change ([`ReviewOptions::prepare`], blocking work
//! done off the runtime) and the review itself ([`Reviewer::review`]), with
//! engines made once however many changes are reviewed.

use crate::code_index::IndexArgs;
use crate::embedded::{self, Finished};
use crate::error::CliError;
use crate::head::{HeadLimits, say_left_out};
use crate::repo_files::RepoFiles;
use crate::source::Change;
use revu_common::facts::SkipFiles;
use revu_common::report::Rigor;
use revu_coordinator::config::ReviewSettings;
use revu_coordinator::service::Submission;
use revu_worker::engines::Engines;
use revu_worker::engines::lint::LintSettings;
use revu_worker::engines::llm::LlmSettings;

/// The flags of a review in this process.
#[derive(Debug, Clone, clap::Args)]
pub struct ReviewOptions {
    #[command(flatten)]
    pub head_limits: HeadLimits,
    #[command(flatten)]
    pub index: IndexArgs,
    /// Review rigor: poc, prototype or production.
    #[arg(long, value_parser = parse_rigor)]
    pub rigor: Option<Rigor>,
    /// Lanes run at once.
    #[arg(long, default_value_t = 4)]
    pub workers: usize,
    /// Re-try every verified BLOCKER and IMPORTANT finding in an
    /// adjudication lane run by this engine (`rules`: confirm a finding if
    /// its rule still fires, else drop it; `llm`: a model confirms,
    /// downgrades or drops each, with reasons).
    #[arg(long, value_name = "ENGINE")]
    pub adjudicate: Option<String>,
    /// Refine the domain slices in a grouping lane run by this engine
    /// before the domain lanes start (`rules`: keep the deterministic
    /// slices; `llm`: a model moves, splits, merges and renames them);
    /// slices that are not an exact cover of the change are refused.
    #[arg(long, value_name = "ENGINE")]
    pub refine_grouping: Option<String>,
    /// Write the report's walkthrough and a line per changed file in a
    /// synthesis lane run by this engine (`rules`: from the diff and the
    /// findings; `llm`: a model); it has no say over findings or verdict.
    #[arg(long, value_name = "ENGINE")]
    pub synthesize: Option<String>,
    /// Changed files left out of the lanes and listed in the report's
    /// coverage: `generated`, `vendored`, `lock`, comma-separated, or
    /// `none` to review every file.
    #[arg(long, env = "REVU_SKIP_FILES", value_name = "KINDS", default_value_t = SkipFiles::default())]
    pub skip_files: SkipFiles,
    /// Engine of every lane: `rules` (built in, offline) or `llm` (a model,
    /// with `--llm-provider` and `--llm-model`).
    #[arg(long, value_name = "ENGINE", default_value = "rules")]
    pub engine: String,
    /// Most tokens (input and output) the review's lanes may spend together
    /// on model services; a lane that would go over stops, and is
    /// INCOMPLETE with what it did not send. No cap when unset.
    #[arg(long, env = "REVU_REVIEW_TOKEN_CAP", value_name = "TOKENS")]
    pub review_token_cap: Option<u64>,
    #[command(flatten)]
    pub llm: LlmSettings,
    #[command(flatten)]
    pub lint: LintSettings,
}

pub(crate) fn parse_rigor(s: &str) -> Result<Rigor, String> {
    Rigor::parse(s)
        .ok_or_else(|| format!("unknown rigor {s:?}; expected poc, prototype or production"))
}

/// A change made ready to review, and the changed files whose full
/// contents do not travel with it.
#[derive(Debug)]
pub struct Prepared {
    pub submission: Submission,
    pub left_out: Vec<(String, String)>,
}

impl Prepared {
    /// One line on stderr naming the files left out, if any were.
    pub fn say_left_out(&self) {
        say_left_out(&self.left_out);
    }
}

impl ReviewOptions {
    /// What travels with `change`: the head contents of its changed files
    /// and the code index of the repository at head (for a git change),
    /// the repository's conventions and the intent. Runs git and the
    /// indexer: blocking work, done before the runtime is entered.
    pub fn prepare(
        &self,
        change: Change,
        repo: RepoFiles,
        intent: String,
    ) -> Result<Prepared, CliError> {
        let mut heads = change.heads(self.head_limits)?;
        let code_index = change
            .code_index(&mut heads, &self.index)?
            .map(|(index, _)| index);
        let submission = Submission {
            code_index,
            diff: change.diff,
            head_files: heads.files,
            intent,
            rigor: self.rigor,
            conventions: repo.review_md,
            repo_config: repo.revu_toml,
            ..Submission::default()
        };
        Ok(Prepared {
            submission,
            left_out: heads.skipped,
        })
    }

    fn settings(&self) -> ReviewSettings {
        ReviewSettings {
            adjudicate: self.adjudicate.clone(),
            refine_grouping: self.refine_grouping.clone(),
            synthesize: self.synthesize.clone(),
            skip_files: self.skip_files.clone(),
            engine: self.engine.clone(),
            review_token_cap: self.review_token_cap,
            ..ReviewSettings::default()
        }
    }
}

/// Reviews changes in this process, one at a time: the settings checked
/// and the engines made once, the runtime kept between reviews.
#[derive(Debug)]
pub struct Reviewer {
    settings: ReviewSettings,
    engines: Engines,
    workers: usize,
    runtime: tokio::runtime::Runtime,
}

impl Reviewer {
    /// Checks the settings and makes the engines; exit 2 on a setting or
    /// an engine that cannot be.
    pub fn new(options: &ReviewOptions) -> Result<Reviewer, CliError> {
        let settings = options.settings();
        settings.validate().map_err(CliError::Input)?;
        let runtime = runtime()?;
        let engines = runtime.block_on(embedded::engines(&options.llm, &options.lint))?;
        embedded::check_engines(&settings, &engines)?;
        Ok(Reviewer {
            settings,
            engines,
            workers: options.workers.max(1),
            runtime,
        })
    }

    /// Runs one review to its report.
    pub fn review(&self, submission: Submission) -> Result<Finished, CliError> {
        self.runtime.block_on(embedded::review(
            submission,
            self.settings.clone(),
            self.engines.clone(),
            self.workers,
        ))
    }
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
