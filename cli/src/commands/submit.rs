//! `revu submit`: send a diff to a coordinator, follow its lanes on stderr,
//! print the report.

use super::review::{RepoFiles, read_repo};
use crate::error::CliError;
use crate::head::{HeadLimits, Heads};
use crate::output::{FailOn, Format, emit};
use crate::progress::Progress;
use crate::source::Source;
use revu_common::report::Rigor;
use revu_proto::v1 as pb;
use revu_proto::v1::review_service_client::ReviewServiceClient;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
use tonic::Code;
use tonic::transport::Channel;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    source: Source,
    #[command(flatten)]
    head_limits: HeadLimits,
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
    #[arg(long, value_parser = super::review::parse_rigor)]
    rigor: Option<Rigor>,
    /// What the change is meant to do.
    #[arg(long, default_value = "")]
    intent: String,
    /// Resubmitting with the same key returns the same review.
    #[arg(long, default_value = "")]
    idempotency_key: String,
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

fn rpc_error(what: &str, status: tonic::Status) -> CliError {
    let msg = format!("{what}: {}", status.message());
    match status.code() {
        Code::InvalidArgument | Code::NotFound | Code::FailedPrecondition | Code::OutOfRange => {
            CliError::Input(msg)
        }
        _ => CliError::Unavailable(format!("{msg} ({:?})", status.code())),
    }
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let change = args.source.read()?;
    let heads = change.heads(args.head_limits)?;
    if !args.quiet {
        heads.say_skipped();
    }
    // In a work tree, REVIEW.md and revu.toml come from its top.
    let repo = read_repo(args.repo.as_deref().or(change.work_tree.as_deref()))?;
    let diff = change.diff;
    let runtime = tokio::runtime::Runtime::new()
        .map_err(|e| CliError::Internal(format!("starting the runtime: {e}")))?;
    let (format, fail_on) = (args.format, args.fail_on);
    let report = runtime.block_on(submit(args, diff, heads, repo))?;
    emit(&report, format, fail_on)
}

async fn submit(
    args: Args,
    diff: Vec<u8>,
    heads: Heads,
    repo: RepoFiles,
) -> Result<String, CliError> {
    let channel = Channel::from_shared(args.coordinator.clone())
        .map_err(|e| {
            CliError::Input(format!(
                "bad coordinator address {:?}: {e}",
                args.coordinator
            ))
        })?
        .connect_timeout(Duration::from_secs(5))
        .connect()
        .await
        .map_err(|e| {
            CliError::Unavailable(format!(
                "cannot reach coordinator {}: {e}",
                args.coordinator
            ))
        })?;
    let limit = 256 * 1024 * 1024;
    let mut client = ReviewServiceClient::new(channel)
        .max_decoding_message_size(limit)
        .max_encoding_message_size(limit);
    let rigor = match args.rigor {
        None => pb::Rigor::Unspecified,
        Some(Rigor::Poc) => pb::Rigor::Poc,
        Some(Rigor::Prototype) => pb::Rigor::Prototype,
        Some(Rigor::Production) => pb::Rigor::Production,
    };
    let head_files = heads
        .files
        .into_iter()
        .map(|(path, text)| pb::HeadFile {
            path,
            content: text.into_bytes(),
        })
        .collect();
    let mut request = tonic::Request::new(pb::SubmitReviewRequest {
        diff,
        head_files,
        intent: args.intent,
        rigor: rigor as i32,
        labels: args.labels,
        idempotency_key: args.idempotency_key,
        conventions: repo.review_md.unwrap_or_default(),
        repo_config: repo.revu_toml.unwrap_or_default(),
    });
    if let Some(tp) = args.traceparent {
        request.metadata_mut().insert("traceparent", tp);
    }
    let submitted = client
        .submit_review(request)
        .await
        .map_err(|s| rpc_error("submit", s))?
        .into_inner();
    let id = submitted.review_id;
    let mut progress = Progress::stderr(args.quiet);
    progress.review(&id, submitted.existing);
    let mut events = client
        .watch_review(pb::WatchReviewRequest {
            review_id: id.clone(),
        })
        .await
        .map_err(|s| rpc_error("watch", s))?
        .into_inner();
    loop {
        match events.message().await {
            Ok(Some(e)) => progress.event(&e),
            Ok(None) => break,
            Err(s) => {
                progress.finish();
                return Err(rpc_error("watch", s));
            }
        }
    }
    progress.finish();
    let got = client
        .get_review(pb::GetReviewRequest {
            review_id: id.clone(),
        })
        .await
        .map_err(|s| rpc_error("get", s))?
        .into_inner();
    match pb::ReviewState::try_from(got.state) {
        Ok(pb::ReviewState::Finished) => Ok(got.report_json),
        Ok(pb::ReviewState::Cancelled) => {
            Err(CliError::Unavailable(format!("review {id} was cancelled")))
        }
        _ => Err(CliError::Unavailable(format!(
            "review {id} is still running ({}/{} lanes settled); the event stream ended early",
            got.lanes_settled, got.lanes_total
        ))),
    }
}
