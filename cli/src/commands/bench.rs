//! `revu bench`: a load generator for a running fleet. It submits N
//! synthetic reviews from C concurrent gRPC streams, follows each to its
//! verdict, and measures, in the same run on the same Redis with the same
//! concurrency, a raw Redis Streams round trip (XADD, XREADGROUP, XACK of
//! a job-sized payload) to compare the fleet's lane rate with.

use crate::credentials::{TlsArgs, TokenArgs};
use crate::error::CliError;
use crate::follow::{self, Link};
use crate::progress::Progress;
use revu_proto::v1 as pb;
use std::fmt::Write as _;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Coordinator address.
    #[arg(
        long,
        env = "REVU_COORDINATOR",
        default_value = "http://127.0.0.1:50051"
    )]
    coordinator: String,
    /// The fleet's Redis, for the baseline round trips (`rediss://` for
    /// TLS).
    #[arg(long, env = "REVU_REDIS_URL", default_value = revu_runtime::config::DEFAULT_REDIS_URL)]
    redis: String,
    /// PEM CA certificates of a `rediss://` Redis, instead of the system
    /// roots.
    #[arg(long, env = "REVU_REDIS_CA_CERT", value_name = "FILE")]
    redis_ca_cert: Option<std::path::PathBuf>,
    /// PEM client certificate for the Redis (with `--redis-client-key`).
    #[arg(long, env = "REVU_REDIS_CLIENT_CERT", value_name = "FILE")]
    redis_client_cert: Option<std::path::PathBuf>,
    /// PEM private key of `--redis-client-cert`.
    #[arg(long, env = "REVU_REDIS_CLIENT_KEY", value_name = "FILE")]
    redis_client_key: Option<std::path::PathBuf>,
    /// A file holding the Redis password, instead of the URL's.
    #[arg(long, env = "REVU_REDIS_PASSWORD_FILE", value_name = "FILE")]
    redis_password_file: Option<std::path::PathBuf>,
    /// The Redis is a Redis Cluster; `--redis` names seed nodes.
    #[arg(long, env = "REVU_REDIS_CLUSTER")]
    redis_cluster: bool,
    /// Reviews to submit.
    #[arg(long, default_value_t = 100)]
    reviews: usize,
    /// Reviews in flight at once (gRPC streams).
    #[arg(long, default_value_t = 8)]
    concurrency: usize,
    /// Changed files per synthetic review.
    #[arg(long, default_value_t = 1)]
    files: usize,
    /// `text` or `json`.
    #[arg(long, default_value = "text", value_parser = ["text", "json"])]
    format: String,
    /// Seconds the whole run may take.
    #[arg(long, default_value_t = 600)]
    timeout: u64,
    #[command(flatten)]
    token: TokenArgs,
    #[command(flatten)]
    tls: TlsArgs,
}

/// Bytes of the baseline's payload: about a lane job as it sits on a
/// stream (review id, lane spec with a few paths, deadline, trace context).
const JOB_BYTES: usize = 700;

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    if args.reviews == 0 || args.concurrency == 0 || args.files == 0 {
        return Err(CliError::Input(
            "--reviews, --concurrency and --files must be at least 1".into(),
        ));
    }
    let runtime = tokio::runtime::Runtime::new()
        .map_err(|e| CliError::Internal(format!("starting the runtime: {e}")))?;
    revu_runtime::tls::install_crypto_provider();
    let tls = args.tls.config(&args.coordinator)?;
    let figures = runtime.block_on(measure(&args, tls))?;
    let out = if args.format == "json" {
        serde_json::to_string_pretty(&figures)
            .map_err(|e| CliError::Internal(format!("encoding the figures: {e}")))?
    } else {
        text(&figures)
    };
    println!("{out}");
    Ok(ExitCode::SUCCESS)
}

