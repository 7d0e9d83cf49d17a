//! The coordinator's configuration, in the layers of
//! [`revu_runtime::config`]: defaults (written once, in the `Default` impls
//! here), a TOML file, `REVU_*` environment, flags, then `validate`.

use clap::Args;
use revu_domain::facts::SkipFiles;
use revu_domain::retry::RetryPolicy;
use revu_queue::index_cache::IndexCacheLimits;
use revu_runtime::config::{ConfigSource, Layered, ServiceSettings, SettingError};
use revu_stages::prepare::{
    LaneEngine, NO_ADJUDICATION, PlanSettings, parse_lane_engine, valid_engine_name,
};
use serde::{Deserialize, Serialize};
use std::net::SocketAddr;
use std::time::Duration;

mod invalid;

pub use invalid::InvalidConfig;
use invalid::as_u64;

/// What a review is asked to do, the same on a coordinator and in `revu
/// review`: the engines of its lanes, which files it leaves out and what
/// it may spend.
#[derive(Debug, Clone, Args, Serialize, Deserialize)]
pub struct ReviewChoices {
    /// Engine of the lanes (on a coordinator, of those no `--lane-engine`
    /// names): `rules` (built in, offline), `llm` (a model, with
    /// `--llm-provider` and `--llm-model`), or another engine the workers
    /// offer.
    #[arg(long, env = "REVU_ENGINE", value_name = "ENGINE", default_value_t = ReviewChoices::default().engine)]
    pub engine: String,

    /// Engine of the adjudication lane, which re-tries every verified
    /// BLOCKER and IMPORTANT finding before the verdict (`rules`: confirm a
    /// finding if its rule still fires, else drop it; `llm`: a model
    /// confirms, downgrades or drops each, with reasons and evidence);
    /// `none` turns it off. Unset: on whenever a model engine reviews
    /// lanes, with that engine; off for reviews without a model.
    #[arg(long, env = "REVU_ADJUDICATE", value_name = "ENGINE")]
    pub adjudicate: Option<String>,

    /// Most tokens (input and output) the lanes of one review may spend
    /// together on model services; a lane that would go over stops, and is
    /// INCOMPLETE with what it did not send. No cap when unset.
    #[arg(long, env = "REVU_REVIEW_TOKEN_CAP", value_name = "TOKENS")]
    pub review_token_cap: Option<u64>,

    /// Changed files left out of the lanes (and listed in the report's
    /// coverage): `generated`, `vendored`, `lock` (dependency lock files),
    /// comma-separated, or `none` to review every file.
    #[arg(long, env = "REVU_SKIP_FILES", value_name = "KINDS", default_value_t = SkipFiles::default())]
    pub skip_files: SkipFiles,

    /// Engine of the grouping lane, which refines the deterministic domain
    /// slices (move, split, merge, rename files between them) before the
    /// domain lanes start (`rules`: keep the deterministic slices; `llm`: a
    /// model proposes); slices that are not an exact cover of the change
    /// are refused and the proposal used. Off when unset.
    #[arg(long, env = "REVU_REFINE_GROUPING", value_name = "ENGINE")]
    pub refine_grouping: Option<String>,

    /// Engine of the synthesis lane, which writes the report's walkthrough
    /// and a line per changed file once every other lane settled (`rules`:
    /// from the diff and the findings; `llm`: a model); it has no say over
    /// findings or verdict. Off when unset.
    #[arg(long, env = "REVU_SYNTHESIZE", value_name = "ENGINE")]
    pub synthesize: Option<String>,
}

impl Default for ReviewChoices {
    fn default() -> Self {
        ReviewChoices {
            engine: "rules".into(),
            adjudicate: None,
            review_token_cap: None,
            skip_files: SkipFiles::default(),
            refine_grouping: None,
            synthesize: None,
        }
    }
}

