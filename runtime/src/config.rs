//! Configuration of the service binaries, in layers: defaults (written once,
//! in the binary's settings types), then a TOML file (`--config FILE` or
//! `REVU_CONFIG`), then `REVU_*` environment variables, then flags, then
//! the binary's own `validate()`.
//!
//! The file has the shape `--dump-config` prints (the same keys, tables for
//! nested settings), so a dumped configuration can be saved and edited.
//! clap applies defaults, environment and flags; [`load`] puts the file
//! under the last two by taking a file value only for a setting that
//! neither a flag nor a variable gave.

use clap::ArgMatches;
use clap::parser::ValueSource;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::path::PathBuf;

mod errors;

pub use errors::{ConfigError, FileError, SettingError};

/// The Redis a binary reaches when none is named: one on this host.
pub const DEFAULT_REDIS_URL: &str = "redis://127.0.0.1:6379";

/// Settings both service binaries take.
#[derive(Debug, Clone, clap::Args, Serialize, serde::Deserialize)]
pub struct ServiceSettings {
    /// Redis URL: `redis://` or, over TLS, `rediss://`; an ACL user and
    /// password go in it (`rediss://USER:PASSWORD@HOST:PORT`) or the
    /// password in `--redis-password-file`. With `--redis-cluster`, a
    /// comma-separated list of seed nodes.
    #[arg(long, env = "REVU_REDIS_URL", default_value = DEFAULT_REDIS_URL)]
    pub redis: String,

    /// Redis is a Redis Cluster: `--redis` names seed nodes, and the rest
    /// of the cluster is found from them.
    #[arg(long, env = "REVU_REDIS_CLUSTER")]
    pub redis_cluster: bool,

    /// PEM CA certificates a `rediss://` server's certificate must chain
    /// to, instead of the system roots.
    #[arg(long, env = "REVU_REDIS_CA_CERT")]
    pub redis_ca_cert: Option<PathBuf>,

    /// PEM client certificate for a Redis that asks for one (with
    /// `--redis-client-key`).
    #[arg(long, env = "REVU_REDIS_CLIENT_CERT")]
    pub redis_client_cert: Option<PathBuf>,

    /// PEM private key of `--redis-client-cert`.
    #[arg(long, env = "REVU_REDIS_CLIENT_KEY")]
    pub redis_client_key: Option<PathBuf>,

    /// A file holding the Redis password (a mounted secret, say), instead
    /// of the one in the URL.
    #[arg(long, env = "REVU_REDIS_PASSWORD_FILE")]
    pub redis_password_file: Option<PathBuf>,

    /// Prefix of every Redis key revu uses.
    #[arg(long, env = "REVU_KEY_PREFIX", default_value = "revu")]
    pub key_prefix: String,

    /// Log as JSON lines instead of human-readable text.
    #[arg(long, env = "REVU_LOG_JSON")]
    pub log_json: bool,

    /// Address to serve Prometheus metrics on (`/metrics`); off when unset.
    #[arg(long, env = "REVU_METRICS_LISTEN")]
    pub metrics_listen: Option<SocketAddr>,

    /// PEM certificate chain for the metrics endpoint: with
    /// `--metrics-tls-key`, it serves HTTPS only. Read again when it
    /// changes.
    #[arg(long, env = "REVU_METRICS_TLS_CERT")]
    pub metrics_tls_cert: Option<PathBuf>,

    /// PEM private key of `--metrics-tls-cert`.
    #[arg(long, env = "REVU_METRICS_TLS_KEY")]
    pub metrics_tls_key: Option<PathBuf>,
}

/// Connecting to the configured Redis failed; names it, password masked.
#[derive(Debug, thiserror::Error)]
#[error("connecting to redis at {url}: {source}")]
pub struct RedisConnectError {
    pub url: String,
    pub source: revu_queue::QueueError,
}

impl ServiceSettings {
    /// Connects to the configured Redis.
    pub async fn connect_redis(
        &self,
    ) -> Result<revu_queue::redis::RedisBackend, RedisConnectError> {
        revu_queue::redis::RedisBackend::connect_with(
            &self.redis,
            &self.redis_options(),
            &self.key_prefix,
        )
        .await
        .map_err(|source| RedisConnectError {
            url: self
                .redis
                .split(',')
                .map(redact_url)
                .collect::<Vec<_>>()
                .join(","),
            source,
        })
    }

