//! `revu eval corpus DIR`: the reviewer scored on a labelled corpus. Each
//! case file's change is reviewed on its own; the marked sources together,
//! as one change adding them all. `--golden FILE --checkouts DIR` reads a
//! published benchmark's golden comments instead ([`super::benchmark`]).
//! With `--judge`, an llm engine pairs findings with descriptions
//! ([`super::judge`]). Scoring is in [`super::scoring`].

use super::Format;
use super::bar::Bar;
use super::benchmark;
use super::cases::{CORPUS_FILE, Case, CaseChange, CorpusFile, is_case_file};
use super::commits::repository;
use super::judge::Judge;
use super::marked::{Marked, is_marked};
use super::render_corpus;
use super::scoring::{CaseRun, Expected, Scored, Spent};
use crate::error::CliError;
use crate::intent::AutoIntent;
use crate::repo_files::RepoFiles;
use crate::reviewer::{ReviewOptions, Reviewer};
use crate::source::{Change, Source, revision};
use revu_domain::finding::Finding;
use revu_domain::usage::ReviewUsage;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// The case name of the marked sources, reviewed as one change.
const MARKED: &str = "marked sources";

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The corpus: a directory of case files and marked sources.
    #[arg(value_name = "DIR", required_unless_present = "golden")]
    dir: Option<PathBuf>,
    /// A published benchmark's golden comments (a JSON list of pull
    /// requests, each with comments in free text) to score instead of DIR.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with = "dir",
        requires = "checkouts"
    )]
    golden: Option<PathBuf>,
    /// Where the pull requests of --golden are: `<repo>-<number>.patch`,
    /// or a git work tree `<repo>-<number>/` at the pull request's head
    /// with a `revu-base` branch at its base.
    #[arg(long, value_name = "DIR", requires = "golden")]
    checkouts: Option<PathBuf>,
    /// Lines either side of an expectation's range that still match,
    /// over the corpus's and each case's `window`.
    #[arg(long, value_name = "N")]
    line_window: Option<u32>,
    /// Pair findings with expectations' descriptions by meaning, asking
    /// the llm engine ENGINE (set up by the --llm-* flags) [default
    /// ENGINE: llm].
    #[arg(long, value_name = "ENGINE", num_args = 0..=1, default_missing_value = "llm")]
    judge: Option<String>,
    /// Output format: Markdown for people, JSON for scripts.
    #[arg(long, value_enum, default_value = "md")]
    format: Format,
    /// Exit 1 when the corpus's recall falls below F (0 to 1).
    #[arg(long, value_name = "F", value_parser = parse_share)]
    min_recall: Option<f64>,
    /// Exit 1 when more than N traps are hit.
    #[arg(long, value_name = "N")]
    max_trap_hits: Option<usize>,
    #[command(flatten)]
    auto_intent: AutoIntent,
    #[command(flatten)]
    review: ReviewOptions,
}

fn parse_share(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(f) if (0.0..=1.0).contains(&f) => Ok(f),
        _ => Err(format!("{s:?} is not a share between 0 and 1")),
    }
}

/// One change of the corpus to review, and what it expects.
#[derive(Debug)]
pub(super) struct Item {
    pub name: String,
    pub description: Option<String>,
    pub change: ItemChange,
    pub intent: String,
    /// The case's own line window, when it sets one.
    pub window: Option<u32>,
    pub expected: Expected,
}

#[derive(Debug)]
pub(super) enum ItemChange {
    Case(CaseChange),
    Marked(Vec<u8>),
    /// A git work tree: its `HEAD` against the merge base with a branch.
    Branch {
        repo: PathBuf,
        base: String,
    },
}

