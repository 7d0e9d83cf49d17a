//! `revu eval corpus DIR`: the reviewer scored on a labelled corpus. Each
//! case file's change is reviewed on its own; the marked sources together,
//! as one change adding them all. Scoring is in [`super::scoring`].

use super::Format;
use super::bar::Bar;
use super::cases::{Case, CaseChange, is_case_file};
use super::commits::repository;
use super::marked::{Marked, is_marked};
use super::render_corpus;
use super::scoring::{Expected, Scored};
use crate::error::CliError;
use crate::intent::AutoIntent;
use crate::repo_files::RepoFiles;
use crate::reviewer::{ReviewOptions, Reviewer};
use crate::source::{Change, Source, revision};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The case name of the marked sources, reviewed as one change.
const MARKED: &str = "marked sources";

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The corpus: a directory of case files and marked sources.
    #[arg(value_name = "DIR")]
    dir: PathBuf,
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
struct Item {
    name: String,
    description: Option<String>,
    change: ItemChange,
    intent: String,
    expected: Expected,
}

#[derive(Debug)]
enum ItemChange {
    Case(CaseChange),
    Marked(Vec<u8>),
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let items = load(&args.dir)?;
    let reviewer = Reviewer::new(&args.review)?;
    let mut scored = Scored::new(args.dir.display().to_string());
    let mut bar = Bar::stderr("cases", items.len());
    for item in items {
        bar.start(&item.name);
        let findings = review(&reviewer, &args.review, args.auto_intent, &item);
        let findings = match findings {
            Ok(f) => f,
            Err(e) => {
                bar.finish();
                return Err(e);
            }
        };
        scored.add(&item.name, item.description, item.expected, &findings);
        bar.advance();
    }
    bar.finish();
    scored.finish();
    super::emit(args.format, &scored, render_corpus::markdown)?;
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

/// The findings of one item's review.
fn review(
    reviewer: &Reviewer,
    options: &ReviewOptions,
    auto: AutoIntent,
    item: &Item,
) -> Result<Vec<revu_domain::finding::Finding>, CliError> {
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
    };
    let intent = auto.for_eval(&item.intent, &change);
    let prepared = options.prepare(change, repo, intent).map_err(within)?;
    let finished = reviewer.review(prepared.submission).map_err(|e| match e {
        // Refused as it stands: the case's change is at fault.
        CliError::Input(_) => within(e),
        other => CliError::Internal(format!("{}: the review failed: {other}", item.name)),
    })?;
    Ok(match finished.report {
        Some(report) => report.findings.clone(),
        None => {
            serde_json::from_str::<revu_domain::report::Report>(&finished.json)
                .map_err(|e| {
                    CliError::Internal(format!("{}: its report does not read: {e}", item.name))
                })?
                .findings
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
fn load(dir: &Path) -> Result<Vec<Item>, CliError> {
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
            expected: case.expected,
        });
    }
    let mut marked = Marked::default();
    for path in &files {
        let name = file_name(path);
        if name == "README.md" || is_case_file(&name) {
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
            expected: marked.expected,
        });
    }
    if items.is_empty() {
        return Err(CliError::Input(format!(
            "{}: no case file (case.toml, *.case.toml) and no marked source (`revu-eval:`) here",
            dir.display()
        )));
    }
    Ok(items)
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