    /// The metrics endpoint's TLS files, or none for plain HTTP.
    pub fn metrics_tls(&self) -> Result<Option<crate::tls::ServerTlsFiles>, SettingError> {
        match (&self.metrics_tls_cert, &self.metrics_tls_key) {
            (Some(cert), Some(key)) => Ok(Some(crate::tls::ServerTlsFiles {
                cert: cert.clone(),
                key: key.clone(),
                client_ca: None,
                flags: crate::tls::TlsFlags::METRICS,
            })),
            (None, None) => Ok(None),
            (Some(_), None) => Err(SettingError::Needs {
                flag: "--metrics-tls-cert",
                needs: "--metrics-tls-key",
            }),
            (None, Some(_)) => Err(SettingError::Needs {
                flag: "--metrics-tls-key",
                needs: "--metrics-tls-cert",
            }),
        }
    }

    /// The metrics endpoint on these settings: `GET /readyz` answering
    /// what `readiness` says.
    pub async fn metrics_endpoint(
        &self,
        registry: prometheus_client::registry::Registry,
        readiness: crate::metrics::Readiness,
    ) -> Result<Option<crate::metrics::EndpointGuard>, crate::metrics::MetricsError> {
        let tls = self.metrics_tls()?;
        crate::metrics::endpoint_with_readiness(self.metrics_listen, registry, readiness, tls).await
    }

    /// How to reach Redis beyond its URL.
    pub fn redis_options(&self) -> revu_queue::redis::RedisOptions {
        revu_queue::redis::RedisOptions {
            ca_cert: self.redis_ca_cert.clone(),
            client_cert: self.redis_client_cert.clone(),
            client_key: self.redis_client_key.clone(),
            password_file: self.redis_password_file.clone(),
            cluster: self.redis_cluster,
        }
    }
}

/// Where the configuration comes from, and what to do with it; not itself
/// part of the configuration.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ConfigSource {
    /// A TOML file of settings, in the shape `--dump-config` prints;
    /// `REVU_*` variables and flags override what it sets.
    #[arg(long = "config", env = "REVU_CONFIG", value_name = "FILE")]
    pub file: Option<PathBuf>,

    /// Print the effective configuration as JSON and exit.
    #[arg(long)]
    pub dump_config: bool,
}

/// A binary's whole configuration.
pub trait Layered: clap::Parser + Serialize + DeserializeOwned {
    fn source(&self) -> &ConfigSource;
    /// Moves what serde skips (the config source, secrets), which the
    /// file cannot set, from the parsed command line into `self`, the
    /// configuration with the file laid under it.
    fn keep_skipped(&mut self, parsed: Self);
}

/// Parses the process's arguments and environment, then lays the config
/// file under them. Like clap's `parse`, it prints usage errors (and
/// `--help`, `--version`) and exits; what it returns is a file error.
pub async fn load<T: Layered>() -> Result<T, ConfigError> {
    match load_from::<T, _, _>(std::env::args_os()).await {
        Err(ConfigError::Args(e)) => e.exit(),
        other => other,
    }
}

/// [`load`] over `args` (the first is the program name).
pub async fn load_from<T, I, A>(args: I) -> Result<T, ConfigError>
where
    T: Layered,
    I: IntoIterator<Item = A>,
    A: Into<std::ffi::OsString> + Clone,
{
    let matches = T::command().try_get_matches_from(args)?;
    let parsed = T::from_arg_matches(&matches)?;
    let Some(path) = parsed.source().file.clone() else {
        return Ok(parsed);
    };
    let shown = path.display().to_string();
    let text = tokio::fs::read_to_string(&path)
        .await
        .map_err(|source| ConfigError::Read {
            path: shown.clone(),
            source,
        })?;
    layer_file(parsed, &matches, &text).map_err(|source| ConfigError::File {
        path: shown,
        source,
    })
}