/// What to score: the items, those left out and why, what the corpus is
/// called and its own line window.
pub(super) struct Loaded {
    pub items: Vec<Item>,
    pub skipped: Vec<(String, String)>,
    pub name: String,
    pub window: Option<u32>,
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let loaded = match (&args.golden, &args.checkouts, &args.dir) {
        (Some(golden), Some(checkouts), _) => benchmark::load(golden, checkouts)?,
        (_, _, Some(dir)) => load(dir)?,
        _ => {
            return Err(CliError::Input(
                "give the corpus's DIR, or --golden FILE and --checkouts DIR".into(),
            ));
        }
    };
    let reviewer = Reviewer::new(&args.review)?;
    let judge = match &args.judge {
        Some(name) => Some(Judge::new(&args.review.llm, name)?),
        None => None,
    };
    let mut scored = Scored::new(loaded.name);
    scored.judge = judge.as_ref().map(Judge::info);
    for (name, reason) in loaded.skipped {
        eprintln!("revu: skipped {name}: {reason}");
        scored.skip(name, reason);
    }
    let mut bar = Bar::stderr("cases", loaded.items.len());
    for item in loaded.items {
        bar.start(&item.name);
        let started = Instant::now();
        let (findings, usage) = match review(&reviewer, &args.review, args.auto_intent, &item) {
            Ok(reviewed) => reviewed,
            Err(e) => {
                bar.finish();
                return Err(e);
            }
        };
        let wall_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let verdict = judge
            .as_ref()
            .map(|j| j.judge(&item.expected.expectations, &findings))
            .unwrap_or_default();
        let run = CaseRun {
            findings,
            judged: verdict.judged,
            judge_error: verdict.error,
            window: args
                .line_window
                .or(item.window)
                .or(loaded.window)
                .unwrap_or(0),
            spent: Spent {
                wall_ms,
                usage,
                judge: verdict.usage,
            },
        };
        scored.add(&item.name, item.description, item.expected, run);
        bar.advance();
    }
    bar.finish();
    scored.finish();
    super::emit(args.format, &scored, render_corpus::markdown)?;
    if scored.overall.needs_judge > 0 {
        let why = if scored.judge.is_some() {
            "the judge gave no answer for their case (see the judge failures)"
        } else {
            "they have a description alone and need --judge"
        };
        eprintln!(
            "revu: {} not scored: {why}",
            super::plural(scored.overall.needs_judge, "expectation")
        );
    }
    let mut failed = false;
    if let Some(floor) = args.min_recall {
        let recall = scored.overall.recall;
        if recall.is_none_or(|r| r < floor) {
            let shown = recall.map_or_else(
                || "undefined (nothing expected)".into(),
                |r| format!("{r:.4}"),
            );
            eprintln!("revu: recall {shown} is below --min-recall {floor}");
            failed = true;
        }
    }
    if let Some(most) = args.max_trap_hits
        && scored.overall.traps_hit > most
    {
        eprintln!(
            "revu: {} traps hit, more than --max-trap-hits {most}",
            scored.overall.traps_hit
        );
        failed = true;
    }
    Ok(ExitCode::from(u8::from(failed)))
}

/// The findings of one item's review, and what its lanes spent on models.
fn review(
    reviewer: &Reviewer,
    options: &ReviewOptions,
    auto: AutoIntent,
    item: &Item,
) -> Result<(Vec<Finding>, Option<ReviewUsage>), CliError> {
    let within = |e: CliError| in_case(&item.name, e);
    let (change, repo) = match &item.change {
        ItemChange::Marked(patch) => (Change::of_diff(patch.clone()), RepoFiles::default()),
        ItemChange::Case(CaseChange::Diff(path)) => {
            let source = Source {
                diff: Some(path.clone()),
                ..Source::default()
            };
            (
                source.read_in(Path::new(".")).map_err(within)?,
                RepoFiles::default(),
            )
        }
        ItemChange::Case(CaseChange::Commit { repo, commit }) => {
            let top = repository(repo).map_err(within)?;
            let sha = revision(&top, commit).map_err(within)?;
            let source = Source {
                commit: Some(sha.clone()),
                ..Source::default()
            };
            let change = source.read_in(&top).map_err(within)?;
            (change, RepoFiles::at_commit(&top, &sha).map_err(within)?)
        }
        ItemChange::Branch { repo, base } => {
            let top = repository(repo).map_err(within)?;
            let source = Source {
                base: Some(base.clone()),
                ..Source::default()
            };
            let change = source.read_in(&top).map_err(within)?;
            (change, RepoFiles::read(Some(&top)).map_err(within)?)
        }
    };
    let intent = auto.for_eval(&item.intent, &change);
    let prepared = options.prepare(change, repo, intent).map_err(within)?;
    let finished = reviewer.review(prepared.submission).map_err(|e| match e {
        // Refused as it stands: the case's change is at fault.
        CliError::Input(_) => within(e),
        other => CliError::Internal(format!("{}: the review failed: {other}", item.name)),
    })?;
    Ok(match finished.report {
        Some(report) => (report.findings.clone(), report.usage.clone()),
        None => {
            let report = serde_json::from_str::<revu_domain::report::Report>(&finished.json)
                .map_err(|e| {
                    CliError::Internal(format!("{}: its report does not read: {e}", item.name))
                })?;
            (report.findings, report.usage)
        }
    })
}

