//! The `revu-worker` binary's configuration, in the layers of
//! [`revu_runtime::config`]: defaults, a TOML file, `REVU_*` environment,
//! flags, then [`WorkerConfig::validate`].

use crate::engines::llm::LlmSettings;
use revu_runtime::config::{ConfigSource, Layered, ServiceSettings, SettingError};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The worker's defaults, written once: its flags, the embedded mode's
/// worker and the documentation all read them from here.
pub mod defaults {
    /// Lanes run at once (`--concurrency`).
    pub const CONCURRENCY: usize = 4;
    /// Seconds before a silent worker's job is reclaimed (`--lease-secs`).
    pub const LEASE_SECS: u64 = 60;
    /// Seconds to finish the lanes in hand after SIGTERM (`--drain-secs`).
    pub const DRAIN_SECS: u64 = 30;
    /// Longest a lane may run, in seconds (`--lane-timeout-secs`).
    pub const LANE_TIMEOUT_SECS: u64 = 600;
    /// Seconds a lane's report stays in the lane result cache, a week
    /// (`--lane-cache-ttl-secs`).
    pub const LANE_CACHE_TTL_SECS: u64 = 7 * 24 * 60 * 60;
    /// Seconds an exec engine's command may run (`--exec-timeout-secs`).
    pub const EXEC_TIMEOUT_SECS: u64 = 300;
    /// Seconds one linter may run on a lane (`--lint-timeout-secs`).
    pub const LINT_TIMEOUT_SECS: u64 = 60;
}

#[derive(Debug, Clone, clap::Parser, Serialize, Deserialize)]
#[command(
    name = "revu-worker",
    version,
    about = "The revu worker: runs review lanes from the queue"
)]
pub struct WorkerConfig {
    #[command(flatten)]
    #[serde(flatten)]
    pub service: ServiceSettings,

    /// Lanes run at once.
    #[arg(long, env = "REVU_CONCURRENCY", default_value_t = defaults::CONCURRENCY)]
    pub concurrency: usize,

    /// Seconds a job may stay unacknowledged on a silent worker before
    /// another worker reclaims it.
    #[arg(long, env = "REVU_LEASE_SECS", default_value_t = defaults::LEASE_SECS)]
    pub lease_secs: u64,

    /// Seconds to finish the lanes in hand after SIGTERM.
    #[arg(long, env = "REVU_DRAIN_SECS", default_value_t = defaults::DRAIN_SECS)]
    pub drain_secs: u64,

    /// Longest a lane may run before it is reported as a transient failure.
    #[arg(long, env = "REVU_LANE_TIMEOUT_SECS", default_value_t = defaults::LANE_TIMEOUT_SECS)]
    pub lane_timeout_secs: u64,

    /// An external command as a review engine, `NAME=COMMAND` (the lane as
    /// JSON on stdin, the report as JSON on stdout). Repeatable (in the
    /// variable, one per line).
    #[arg(long = "exec-engine", env = "REVU_EXEC_ENGINE", value_delimiter = '\n', value_parser = parse_exec_engine)]
    pub exec_engines: Vec<ExecEngineSpec>,

    /// Offer a simulated slow engine, `sleep:MS`, that answers every lane
    /// with an empty report after MS milliseconds (for `revu bench`; the
    /// `noop` engine, which answers at once, is always offered).
    /// Repeatable (in the variable, comma-separated).
    #[arg(
        long = "sleep-engine",
        env = "REVU_SLEEP_ENGINE",
        value_delimiter = ',',
        value_name = "MS"
    )]
    pub sleep_engines: Vec<u64>,

    /// Seconds a lane's report stays in the lane result cache, reused by a
    /// lane whose input is identical (same engine version and settings,
    /// files, patches, head contents, guidance and intent); `0` turns the
    /// cache off. Exec engines never use it.
    #[arg(long, env = "REVU_LANE_CACHE_TTL_SECS", default_value_t = defaults::LANE_CACHE_TTL_SECS)]
    pub lane_cache_ttl_secs: u64,

    /// Seconds an exec engine's command may run before it is killed.
    #[arg(long, env = "REVU_EXEC_TIMEOUT_SECS", default_value_t = defaults::EXEC_TIMEOUT_SECS)]
    pub exec_timeout_secs: u64,

    /// Fault injection for tests: `exit-before-engine` or
    /// `exit-after-engine` makes the process exit while holding a lane.
    #[arg(long, hide = true)]
    pub failpoint: Option<crate::runner::Failpoint>,

    #[command(flatten)]
    pub llm: LlmSettings,

    #[command(flatten)]
    pub lint: crate::engines::lint::LintSettings,

    #[command(flatten)]
    #[serde(skip)]
    pub source: ConfigSource,
}

impl Layered for WorkerConfig {
    fn source(&self) -> &ConfigSource {
        &self.source
    }
    fn keep_skipped(&mut self, parsed: Self) {
        self.source = parsed.source;
        self.llm.api_key = parsed.llm.api_key;
    }
}

/// `--exec-engine NAME=COMMAND`, written the same way in a config file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ExecEngineSpec {
    pub name: String,
    pub command: String,
}

impl TryFrom<String> for ExecEngineSpec {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        parse_exec_engine(&s)
    }
}

impl From<ExecEngineSpec> for String {
    fn from(e: ExecEngineSpec) -> String {
        format!("{}={}", e.name, e.command)
    }
}

impl WorkerConfig {
    pub fn validate(&self) -> Result<(), SettingError> {
        if self.concurrency == 0 || self.concurrency > 1024 {
            return Err(SettingError::Range {
                flag: "--concurrency",
                min: 1,
                max: 1024,
            });
        }
        SettingError::positive("--lane-timeout-secs", self.lane_timeout_secs)?;
        SettingError::positive("--exec-timeout-secs", self.exec_timeout_secs)?;
        SettingError::positive("--lease-secs", self.lease_secs)
    }

    pub fn lease(&self) -> Duration {
        Duration::from_secs(self.lease_secs)
    }

    pub fn lane_timeout(&self) -> Duration {
        Duration::from_secs(self.lane_timeout_secs)
    }

    /// The built-in engines plus the configured exec and llm engines.
    pub async fn engines(&self) -> Result<crate::engines::Engines, EngineSetupError> {
        let mut engines = crate::engines::Engines::built_in(&self.lint);
        for ms in &self.sleep_engines {
            engines = engines.with(std::sync::Arc::new(
                crate::engines::bench::BenchEngine::sleep(*ms),
            ));
        }
        let linters = crate::engines::lint::Linters::new(&self.lint).map(std::sync::Arc::new);
        for llm in self.llm.engines().await? {
            engines = engines.with(std::sync::Arc::new(llm.with_linters(linters.clone())));
        }
        for spec in &self.exec_engines {
            let exec = crate::engines::exec::ExecEngine::new(
                &spec.name,
                &spec.command,
                Duration::from_secs(self.exec_timeout_secs),
                self.lint.env.names(),
            )?;
            engines = engines.with(std::sync::Arc::new(exec));
        }
        Ok(engines)
    }
}

/// Engines the configuration cannot make.
#[derive(Debug, thiserror::Error)]
pub enum EngineSetupError {
    #[error(transparent)]
    Llm(#[from] crate::engines::llm::LlmSetupError),
    #[error(transparent)]
    Exec(#[from] crate::engines::exec::EmptyCommand),
}

fn parse_exec_engine(s: &str) -> Result<ExecEngineSpec, String> {
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
    Ok(ExecEngineSpec {
        name: name.to_owned(),
        command: command.to_owned(),
    })
}
