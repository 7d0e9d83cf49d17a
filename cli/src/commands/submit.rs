//! `revu submit`: send a diff to a coordinator, follow its lanes on stderr,
//! print the report.

use crate::credentials::{TlsArgs, TokenArgs};
use crate::error::CliError;
use crate::follow::{self, Link};
use crate::head::Heads;
use crate::intent::{Intent, IntentArgs, process_env};
use crate::output::{FailOn, Format, emit};
use crate::progress::Progress;
use crate::repo_files::RepoFiles;
use crate::shared_index::{CoordinatorFleet, Fleet, GiveBack};
use crate::source::ChangeArgs;
use revu_domain::report::Rigor;
use revu_proto::v1 as pb;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    change: ChangeArgs,
    #[command(flatten)]
    token: TokenArgs,
    #[command(flatten)]
    tls: TlsArgs,
    /// Coordinator address.
    #[arg(
        long,
        env = "REVU_COORDINATOR",
        default_value = "http://127.0.0.1:50051"
    )]
    coordinator: String,
    /// Report format.
    #[arg(long, value_enum, default_value = "md")]
    format: Format,
    /// Exit 1 iff a finding counts at or above this severity or a lane did
    /// not complete (`never`: always 0); without it the gate decides.
    #[arg(long, value_enum)]
    fail_on: Option<FailOn>,
    /// Review rigor: poc, prototype or production.
    #[arg(long, value_parser = crate::reviewer::parse_rigor)]
    rigor: Option<Rigor>,
    #[command(flatten)]
    intent: IntentArgs,
    /// Resubmitting with the same key returns the same review. Without
    /// one, each run makes a key of its own, under which its own retries
    /// resubmit.
    #[arg(long, default_value = "")]
    idempotency_key: String,
    /// Seconds to wait for the verdict, riding out coordinator restarts
    /// (reconnecting to the same address, resuming the watch); after
    /// that, exit 3.
    #[arg(
        long,
        env = "REVU_SUBMIT_TIMEOUT_SECS",
        default_value_t = 1800,
        value_name = "SECS"
    )]
    timeout: u64,
    /// Run every lane's engine, even where the fleet's lane result cache
    /// holds a report for an identical input.
    #[arg(long)]
    no_cache: bool,
    /// Build the code index from this machine's cache alone: ask the
    /// coordinator for none of the entries it lacks, and send it none of
    /// those it builds.
    #[arg(long, env = "REVU_NO_SHARED_INDEX_CACHE")]
    no_shared_index_cache: bool,
    /// Labels to attach (repeatable).
    #[arg(long = "label")]
    labels: Vec<String>,
    /// Print no progress.
    #[arg(long, short)]
    quiet: bool,
    /// Repository root holding REVIEW.md and revu.toml [default: the current
    /// directory].
    #[arg(long)]
    repo: Option<PathBuf>,
    /// W3C trace context of the calling job (`00-<trace>-<span>-<flags>`),
    /// so its trace contains the review. CI systems that export one set
    /// `TRACEPARENT`.
    #[arg(long, env = "TRACEPARENT", value_parser = parse_traceparent)]
    traceparent: Option<tonic::metadata::MetadataValue<tonic::metadata::Ascii>>,
}

/// Accepts a W3C `traceparent`: version, 32-hex trace id, 16-hex span id, flags.
fn parse_traceparent(
    s: &str,
) -> Result<tonic::metadata::MetadataValue<tonic::metadata::Ascii>, String> {
    let parts: Vec<&str> = s.trim().split('-').collect();
    let hex = |p: &str, n: usize| p.len() == n && p.bytes().all(|b| b.is_ascii_hexdigit());
    match parts.as_slice() {
        [v, t, p, f] if hex(v, 2) && hex(t, 32) && hex(p, 16) && hex(f, 2) => s
            .trim()
            .parse()
            .map_err(|e| format!("traceparent {s:?}: {e}")),
        _ => Err(format!(
            "{s:?} is not a W3C traceparent (00-<32 hex>-<16 hex>-<2 hex>)"
        )),
    }
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let change = args.change.source.read()?;
    let intent = args.intent.gather(&change, &process_env)?;
    let mut heads = change.heads(args.change.head_limits)?;
    if !args.quiet {
        heads.say_skipped();
    }
    let runtime = tokio::runtime::Runtime::new()
        .map_err(|e| CliError::Internal(format!("starting the runtime: {e}")))?;
    revu_runtime::tls::install_crypto_provider();
    let tls = args.tls.config(&args.coordinator)?;
    let mut fleet = if args.no_shared_index_cache {
        None
    } else {
        let channel = {
            let _inside = runtime.enter();
            follow::lazy_channel(&args.coordinator, tls.clone())?
        };
        Some(CoordinatorFleet::new(
            runtime.handle().clone(),
            channel,
            args.token.credentials()?,
        ))
    };
    let built = change.code_index_shared(
        &mut heads,
        &args.change.index,
        fleet.as_mut().map(|f| f as &mut dyn Fleet),
    )?;
    let (code_index, give_back) = match built {
        Some(built) => {
            if !args.quiet && built.cost.fleet.is_some() {
                eprintln!("revu: {}", built.summary());
            }
            let json = serde_json::to_vec(&built.index)
                .map_err(|e| CliError::Internal(format!("encoding the code index: {e}")))?;
            (json, built.give_back.zip(fleet))
        }
        None => (Vec::new(), None),
    };
    // In a work tree, REVIEW.md and revu.toml come from its top.
    let mut repo = RepoFiles::read(args.repo.as_deref().or(change.work_tree.as_deref()))?;
    repo.read_nested(&change.diff)?;
    let diff = change.diff;
    let (format, fail_on) = (args.format, args.fail_on);
    let prepared = Prepared {
        diff,
        heads,
        code_index,
        repo,
        intent,
    };
    let report = runtime.block_on(submit(args, tls, prepared, give_back))?;
    emit(&report, format, fail_on)
}