async fn measure(
    args: &Args,
    tls: Option<crate::credentials::ClientTls>,
) -> Result<serde_json::Value, CliError> {
    let deadline = Instant::now() + Duration::from_secs(args.timeout);
    let credentials = args.token.credentials()?;
    let link = Link::new(
        &args.coordinator,
        deadline,
        credentials.clone(),
        tls.clone(),
    )?;
    link.connect().await?;
    let started = Instant::now();
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut tasks = Vec::new();
    let run = uuid_like();
    for _ in 0..args.concurrency {
        let (next, total, files, address, credentials, tls) = (
            next.clone(),
            args.reviews,
            args.files,
            args.coordinator.clone(),
            credentials.clone(),
            tls.clone(),
        );
        let run = run.clone();
        tasks.push(tokio::spawn(async move {
            let mut link = Link::new(&address, deadline, credentials, tls)?;
            let mut client = link.connect().await?;
            let mut done: Vec<(Duration, usize)> = Vec::new();
            let mut progress = Progress::new(std::io::sink(), true, false);
            loop {
                let n = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                if n >= total {
                    return Ok::<_, CliError>(done);
                }
                let asked = Instant::now();
                let request = pb::SubmitReviewRequest {
                    diff: synthetic_diff(&run, n, files).into_bytes().into(),
                    idempotency_key: format!("bench-{run}-{n}"),
                    ..pb::SubmitReviewRequest::default()
                };
                let (c, accepted) =
                    follow::submit(&mut link, client, request, None, &mut progress).await?;
                let report =
                    follow::report(&mut link, c.clone(), &accepted.review_id, &mut progress)
                        .await?;
                client = c;
                let lanes = serde_json::from_str::<serde_json::Value>(&report)
                    .ok()
                    .and_then(|r| r["lanes"].as_array().map(Vec::len))
                    .unwrap_or(0);
                done.push((asked.elapsed(), lanes));
            }
        }));
    }
    let mut results = Vec::new();
    for t in tasks {
        let done = t
            .await
            .map_err(|e| CliError::Internal(format!("a bench stream failed: {e}")))??;
        results.extend(done);
    }
    let wall = started.elapsed().as_secs_f64();
    let lanes: usize = results.iter().map(|(_, l)| l).sum();
    let mut latencies: Vec<f64> = results.iter().map(|(d, _)| d.as_secs_f64() * 1e3).collect();
    latencies.sort_by(f64::total_cmp);
    let pct = |p: f64| {
        let i = ((latencies.len() as f64 - 1.0) * p).round() as usize;
        latencies.get(i).copied().unwrap_or(0.0)
    };
    let round_trips = lanes.max(args.reviews).max(200);
    let options = revu_queue::redis::RedisOptions {
        ca_cert: args.redis_ca_cert.clone(),
        client_cert: args.redis_client_cert.clone(),
        client_key: args.redis_client_key.clone(),
        password_file: args.redis_password_file.clone(),
        cluster: args.redis_cluster,
    };
    let baseline = baseline(&args.redis, &options, args.concurrency, round_trips).await?;
    let lanes_per_sec = lanes as f64 / wall;
    Ok(serde_json::json!({
        "reviews": results.len(),
        "concurrency": args.concurrency,
        "files": args.files,
        "lanes": lanes,
        "seconds": round3(wall),
        "reviews_per_sec": round3(results.len() as f64 / wall),
        "lanes_per_sec": round3(lanes_per_sec),
        "latency_ms": {"p50": round3(pct(0.50)), "p95": round3(pct(0.95)), "p99": round3(pct(0.99))},
        "baseline_roundtrips_per_sec": round3(baseline),
        "lanes_vs_baseline": round3(if baseline > 0.0 { lanes_per_sec / baseline } else { 0.0 }),
    }))
}

