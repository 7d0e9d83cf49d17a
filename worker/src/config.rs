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

    /// Log as JSON lines instead of human-readable text.
    #[arg(long, env = "REVU_LOG_JSON")]
    pub log_json: bool,

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
        if self.lease_secs == 0 {
            return Err("--lease-secs must be at least 1".into());
        }
        Ok(())
    }

    pub fn lease(&self) -> Duration {
        Duration::from_secs(self.lease_secs)
    }
}
