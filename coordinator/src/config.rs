//! The coordinator's configuration: defaults, then `REVU_*` environment, then
//! flags (clap applies both), then [`CoordinatorConfig::validate`].

use clap::Args;
use revu_common::retry::RetryPolicy;
use serde::Serialize;
use std::net::SocketAddr;
use std::time::Duration;

/// How reviews run, independent of where the backend lives.
#[derive(Debug, Clone, Args, Serialize)]
pub struct ReviewSettings {
    /// Engine that runs every lane.
    #[arg(long, env = "REVU_ENGINE", default_value = "rules")]
    pub engine: String,

    /// Largest accepted diff, in bytes.
    #[arg(long, env = "REVU_MAX_DIFF_BYTES", default_value_t = 64 * 1024 * 1024)]
    pub max_diff_bytes: usize,

    /// Files per domain slice before the slice splits.
    #[arg(long, env = "REVU_MAX_SLICE_FILES", default_value_t = 40)]
    pub max_slice_files: usize,

    /// Attempts per lane, the first included.
    #[arg(long, env = "REVU_LANE_ATTEMPTS", default_value_t = 3)]
    pub lane_attempts: u32,

    /// Backoff before a lane's second attempt, in milliseconds (doubles after).
    #[arg(long, env = "REVU_RETRY_BASE_MS", default_value_t = 500)]
    pub retry_base_ms: u64,

    /// Time a review may take before missing lanes fault, in seconds.
    #[arg(long, env = "REVU_REVIEW_TIMEOUT_SECS", default_value_t = 600)]
    pub review_timeout_secs: u64,

    /// Reviews running at once before submissions get RESOURCE_EXHAUSTED.
    #[arg(long, env = "REVU_MAX_INFLIGHT", default_value_t = 1000)]
    pub max_inflight: usize,
}

impl ReviewSettings {
    pub fn retry(&self) -> RetryPolicy {
        RetryPolicy {
            max_attempts: self.lane_attempts,
            base_delay_ms: self.retry_base_ms,
            max_delay_ms: 30_000,
        }
    }

    pub fn review_timeout(&self) -> Duration {
        Duration::from_secs(self.review_timeout_secs)
    }

    pub fn validate(&self) -> Result<(), String> {
        if self.lane_attempts == 0 {
            return Err("--lane-attempts must be at least 1".into());
        }
        if self.max_slice_files == 0 {
            return Err("--max-slice-files must be at least 1".into());
        }
        if self.review_timeout_secs == 0 {
            return Err("--review-timeout-secs must be at least 1".into());
        }
        if self.max_inflight == 0 {
            return Err("--max-inflight must be at least 1".into());
        }
        if self.engine != "rules" {
            return Err(format!(
                "unknown engine {:?}; known engines: rules",
                self.engine
            ));
        }
        Ok(())
    }
}

impl Default for ReviewSettings {
    fn default() -> Self {
        ReviewSettings {
            engine: "rules".into(),
            max_diff_bytes: 64 * 1024 * 1024,
            max_slice_files: 40,
            lane_attempts: 3,
            retry_base_ms: 500,
            review_timeout_secs: 600,
            max_inflight: 1000,
        }
    }
}

/// The `revu-coordinator` binary's configuration.
#[derive(Debug, Clone, clap::Parser, Serialize)]
#[command(
    name = "revu-coordinator",
    version,
    about = "The revu coordinator: gRPC API and review stages"
)]
pub struct CoordinatorConfig {
    /// Address the gRPC server listens on.
    #[arg(long, env = "REVU_LISTEN", default_value = "127.0.0.1:50051")]
    pub listen: SocketAddr,

    /// Redis URL.
    #[arg(long, env = "REVU_REDIS_URL", default_value = "redis://127.0.0.1:6379")]
    pub redis: String,

    /// Prefix of every Redis key revu uses.
    #[arg(long, env = "REVU_KEY_PREFIX", default_value = "revu")]
    pub key_prefix: String,

    /// Log as JSON lines instead of human-readable text.
    #[arg(long, env = "REVU_LOG_JSON")]
    pub log_json: bool,

    /// Print the effective configuration as JSON and exit.
    #[arg(long)]
    #[serde(skip)]
    pub dump_config: bool,

    #[command(flatten)]
    pub review: ReviewSettings,
}