impl ReviewChoices {
    /// The engines of the optional lanes that are on, with their flags.
    pub fn optional_engines(&self) -> impl Iterator<Item = (&'static str, &str)> {
        [
            (
                "--adjudicate",
                self.adjudicate.as_deref().filter(|e| *e != NO_ADJUDICATION),
            ),
            ("--refine-grouping", self.refine_grouping.as_deref()),
            ("--synthesize", self.synthesize.as_deref()),
        ]
        .into_iter()
        .filter_map(|(flag, engine)| engine.map(|e| (flag, e)))
    }
}

/// How reviews run, independent of where the backend lives.
#[derive(Debug, Clone, Args, Serialize, Deserialize)]
pub struct ReviewSettings {
    #[command(flatten)]
    #[serde(flatten)]
    pub choices: ReviewChoices,

    /// Engines that reach a model, for adjudication's default: the
    /// workers' `llm` engine; `revu review` names each model engine it
    /// has.
    #[arg(skip = default_model_engines())]
    #[serde(skip, default = "default_model_engines")]
    pub model_engines: Vec<String>,

    /// Engine for matching lanes, as `LANE=ENGINE`; `LANE` is a lane id
    /// (`specialist:security`) or a prefix ending in `*` (`domain:*`).
    /// Repeatable (in the variable, comma-separated); the first match wins.
    #[arg(long = "lane-engine", env = "REVU_LANE_ENGINE", value_delimiter = ',', value_parser = parse_lane_engine)]
    pub lane_engines: Vec<LaneEngine>,

    /// Retry policy of an engine, as `ENGINE=ATTEMPTS[:BASE_MS]`; engines
    /// not named use `--lane-attempts` and `--retry-base-ms`. Repeatable
    /// (in the variable, comma-separated).
    #[arg(long = "engine-retry", env = "REVU_ENGINE_RETRY", value_delimiter = ',', value_parser = parse_engine_retry)]
    pub engine_retries: Vec<EngineRetry>,

    /// Seconds a lane report may stay unacknowledged on a coordinator
    /// before another coordinator takes it over.
    #[arg(long, env = "REVU_RECLAIM_IDLE_SECS", default_value_t = defaults().reclaim_idle_secs)]
    pub reclaim_idle_secs: u64,

    /// Largest accepted diff, in bytes.
    #[arg(long, env = "REVU_MAX_DIFF_BYTES", default_value_t = defaults().max_diff_bytes)]
    pub max_diff_bytes: usize,

    /// Most changed files one review may have.
    #[arg(long, env = "REVU_MAX_FILES", default_value_t = defaults().max_files)]
    pub max_files: usize,

    /// Most changed lines (added and removed) one file of a diff may have.
    #[arg(long, env = "REVU_MAX_FILE_LINES", default_value_t = defaults().max_file_lines)]
    pub max_file_lines: usize,

    /// Largest head file a submission may carry, in bytes.
    #[arg(long, env = "REVU_MAX_HEAD_FILE_BYTES", default_value_t = defaults().max_head_file_bytes)]
    pub max_head_file_bytes: usize,

    /// Most head-file bytes one submission may carry.
    #[arg(long, env = "REVU_MAX_HEAD_BYTES", default_value_t = defaults().max_head_bytes)]
    pub max_head_bytes: usize,

    /// Largest code index (its JSON) a submission may carry, in bytes.
    #[arg(long, env = "REVU_MAX_INDEX_BYTES", default_value_t = defaults().max_index_bytes)]
    pub max_index_bytes: usize,

    /// Most lanes one review may plan.
    #[arg(long, env = "REVU_MAX_LANES", default_value_t = defaults().max_lanes)]
    pub max_lanes: usize,

    /// Largest lane report a worker may send, in bytes; a larger one faults
    /// its lane.
    #[arg(long, env = "REVU_MAX_REPORT_BYTES", default_value_t = defaults().max_report_bytes)]
    pub max_report_bytes: usize,