/// `url` with the password of its user info, if any, replaced by `***`
/// (`redis://user:***@host:6379`), for logs, errors and `--dump-config`.
pub fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            let masked = revu_domain::redact::masked_userinfo(userinfo);
            format!("{scheme}://{masked}@{host}{tail}")
        }
        None => url.to_owned(),
    }
}

/// The configuration as `--dump-config` prints it: pretty JSON, with the
/// password of every URL in it masked.
pub fn dump<T: Serialize>(config: &T) -> Result<String, serde_json::Error> {
    fn mask(v: &mut Value) {
        match v {
            Value::String(s) if s.contains("://") => *s = redact_url(s),
            Value::Array(items) => items.iter_mut().for_each(mask),
            Value::Object(map) => map.values_mut().for_each(mask),
            _ => {}
        }
    }
    let mut value = serde_json::to_value(config)?;
    mask(&mut value);
    serde_json::to_string_pretty(&value)
}

/// Lays the settings of a TOML `text` under those `matches` gave
/// explicitly (by flag or environment).
fn layer_file<T: Layered>(parsed: T, matches: &ArgMatches, text: &str) -> Result<T, FileError> {
    let file: toml::Table = toml::from_str(text).map_err(|error| FileError::Toml {
        line: error
            .span()
            .map(|span| 1 + text[..span.start.min(text.len())].matches('\n').count()),
        error,
    })?;
    let file = match serde_json::to_value(file) {
        Ok(Value::Object(map)) => map,
        Ok(_) => return Err(FileError::NotATable),
        Err(e) => return Err(FileError::Convert(e)),
    };
    let mut current = serde_json::to_value(&parsed).map_err(|e| FileError::Shape(Some(e)))?;
    let Value::Object(settings) = &current else {
        return Err(FileError::Shape(None));
    };
    let ids: BTreeSet<String> = T::command()
        .get_arguments()
        .map(|a| a.get_id().to_string())
        .collect();
    let explicit = |id: &str| {
        ids.contains(id)
            && matches!(
                matches.value_source(id),
                Some(ValueSource::CommandLine | ValueSource::EnvVariable)
            )
    };
    let mut taken = Vec::new();
    collect(settings, file, &[], &explicit, &mut taken)?;
    // Applied one at a time, so that a value of the wrong type is
    // reported under its own key.
    let mut config: Option<T> = None;
    for (path, value) in taken {
        set_path(&mut current, &path, value);
        config = Some(
            serde_json::from_value(current.clone())
                .map_err(|source| FileError::Value { path, source })?,
        );
    }
    Ok(match config {
        Some(mut config) => {
            config.keep_skipped(parsed);
            config
        }
        None => parsed,
    })
}

/// The values of `file` to take: every one but those given explicitly,
/// each with its path. A key the configuration does not have is an error
/// naming it.
fn collect(
    settings: &Map<String, Value>,
    file: Map<String, Value>,
    prefix: &[String],
    explicit: &dyn Fn(&str) -> bool,
    taken: &mut Vec<(Vec<String>, Value)>,
) -> Result<(), FileError> {
    for (key, value) in file {
        let mut path = prefix.to_vec();
        path.push(key.clone());
        let Some(current) = settings.get(&key) else {
            return Err(FileError::Unknown {
                path,
                known: settings.keys().cloned().collect(),
            });
        };
        match (current, value) {
            (Value::Object(inner), Value::Object(table)) => {
                collect(inner, table, &path, explicit, taken)?;
            }
            (_, value) => {
                if !explicit(&key) {
                    taken.push((path, value));
                }
            }
        }
    }
    Ok(())
}

