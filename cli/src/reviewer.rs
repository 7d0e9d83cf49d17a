//! One change reviewed in this process, the way `revu review` and `revu
//! eval` both do it: the flags that shape a review ([`ReviewOptions`]),
//! what travels with a change ([`ReviewOptions::prepare`], blocking work
//! done off the runtime) and the review itself ([`Reviewer::review`]), with
//! engines made once however many changes are reviewed.

use crate::code_index::IndexArgs;
use crate::embedded::{self, Finished};
use crate::error::CliError;
use crate::head::{HeadLimits, say_left_out};
use crate::intent::Intent;
use crate::repo_files::RepoFiles;
use crate::source::Change;
use revu_coordinator::config::{ReviewChoices, ReviewSettings};
use revu_coordinator::service::Submission;
use revu_domain::report::Rigor;
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
    #[arg(long, default_value_t = revu_worker::config::defaults::CONCURRENCY)]
    pub workers: usize,
    #[command(flatten)]
    pub choices: ReviewChoices,
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
        mut repo: RepoFiles,
        intent: Intent,
    ) -> Result<Prepared, CliError> {
        repo.read_nested(&change.diff)?;
        let mut heads = change.heads(self.head_limits)?;
        let code_index = change
            .code_index(&mut heads, &self.index)?
            .map(|(index, _)| index);
        let submission = Submission {
            code_index,
            diff: change.diff,
            head_files: heads.files,
            intent: intent.text,
            intent_sources: intent.sources,
            rigor: self.rigor,
            conventions: repo.review_md,
            nested_conventions: repo.nested_review_md,
            codeowners: repo.codeowners,
            packages: repo.packages,
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
            choices: self.choices.clone(),
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
        settings
            .validate()
            .map_err(|e| CliError::Input(e.to_string()))?;
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