    /// Files per domain slice before the slice splits.
    #[arg(long, env = "REVU_MAX_SLICE_FILES", default_value_t = defaults().max_slice_files)]
    pub max_slice_files: usize,

    /// Attempts per lane, the first included.
    #[arg(long, env = "REVU_LANE_ATTEMPTS", default_value_t = defaults().lane_attempts)]
    pub lane_attempts: u32,

    /// Backoff before a lane's second attempt, in milliseconds (doubles after).
    #[arg(long, env = "REVU_RETRY_BASE_MS", default_value_t = defaults().retry_base_ms)]
    pub retry_base_ms: u64,

    /// Time a review may take before missing lanes fault, in seconds.
    #[arg(long, env = "REVU_REVIEW_TIMEOUT_SECS", default_value_t = defaults().review_timeout_secs)]
    pub review_timeout_secs: u64,

    /// Reviews running at once before submissions get RESOURCE_EXHAUSTED.
    #[arg(long, env = "REVU_MAX_INFLIGHT", default_value_t = defaults().max_inflight)]
    pub max_inflight: usize,
}

impl ReviewSettings {
    /// Largest gRPC request the server decodes: a diff and head files at
    /// their limits, and room for the rest of the request.
    pub fn max_request_bytes(&self) -> usize {
        self.max_diff_bytes
            .saturating_add(self.max_head_bytes)
            .saturating_add(self.max_index_bytes)
            .saturating_add(1024 * 1024)
    }

    /// The retry policy of lanes run by `engine`.
    pub fn retry_for(&self, engine: &str) -> RetryPolicy {
        match self.engine_retries.iter().find(|r| r.engine == engine) {
            Some(r) => r.policy,
            None => RetryPolicy {
                max_attempts: self.lane_attempts,
                base_delay_ms: self.retry_base_ms,
                max_delay_ms: 30_000,
            },
        }
    }

    /// What planning a review takes from these settings.
    pub fn plan(&self) -> PlanSettings {
        PlanSettings {
            engine: self.choices.engine.clone(),
            lane_engines: self.lane_engines.clone(),
            skip_files: self.choices.skip_files.clone(),
            adjudicate: self.choices.adjudicate.clone(),
            model_engines: self.model_engines.clone(),
            refine_grouping: self.choices.refine_grouping.clone(),
            synthesize: self.choices.synthesize.clone(),
            review_token_cap: self.choices.review_token_cap,
            max_files: self.max_files,
            max_file_lines: self.max_file_lines,
            max_lanes: self.max_lanes,
        }
    }

    pub fn reclaim_idle(&self) -> Duration {
        Duration::from_secs(self.reclaim_idle_secs)
    }

    pub fn review_timeout(&self) -> Duration {
        Duration::from_secs(self.review_timeout_secs)
    }

    pub fn validate(&self) -> Result<(), InvalidConfig> {
        let positive = [
            ("--lane-attempts", u64::from(self.lane_attempts)),
            ("--max-slice-files", as_u64(self.max_slice_files)),
            ("--review-timeout-secs", self.review_timeout_secs),
            ("--max-inflight", as_u64(self.max_inflight)),
            ("--max-diff-bytes", as_u64(self.max_diff_bytes)),
            ("--max-files", as_u64(self.max_files)),
            ("--max-file-lines", as_u64(self.max_file_lines)),
            ("--max-lanes", as_u64(self.max_lanes)),
            ("--max-report-bytes", as_u64(self.max_report_bytes)),
            ("--reclaim-idle-secs", self.reclaim_idle_secs),
        ];
        for (flag, value) in positive {
            SettingError::positive(flag, value)?;
        }
        let engines = std::iter::once(("--engine", self.choices.engine.as_str()))
            .chain(self.choices.optional_engines());
        for (flag, engine) in engines {
            valid_engine_name(engine).map_err(|source| InvalidConfig::Engine { flag, source })?;
        }
        Ok(())
    }
}

