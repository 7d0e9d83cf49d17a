//! `revu index`: the code index of a git change, as JSON; with `--stats`,
//! what building it cost, beside a reference pass that reads the same
//! files without parsing them, measured in the same run.

use crate::error::CliError;
use crate::source::ChangeArgs;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    change: ChangeArgs,
    /// Print what the index cost (files, seconds, files/s, MiB/s, peak
    /// RSS, and the ratio to reading the same files alone) instead of the
    /// index.
    #[arg(long)]
    stats: bool,
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let change = args.change.source.read()?;
    if change.work_tree.is_none() {
        return Err(CliError::Input(
            "revu index reads a git change: run it in a repository, without --diff".into(),
        ));
    }
    let mut heads = change.heads(args.change.head_limits)?;
    let reference = if args.stats {
        Some(change.read_only()?)
    } else {
        None
    };
    let Some((index, cost)) = change.code_index(&mut heads, &args.change.index)? else {
        return Err(CliError::Input("--no-index leaves nothing to print".into()));
    };
    let failed = |e: serde_json::Error| CliError::Internal(format!("writing the index: {e}"));
    let text = match reference {
        None => serde_json::to_string_pretty(&index).map_err(failed)?,
        Some(read) => {
            let secs = cost.elapsed.as_secs_f64().max(1e-9);
            let read_secs = read.elapsed.as_secs_f64().max(1e-9);
            let mib = cost.bytes as f64 / (1024.0 * 1024.0);
            let stats = serde_json::json!({
                "files": index.stats.files,
                "languages": index.stats.languages,
                "with_errors": index.stats.with_errors,
                "skipped": index.stats.skipped,
                "bytes": cost.bytes,
                "seconds": round(secs),
                "files_per_sec": round(index.stats.files as f64 / secs),
                "mib_per_sec": round(mib / secs),
                "peak_rss_mib": peak_rss_mib(),
                "read_only_seconds": round(read_secs),
                "index_vs_read_only": round(secs / read_secs),
                "changed_files": index.files.len(),
                "stale_uses": index.omissions.iter().filter(|o| o.doubt.is_none()).count(),
                "unconfirmed_uses": index.omissions.iter().filter(|o| o.doubt.is_some()).count(),
                "tree": cost.tree.as_str(),
                "cache": cost.cache.map(|c| serde_json::json!({
                    "hits": c.hits,
                    "misses": c.misses,
                    "rejected": c.rejected,
                    "written": c.written,
                    "write_failures": c.write_failures,
                })),
            });
            serde_json::to_string_pretty(&stats).map_err(failed)?
        }
    };
    println!("{text}");
    Ok(ExitCode::SUCCESS)
}

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The process's peak resident set, from `/proc/self/status` (Linux).
fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(round(kib / 1024.0))
}