fn set_path(root: &mut Value, path: &[String], value: Value) {
    let mut at = root;
    for key in &path[..path.len().saturating_sub(1)] {
        match at.get_mut(key) {
            Some(next) => at = next,
            None => return,
        }
    }
    if let (Some(last), Value::Object(map)) = (path.last(), at) {
        map.insert(last.clone(), value);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    #[test]
    fn url_passwords_are_masked_and_nothing_else_changes() {
        use super::redact_url;
        for (url, shown) in [
            ("redis://127.0.0.1:6379", "redis://127.0.0.1:6379"),
            ("redis://:s3cret@redis:6379/0", "redis://:***@redis:6379/0"),
            (
                "rediss://ci:p@ss@redis.internal:6380",
                "rediss://ci:***@redis.internal:6380",
            ),
            ("redis://s3cret@redis:6379", "redis://***@redis:6379"),
            (
                "redis://redis:6379/0?user=a@b",
                "redis://redis:6379/0?user=a@b",
            ),
            ("not a url", "not a url"),
        ] {
            assert_eq!(redact_url(url), shown, "{url}");
        }
    }

    use super::*;
    use clap::{CommandFactory, FromArgMatches};

    #[derive(Debug, clap::Parser, Serialize, serde::Deserialize)]
    struct Demo {
        #[command(flatten)]
        #[serde(flatten)]
        service: ServiceSettings,
        #[arg(long, default_value_t = 3)]
        attempts: u32,
        #[arg(long = "engine", value_delimiter = ',')]
        engines: Vec<String>,
        #[command(flatten)]
        inner: Inner,
        #[command(flatten)]
        #[serde(skip)]
        source: ConfigSource,
    }

    #[derive(Debug, clap::Args, Serialize, serde::Deserialize)]
    struct Inner {
        #[arg(long, default_value_t = 10)]
        timeout_secs: u64,
    }

    impl Layered for Demo {
        fn source(&self) -> &ConfigSource {
            &self.source
        }
        fn keep_skipped(&mut self, parsed: Self) {
            self.source = parsed.source;
        }
    }

    fn with_file(args: &[&str], text: &str) -> Result<Demo, FileError> {
        let mut argv = vec!["demo"];
        argv.extend_from_slice(args);
        let matches = Demo::command().try_get_matches_from(argv).unwrap();
        let parsed = Demo::from_arg_matches(&matches).unwrap();
        layer_file(parsed, &matches, text)
    }

    #[test]
    fn the_file_sets_what_no_flag_gave() {
        let c = with_file(
            &[],
            "attempts = 5\nredis = \"redis://10.0.0.1:6379\"\nengines = [\"a\", \"b\"]\n[inner]\ntimeout_secs = 30\n",
        )
        .unwrap();
        assert_eq!(c.attempts, 5);
        assert_eq!(c.service.redis, "redis://10.0.0.1:6379");
        assert_eq!(c.engines, ["a", "b"]);
        assert_eq!(c.inner.timeout_secs, 30);
        assert_eq!(c.service.key_prefix, "revu", "defaults stay under the file");
    }

    #[test]
    fn flags_override_the_file() {
        let c = with_file(
            &["--attempts", "7", "--timeout-secs", "1", "--engine", "x"],
            "attempts = 5\nengines = [\"a\"]\n[inner]\ntimeout_secs = 30\n",
        )
        .unwrap();
        assert_eq!(c.attempts, 7);
        assert_eq!(c.inner.timeout_secs, 1);
        assert_eq!(c.engines, ["x"]);
    }

    #[test]
    fn unknown_and_mistyped_settings_are_named() {
        let e = with_file(&[], "atempts = 5\n").unwrap_err();
        assert!(
            matches!(&e, FileError::Unknown { path, known } if path == &["atempts"] && known.iter().any(|k| k == "attempts")),
            "{e:?}"
        );
        assert!(e.to_string().contains("unknown setting `atempts`"), "{e}");
        let e = with_file(&[], "[inner]\ntimeout = 5\n").unwrap_err();
        assert!(
            e.to_string().contains("unknown setting `inner.timeout`"),
            "{e}"
        );
        let e = with_file(&[], "[inner]\ntimeout_secs = \"soon\"\n").unwrap_err();
        assert!(
            matches!(&e, FileError::Value { path, .. } if path == &["inner", "timeout_secs"]),
            "{e:?}"
        );
        assert!(e.to_string().contains("`inner.timeout_secs`"), "{e}");
        let e = with_file(&[], "x = 1\nattempts = \n").unwrap_err();
        assert!(matches!(e, FileError::Toml { line: Some(2), .. }), "{e:?}");
        assert!(e.to_string().starts_with("line 2: "), "{e}");
        assert_eq!(e.to_string().lines().count(), 1, "{e}");
    }
}