fn defaults() -> ReviewSettings {
    ReviewSettings::default()
}

fn default_model_engines() -> Vec<String> {
    vec!["llm".to_owned()]
}

/// The one place the review defaults are written; the flags show them.
impl Default for ReviewSettings {
    fn default() -> Self {
        ReviewSettings {
            choices: ReviewChoices::default(),
            model_engines: default_model_engines(),
            lane_engines: Vec::new(),
            engine_retries: Vec::new(),
            reclaim_idle_secs: 10,
            max_diff_bytes: 64 * 1024 * 1024,
            max_files: 20_000,
            max_file_lines: 500_000,
            max_head_file_bytes: 4 * 1024 * 1024,
            max_head_bytes: 64 * 1024 * 1024,
            max_index_bytes: 16 * 1024 * 1024,
            max_lanes: 500,
            max_report_bytes: 32 * 1024 * 1024,
            max_slice_files: 40,
            lane_attempts: 3,
            retry_base_ms: 500,
            review_timeout_secs: 600,
            max_inflight: 1000,
        }
    }
}

/// Who may call the coordinator, and how much each tenant may ask of it.
#[derive(Debug, Clone, Default, Args, Serialize, Deserialize)]
pub struct AccessSettings {
    /// Tenants' tokens: one `TENANT SHA256HEX` per line (the hex SHA-256 of
    /// the token), `#` comments; read again when it changes. Every review
    /// call must then carry `authorization: Bearer TOKEN`.
    #[arg(long, env = "REVU_TOKENS_FILE")]
    pub tokens_file: Option<std::path::PathBuf>,

    /// Serve without authentication on an address beyond loopback (refused
    /// otherwise).
    #[arg(long, env = "REVU_ALLOW_UNAUTHENTICATED")]
    pub allow_unauthenticated: bool,

    /// Reviews one tenant may have running at once.
    #[arg(long, env = "REVU_TENANT_MAX_INFLIGHT")]
    pub tenant_max_inflight: Option<u64>,

    /// Submissions one tenant may make per minute (resubmissions under an
    /// idempotency key already held are free).
    #[arg(long, env = "REVU_TENANT_SUBMISSIONS_PER_MINUTE")]
    pub tenant_submissions_per_minute: Option<u64>,

    /// Diff bytes one tenant may submit per day (UTC).
    #[arg(long, env = "REVU_TENANT_DIFF_BYTES_PER_DAY")]
    pub tenant_diff_bytes_per_day: Option<u64>,
}

/// The code index's cache entries the fleet shares through the
/// coordinator (`revu.v1.IndexCacheService`).
#[derive(Debug, Clone, Args, Serialize, Deserialize)]
pub struct IndexCacheSettings {
    /// Share no code index cache entries: the service is not served, and
    /// clients build their index from their own cache, as with a
    /// coordinator older than the shared cache.
    #[arg(long, env = "REVU_NO_SHARED_INDEX_CACHE")]
    pub no_shared_index_cache: bool,

    /// Keep the shared entries in this directory (one of its own per
    /// tenant) instead of Redis: a volume the coordinators share, or one
    /// per coordinator.
    #[arg(long, env = "REVU_SHARED_INDEX_CACHE_DIR", value_name = "DIR")]
    pub shared_index_cache_dir: Option<std::path::PathBuf>,

    /// Bytes of shared entries kept per tenant; past it, the entries
    /// unused the longest are removed.
    #[arg(long, env = "REVU_SHARED_INDEX_CACHE_MAX_BYTES", value_name = "BYTES", default_value_t = IndexCacheLimits::default().max_tenant_bytes)]
    pub shared_index_cache_max_bytes: u64,