/// Raw Redis Streams round trips per second: `concurrency` tasks, each
/// adding a job-sized entry, reading one through a consumer group and
/// acknowledging it, `total` in all, on a stream of the run's own (removed
/// after).
async fn baseline(
    url: &str,
    options: &revu_queue::redis::RedisOptions,
    concurrency: usize,
    total: usize,
) -> Result<f64, CliError> {
    let shown = revu_runtime::config::redact_url(url);
    let unavailable = |e: redis::RedisError| CliError::Unavailable(format!("redis {shown}: {e}"));
    let connect = || async {
        revu_queue::redis::connection(url, options)
            .await
            .map_err(|e| match e {
                revu_queue::QueueError::Redis(e) => unavailable(e),
                other => CliError::Input(format!("--redis {shown}: {other}")),
            })
    };
    let mut conn = connect().await?;
    // One slot, on a cluster too.
    let stream = format!("{{revu-bench:{}}}", uuid_like());
    redis::cmd("XGROUP")
        .arg("CREATE")
        .arg(&stream)
        .arg("g")
        .arg("$")
        .arg("MKSTREAM")
        .query_async::<()>(&mut conn)
        .await
        .map_err(unavailable)?;
    let payload = "x".repeat(JOB_BYTES);
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for worker in 0..concurrency {
        // A connection each, as each worker has its own.
        let mut conn = connect().await?;
        let (stream, payload, next) = (stream.clone(), payload.clone(), next.clone());
        tasks.push(tokio::spawn(async move {
            while next.fetch_add(1, std::sync::atomic::Ordering::SeqCst) < total {
                redis::cmd("XADD")
                    .arg(&stream)
                    .arg("*")
                    .arg("payload")
                    .arg(&payload)
                    .query_async::<()>(&mut conn)
                    .await?;
                let read: redis::streams::StreamReadReply = redis::cmd("XREADGROUP")
                    .arg("GROUP")
                    .arg("g")
                    .arg(format!("c{worker}"))
                    .arg("COUNT")
                    .arg(1)
                    .arg("STREAMS")
                    .arg(&stream)
                    .arg(">")
                    .query_async(&mut conn)
                    .await?;
                for key in read.keys {
                    for entry in key.ids {
                        redis::cmd("XACK")
                            .arg(&stream)
                            .arg("g")
                            .arg(&entry.id)
                            .query_async::<()>(&mut conn)
                            .await?;
                    }
                }
            }
            Ok::<_, redis::RedisError>(())
        }));
    }
    for t in tasks {
        t.await
            .map_err(|e| CliError::Internal(format!("a baseline task failed: {e}")))?
            .map_err(unavailable)?;
    }
    let rate = total as f64 / started.elapsed().as_secs_f64();
    let _ = redis::cmd("DEL")
        .arg(&stream)
        .query_async::<()>(&mut conn)
        .await;
    Ok(rate)
}

/// A review's diff of `files` new files, distinct per run and review.
fn synthetic_diff(run: &str, n: usize, files: usize) -> String {
    let mut diff = String::new();
    for f in 0..files {
        let path = format!("bench/{run}/r{n}/f{f}.txt");
        let _ = write!(
            diff,
            "diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n\
             @@ -0,0 +1 @@\n+line {n}.{f}\n"
        );
    }
    diff
}

fn uuid_like() -> String {
    revu_domain::lane::ReviewId::new().0
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn text(f: &serde_json::Value) -> String {
    format!(
        "reviews {} ({} in flight, {} file(s) each) in {} s\n\
         reviews/s {}  lanes/s {}\n\
         latency ms  p50 {}  p95 {}  p99 {}\n\
         redis round trips/s {}  lanes vs baseline {}",
        f["reviews"],
        f["concurrency"],
        f["files"],
        f["seconds"],
        f["reviews_per_sec"],
        f["lanes_per_sec"],
        f["latency_ms"]["p50"],
        f["latency_ms"]["p95"],
        f["latency_ms"]["p99"],
        f["baseline_roundtrips_per_sec"],
        f["lanes_vs_baseline"]
    )
}