/// What travels with the review.
struct Prepared {
    diff: Vec<u8>,
    heads: Heads,
    code_index: Vec<u8>,
    repo: RepoFiles,
    intent: Intent,
}

/// Sends the fleet the index cache entries it lacked, on a blocking
/// thread (it reads them from this machine's cache). The line that says
/// how many went, or why sharing stopped.
async fn give_back(
    give_back: GiveBack,
    mut fleet: CoordinatorFleet,
    quiet: bool,
) -> Option<String> {
    if give_back.is_empty() {
        return None;
    }
    let sent = tokio::task::spawn_blocking(move || give_back.send(&mut fleet)).await;
    match sent {
        Ok(Ok(n)) => (!quiet).then(|| {
            let entries = if n == 1 { "entry" } else { "entries" };
            format!("sent the fleet {n} code index cache {entries} it lacked")
        }),
        Ok(Err(e)) => Some(format!("{e}; the fleet was not sent the entries it lacked")),
        Err(e) => Some(format!("sending the fleet its index cache entries: {e}")),
    }
}

async fn submit(
    args: Args,
    tls: Option<crate::credentials::ClientTls>,
    prepared: Prepared,
    sharing: Option<(GiveBack, CoordinatorFleet)>,
) -> Result<String, CliError> {
    let Prepared {
        diff,
        heads,
        code_index,
        repo,
        intent,
    } = prepared;
    let deadline = Instant::now() + Duration::from_secs(args.timeout);
    let mut link = Link::new(&args.coordinator, deadline, args.token.credentials()?, tls)?;
    // The first connection is not retried: nothing was submitted yet, and
    // an address that never answers is a mistake to report at once.
    let client = link.connect().await?;
    let rigor = match args.rigor {
        None => pb::Rigor::Unspecified,
        Some(Rigor::Poc) => pb::Rigor::Poc,
        Some(Rigor::Prototype) => pb::Rigor::Prototype,
        Some(Rigor::Production) => pb::Rigor::Production,
    };
    let head_files = heads
        .files
        .into_iter()
        .map(|(path, content)| pb::HeadFile { path, content })
        .collect();
    // A retried submission must find the review the first one made.
    let idempotency_key = if args.idempotency_key.is_empty() {
        format!("revu-submit-{}", revu_domain::lane::ReviewId::new())
    } else {
        args.idempotency_key
    };
    let request = pb::SubmitReviewRequest {
        diff: diff.into(),
        head_files,
        intent: intent.text,
        intent_sources: intent
            .sources
            .into_iter()
            .map(|s| s.as_str().to_owned())
            .collect(),
        rigor: rigor as i32,
        labels: args.labels,
        idempotency_key,
        conventions: repo.review_md.unwrap_or_default(),
        nested_conventions: repo
            .nested_review_md
            .into_iter()
            .map(|(dir, content)| pb::NestedConventions { dir, content })
            .collect(),
        packages: repo
            .packages
            .into_iter()
            .map(|p| pb::Package {
                dir: p.dir,
                manifest: p.manifest,
            })
            .collect(),
        codeowners: repo.codeowners.map(|c| pb::CodeOwners {
            path: c.path,
            content: c.text,
        }),
        repo_config: repo.revu_toml.unwrap_or_default(),
        no_cache: args.no_cache,
        code_index,
    };
    let quiet = args.quiet;
    // The fleet's entries go while the review runs.
    let shared = tokio::spawn(async move {
        match sharing {
            Some((entries, fleet)) => give_back(entries, fleet, quiet).await,
            None => None,
        }
    });
    let mut progress = Progress::stderr(quiet);
    let followed = async {
        let (client, submitted) =
            follow::submit(&mut link, client, request, args.traceparent, &mut progress).await?;
        progress.review(&submitted.review_id, submitted.existing);
        follow::report(&mut link, client, &submitted.review_id, &mut progress).await
    }
    .await;
    progress.finish();
    if let Ok(Some(line)) = shared.await {
        eprintln!("revu: {line}");
    }
    followed
}