    /// Seconds a shared entry is kept unused (neither stored nor looked
    /// up) before it is removed.
    #[arg(long, env = "REVU_SHARED_INDEX_CACHE_MAX_AGE_SECS", value_name = "SECS", default_value_t = IndexCacheLimits::default().max_age.as_secs())]
    pub shared_index_cache_max_age_secs: u64,
}

impl Default for IndexCacheSettings {
    fn default() -> Self {
        let limits = IndexCacheLimits::default();
        IndexCacheSettings {
            no_shared_index_cache: false,
            shared_index_cache_dir: None,
            shared_index_cache_max_bytes: limits.max_tenant_bytes,
            shared_index_cache_max_age_secs: limits.max_age.as_secs(),
        }
    }
}

impl IndexCacheSettings {
    /// What each tenant's shared entries are kept within.
    pub fn limits(&self) -> IndexCacheLimits {
        IndexCacheLimits {
            max_tenant_bytes: self.shared_index_cache_max_bytes,
            max_age: Duration::from_secs(self.shared_index_cache_max_age_secs),
        }
    }

    pub fn validate(&self) -> Result<(), InvalidConfig> {
        SettingError::positive(
            "--shared-index-cache-max-bytes",
            self.shared_index_cache_max_bytes,
        )?;
        SettingError::positive(
            "--shared-index-cache-max-age-secs",
            self.shared_index_cache_max_age_secs,
        )?;
        Ok(())
    }
}

/// TLS on the gRPC port.
#[derive(Debug, Clone, Default, Args, Serialize, Deserialize)]
pub struct TlsSettings {
    /// PEM certificate chain the gRPC server presents; with `--tls-key`,
    /// the port speaks TLS only. Read again when it changes.
    #[arg(long, env = "REVU_TLS_CERT")]
    pub tls_cert: Option<std::path::PathBuf>,

    /// PEM private key of `--tls-cert`.
    #[arg(long, env = "REVU_TLS_KEY")]
    pub tls_key: Option<std::path::PathBuf>,

    /// PEM CA certificates client certificates must chain to: mutual TLS,
    /// refusing clients without one. A client certificate listed in the
    /// tokens file (`TENANT cert-sha256:HEX`) then identifies its tenant.
    #[arg(long, env = "REVU_TLS_CLIENT_CA")]
    pub tls_client_ca: Option<std::path::PathBuf>,
}

impl TlsSettings {
    /// The server's TLS files, or none for plaintext.
    pub fn files(&self) -> Result<Option<revu_runtime::tls::ServerTlsFiles>, SettingError> {
        match (&self.tls_cert, &self.tls_key) {
            (Some(cert), Some(key)) => Ok(Some(revu_runtime::tls::ServerTlsFiles {
                cert: cert.clone(),
                key: key.clone(),
                client_ca: self.tls_client_ca.clone(),
                flags: revu_runtime::tls::TlsFlags::GRPC,
            })),
            (None, None) if self.tls_client_ca.is_some() => Err(SettingError::Needs {
                flag: "--tls-client-ca",
                needs: "--tls-cert and --tls-key",
            }),
            (None, None) => Ok(None),
            (Some(_), None) => Err(SettingError::Needs {
                flag: "--tls-cert",
                needs: "--tls-key",
            }),
            (None, Some(_)) => Err(SettingError::Needs {
                flag: "--tls-key",
                needs: "--tls-cert",
            }),
        }
    }
}

impl AccessSettings {
    /// The per-tenant quotas.
    pub fn quotas(&self) -> crate::service::Quotas {
        crate::service::Quotas {
            inflight: self.tenant_max_inflight,
            submissions_per_minute: self.tenant_submissions_per_minute,
            diff_bytes_per_day: self.tenant_diff_bytes_per_day,
        }
    }

    /// Refuses to serve `listen` beyond loopback with nobody authenticated,
    /// unless that was asked for.
    pub fn check_exposure(
        &self,
        listen: SocketAddr,
        tls: &TlsSettings,
    ) -> Result<(), InvalidConfig> {
        let authenticated = self.tokens_file.is_some() || tls.tls_client_ca.is_some();
        if !authenticated && !self.allow_unauthenticated && !listen.ip().is_loopback() {
            return Err(InvalidConfig::Unauthenticated { listen });
        }
        Ok(())
    }
}

