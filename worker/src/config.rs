//! The `revu-worker` binary's configuration: defaults, `REVU_*` environment,
//! flags.

use serde::Serialize;
use std::time::Duration;

#[derive(Debug, Clone, clap::Parser, Serialize)]
#[command(
    name = "revu-worker",
    version,
    about = "The revu worker: runs review lanes from the queue"
)]
pub struct WorkerConfig {
    /// Redis URL.
    #[arg(long, env = "REVU_REDIS_URL", default_value = "redis://127.0.0.1:6379")]
    pub redis: String,

    /// Prefix of every Redis key revu uses.
    #[arg(long, env = "REVU_KEY_PREFIX", default_value = "revu")]
    pub key_prefix: String,

    /// Lanes run at once.
    #[arg(long, env = "REVU_CONCURRENCY", default_value_t = 4)]
    pub concurrency: usize,

    /// Seconds a job may stay unacknowledged on a silent worker before
    /// another worker reclaims it.
    #[arg(long, env = "REVU_LEASE_SECS", default_value_t = 60)]
    pub lease_secs: u64,

    /// Seconds to finish the lanes in hand after SIGTERM.
    #[arg(long, env = "REVU_DRAIN_SECS", default_value_t = 30)]
    pub drain_secs: u64,

    /// Longest a lane may run before it is reported as a transient failure.
    #[arg(long, env = "REVU_LANE_TIMEOUT_SECS", default_value_t = 600)]
    pub lane_timeout_secs: u64,

    /// An external command as a review engine, `NAME=COMMAND` (the lane as
    /// JSON on stdin, the report as JSON on stdout). Repeatable.
    #[arg(long = "exec-engine", value_parser = parse_exec_engine)]
    pub exec_engines: Vec<(String, String)>,

    /// Seconds an exec engine's command may run before it is killed.
    #[arg(long, env = "REVU_EXEC_TIMEOUT_SECS", default_value_t = 300)]
    pub exec_timeout_secs: u64,

    /// Fault injection for tests: `exit-before-engine` or
    /// `exit-after-engine` makes the process exit while holding a lane.
    #[arg(long, hide = true)]
    pub failpoint: Option<crate::runner::Failpoint>,

    /// Log as JSON lines instead of human-readable text.
    #[arg(long, env = "REVU_LOG_JSON")]
    pub log_json: bool,

    /// Address to serve Prometheus metrics on (`/metrics`); off when unset.
    #[arg(long, env = "REVU_METRICS_LISTEN")]
    pub metrics_listen: Option<std::net::SocketAddr>,

    /// Print the effective configuration as JSON and exit.
    #[arg(long)]
    #[serde(skip)]
    pub dump_config: bool,
}

impl WorkerConfig {
    pub fn validate(&self) -> Result<(), String> {
        if self.concurrency == 0 || self.concurrency > 1024 {
            return Err("--concurrency must be between 1 and 1024".into());
        }
        if self.lane_timeout_secs == 0 || self.exec_timeout_secs == 0 {
            return Err("--lane-timeout-secs and --exec-timeout-secs must be at least 1".into());
        }
        if self.lease_secs == 0 {
            return Err("--lease-secs must be at least 1".into());
        }
        Ok(())
    }

    pub fn lease(&self) -> Duration {
        Duration::from_secs(self.lease_secs)
    }

    pub fn lane_timeout(&self) -> Duration {
        Duration::from_secs(self.lane_timeout_secs)
    }

    /// The built-in engines plus the configured exec engines.
    pub fn engines(&self) -> Result<crate::engines::Engines, String> {
        let mut engines = crate::engines::Engines::default();
        for (name, command) in &self.exec_engines {
            let exec = crate::engines::exec::ExecEngine::new(
                name,
                command,
                Duration::from_secs(self.exec_timeout_secs),
            )?;
            engines = engines.with(Box::new(exec));
        }
        Ok(engines)
    }
}

fn parse_exec_engine(s: &str) -> Result<(String, String), String> {
    let (name, command) = s
        .split_once('=')
        .ok_or_else(|| format!("{s:?} is not NAME=COMMAND"))?;
    if name.is_empty()
        || !name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
    {
        return Err(format!(
            "engine name {name:?} must be a-z, 0-9, '-' and '_'"
        ));
    }
    if command.trim().is_empty() {
        return Err(format!("engine {name} has an empty command"));
    }
    Ok((name.to_owned(), command.to_owned()))
}