/// `e`, its message prefixed with the case it concerns.
fn in_case(name: &str, e: CliError) -> CliError {
    let say = |m: String| format!("{name}: {m}");
    match e {
        CliError::Input(m) => CliError::Input(say(m)),
        CliError::Empty(m) => CliError::Empty(say(m)),
        CliError::Unavailable(m) => CliError::Unavailable(say(m)),
        CliError::Internal(m) => CliError::Internal(say(m)),
    }
}

/// The corpus's case files, in path order, then its marked sources as
/// one item. Exit 2 when it has neither.
fn load(dir: &Path) -> Result<Loaded, CliError> {
    if !dir.is_dir() {
        return Err(CliError::Input(format!(
            "{}: not a directory (give the corpus's directory)",
            dir.display()
        )));
    }
    let mut files = Vec::new();
    walk(dir, &mut files)?;
    let relative = |p: &Path| {
        p.strip_prefix(dir)
            .unwrap_or(p)
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/")
    };
    let mut items = Vec::new();
    let mut named = Vec::new();
    for path in files.iter().filter(|p| is_case_file(&file_name(p))) {
        let case = Case::read(path, relative(path))?;
        if let Ok(at) = case.names().canonicalize() {
            named.push(at);
        }
        items.push(Item {
            name: case.name,
            description: case.description,
            change: ItemChange::Case(case.change),
            intent: case.intent,
            window: case.window,
            expected: case.expected,
        });
    }
    let mut marked = Marked::default();
    for path in &files {
        let name = file_name(path);
        if name == "README.md" || name == CORPUS_FILE || is_case_file(&name) {
            continue;
        }
        if let Ok(at) = path.canonicalize()
            && named.iter().any(|n| at.starts_with(n))
        {
            continue;
        }
        let bytes = std::fs::read(path)
            .map_err(|e| CliError::Input(format!("reading {}: {e}", path.display())))?;
        if is_marked(&bytes) {
            marked.add(&relative(path), &bytes)?;
        }
    }
    if marked.files > 0 {
        items.push(Item {
            name: MARKED.to_owned(),
            description: Some(format!(
                "{} marked source file(s), added in one change",
                marked.files
            )),
            change: ItemChange::Marked(marked.patch),
            intent: String::new(),
            window: None,
            expected: marked.expected,
        });
    }
    if items.is_empty() {
        return Err(CliError::Input(format!(
            "{}: no case file (case.toml, *.case.toml) and no marked source (`revu-eval:`) here",
            dir.display()
        )));
    }
    Ok(Loaded {
        items,
        skipped: Vec::new(),
        name: dir.display().to_string(),
        window: CorpusFile::read(dir)?.window,
    })
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Every file under `dir`, in path order; `.git` directories and links
/// are passed over.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), CliError> {
    let failed = |e: std::io::Error| CliError::Input(format!("reading {}: {e}", dir.display()));
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(failed)? {
        let entry = entry.map_err(failed)?;
        entries.push((entry.path(), entry.file_type().map_err(failed)?));
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    for (path, kind) in entries {
        if kind.is_dir() && path.file_name().is_some_and(|n| n != ".git") {
            walk(&path, out)?;
        } else if kind.is_file() {
            out.push(path);
        }
    }
    Ok(())
}