/// The `revu-coordinator` binary's configuration.
#[derive(Debug, Clone, clap::Parser, Serialize, Deserialize)]
#[command(
    name = "revu-coordinator",
    version,
    about = "The revu coordinator: gRPC API and review stages"
)]
pub struct CoordinatorConfig {
    /// Address the gRPC server listens on.
    #[arg(long, env = "REVU_LISTEN", default_value = "127.0.0.1:50051")]
    pub listen: SocketAddr,

    #[command(flatten)]
    #[serde(flatten)]
    pub service: ServiceSettings,

    #[command(flatten)]
    pub review: ReviewSettings,

    /// Seconds a finished or cancelled review (its report, diff, lanes and
    /// events) stays in Redis before it expires; 0 keeps it until deleted
    /// by hand. An idempotency key holds its review for a day or this,
    /// whichever is shorter.
    #[arg(long, env = "REVU_REVIEW_RETENTION_SECS", default_value_t = DEFAULT_RETENTION_SECS)]
    pub review_retention_secs: u64,

    #[command(flatten)]
    pub access: AccessSettings,

    #[command(flatten)]
    pub tls: TlsSettings,

    #[command(flatten)]
    pub index_cache: IndexCacheSettings,

    #[command(flatten)]
    #[serde(skip)]
    pub source: ConfigSource,
}

/// A week: time for a CI job, or someone reading its report, to come back.
const DEFAULT_RETENTION_SECS: u64 = 7 * 24 * 60 * 60;

impl CoordinatorConfig {
    /// How long a finished review is kept; `None` for as long as Redis is.
    pub fn review_retention(&self) -> Option<Duration> {
        (self.review_retention_secs > 0).then(|| Duration::from_secs(self.review_retention_secs))
    }
}

impl Layered for CoordinatorConfig {
    fn source(&self) -> &ConfigSource {
        &self.source
    }
    fn keep_skipped(&mut self, parsed: Self) {
        self.source = parsed.source;
    }
}

/// `--engine-retry ENGINE=ATTEMPTS[:BASE_MS]`, written the same way in a
/// config file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct EngineRetry {
    pub engine: String,
    pub policy: RetryPolicy,
}

impl TryFrom<String> for EngineRetry {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        parse_engine_retry(&s)
    }
}

impl From<EngineRetry> for String {
    fn from(r: EngineRetry) -> String {
        format!(
            "{}={}:{}",
            r.engine, r.policy.max_attempts, r.policy.base_delay_ms
        )
    }
}

/// Engine names are what workers register: lowercase words and dashes.
fn parse_engine_retry(s: &str) -> Result<EngineRetry, String> {
    let (engine, policy) = s
        .split_once('=')
        .ok_or_else(|| format!("{s:?} is not ENGINE=ATTEMPTS[:BASE_MS]"))?;
    valid_engine_name(engine).map_err(|e| e.to_string())?;
    let (attempts, base) = match policy.split_once(':') {
        Some((a, b)) => (a, Some(b)),
        None => (policy, None),
    };
    let max_attempts: u32 = attempts
        .parse()
        .ok()
        .filter(|n| *n >= 1)
        .ok_or_else(|| format!("{s:?}: attempts must be a whole number of at least 1"))?;
    let base_delay_ms: u64 = match base {
        Some(b) => b
            .parse()
            .map_err(|_| format!("{s:?}: base delay must be milliseconds"))?,
        None => RetryPolicy::default().base_delay_ms,
    };
    Ok(EngineRetry {
        engine: engine.to_owned(),
        policy: RetryPolicy {
            max_attempts,
            base_delay_ms,
            max_delay_ms: 30_000,
        },
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn lane_engines_match_exactly_or_by_prefix_first_match_wins() {
        let s = ReviewSettings {
            lane_engines: vec![
                parse_lane_engine("specialist:security=llm").unwrap(),
                parse_lane_engine("specialist:*=exec-lint").unwrap(),
            ],
            ..ReviewSettings::default()
        };
        assert_eq!(s.plan().engine_for("specialist:security"), "llm");
        assert_eq!(s.plan().engine_for("specialist:design"), "exec-lint");
        assert_eq!(s.plan().engine_for("domain:core"), "rules");
    }

    #[test]
    fn engine_retry_overrides_the_default_policy() {
        let s = ReviewSettings {
            engine_retries: vec![parse_engine_retry("llm=5:2000").unwrap()],
            ..ReviewSettings::default()
        };
        assert_eq!(s.retry_for("llm").max_attempts, 5);
        assert_eq!(s.retry_for("llm").base_delay_ms, 2000);
        assert_eq!(s.retry_for("rules").max_attempts, 3);
        assert!(parse_engine_retry("llm=0").is_err());
        assert!(parse_engine_retry("LLM=2").is_err());
        assert!(parse_lane_engine("nolane").is_err());
    }

    #[test]
    fn beyond_loopback_the_coordinator_needs_tokens_or_an_explicit_opt_out() {
        let open = AccessSettings::default();
        let any: SocketAddr = "0.0.0.0:50051".parse().unwrap();
        let plain = TlsSettings::default();
        let err = open.check_exposure(any, &plain).unwrap_err();
        assert!(matches!(err, InvalidConfig::Unauthenticated { listen } if listen == any));
        let said = err.to_string();
        assert!(said.contains("--tokens-file") && said.contains("--allow-unauthenticated"));
        for local in ["127.0.0.1:50051", "[::1]:50051"] {
            assert!(open.check_exposure(local.parse().unwrap(), &plain).is_ok());
        }
        let mutual = TlsSettings {
            tls_cert: Some("cert.pem".into()),
            tls_key: Some("key.pem".into()),
            tls_client_ca: Some("ca.pem".into()),
        };
        assert!(open.check_exposure(any, &mutual).is_ok());
        assert!(mutual.files().unwrap().is_some());
        let half = TlsSettings {
            tls_cert: Some("cert.pem".into()),
            ..TlsSettings::default()
        };
        let err = half.files().unwrap_err();
        assert_eq!(
            err,
            SettingError::Needs {
                flag: "--tls-cert",
                needs: "--tls-key"
            }
        );
        assert_eq!(err.to_string(), "--tls-cert needs --tls-key");
        let opted_out = AccessSettings {
            allow_unauthenticated: true,
            ..AccessSettings::default()
        };
        assert!(opted_out.check_exposure(any, &plain).is_ok());
        let tokens = AccessSettings {
            tokens_file: Some("tokens".into()),
            ..AccessSettings::default()
        };
        assert!(tokens.check_exposure(any, &plain).is_ok());
    }

    #[test]
    fn adjudication_is_off_by_default_and_needs_an_engine_name() {
        assert_eq!(ReviewSettings::default().choices.adjudicate, None);
        let on = |engine: &str| ReviewSettings {
            choices: ReviewChoices {
                adjudicate: Some(engine.into()),
                ..ReviewChoices::default()
            },
            ..ReviewSettings::default()
        };
        assert!(on("rules").validate().is_ok());
        assert!(matches!(
            on("Bad Name").validate(),
            Err(InvalidConfig::Engine { flag: "--adjudicate", source }) if source.name == "Bad Name"
        ));
        let never = ReviewSettings {
            lane_attempts: 0,
            ..ReviewSettings::default()
        };
        let err = never.validate().unwrap_err();
        assert_eq!(err.to_string(), "--lane-attempts must be at least 1");
    }
}
