//! The Redis Streams backend of the distributed mode.
//!
//! Keys (all under a configurable prefix, `revu` by default):
//!
//! | key                          | type   | holds                                        |
//! |------------------------------|--------|----------------------------------------------|
//! | `{p}:jobs:{engine}`          | stream | lane jobs of one engine; group `workers`     |
//! | `{p}:engines`                | set    | engines that have a job stream               |
//! | `{p}:results`                | stream | lane reports; consumer group `coordinators`  |
//! | `{p}:dead`                   | stream | dead-lettered jobs with their reason         |
//! | `{p}:review:{id}`            | hash   | `record`, `bundle`, `diff`, `report`, and    |
//! |                              |        | `head:{sha256}`: each head file's contents,  |
//! |                              |        | once per distinct content                    |
//! | `{p}:review:{id}:lanes`      | hash   | settled lane results by lane id              |
//! | `{p}:review:{id}:attempts`   | hash   | the attempt awaited per lane                 |
//! | `{p}:review:{id}:events`     | stream | progress events                              |
//! | `{p}:active`                 | set    | ids of reviews still running                 |
//! | `{p}:idem:{key}`             | string | review id submitted under an idempotency key |
//! | `{p}:stats`                  | hash   | delivery counters (retries, duplicates, …)   |
//! | `{p}:cache:{key}`            | string | a lane report body, reused until it expires  |
//!
//! A review submitted by a tenant keeps its `review:…` and `idem:…` keys
//! under `{p}:tenant:{tenant}:` instead of `{p}:`, with its quota counters
//! beside them (`{p}:tenant:{tenant}:quota:{name}:{window}`, strings that
//! expire with their window). Its id in the `active` set and in lane jobs
//! is `{tenant}/{uuid}`.

mod conn;
mod maintenance;
mod queue;
mod scripts;
mod store;

use conn::BlockingPool;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::QueueError;

/// Consumer group of the workers on the job stream.
pub const WORKER_GROUP: &str = "workers";
/// Consumer group of the coordinators on the result stream.
pub const COORDINATOR_GROUP: &str = "coordinators";

/// The Redis backend. Cloning shares connections.
#[derive(Clone)]
pub struct RedisBackend {
    prefix: String,
    conn: ConnectionManager,
    blocking: BlockingPool,
}

impl std::fmt::Debug for RedisBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisBackend")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

/// How to reach Redis beyond its URL: TLS material and a password file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RedisOptions {
    /// CA certificates (PEM) that replace the system roots for `rediss://`.
    pub ca_cert: Option<PathBuf>,
    /// Client certificate and key (PEM), for a Redis that asks for one.
    pub client_cert: Option<PathBuf>,
    pub client_key: Option<PathBuf>,
    /// The password, instead of the URL's.
    pub password_file: Option<PathBuf>,
}

async fn read_file(what: &str, path: &Path) -> Result<Vec<u8>, QueueError> {
    tokio::fs::read(path)
        .await
        .map_err(|e| QueueError::Config(format!("reading {what} {}: {e}", path.display())))
}

/// A client for `url` with `options` applied.
pub async fn client(url: &str, options: &RedisOptions) -> Result<redis::Client, QueueError> {
    use redis::IntoConnectionInfo;
    let mut info = url.into_connection_info()?;
    if let Some(path) = &options.password_file {
        let raw = read_file("--redis-password-file", path).await?;
        let text = String::from_utf8(raw).map_err(|_| {
            QueueError::Config(format!(
                "--redis-password-file {} is not UTF-8",
                path.display()
            ))
        })?;
        let password = text.trim_end_matches(['\n', '\r']);
        let settings = info.redis_settings().clone().set_password(password);
        info = info.set_redis_settings(settings);
    }
    let client_pair = match (&options.client_cert, &options.client_key) {
        (Some(cert), Some(key)) => Some(redis::ClientTlsConfig {
            client_cert: read_file("--redis-client-cert", cert).await?,
            client_key: read_file("--redis-client-key", key).await?,
        }),
        (None, None) => None,
        _ => {
            return Err(QueueError::Config(
                "--redis-client-cert and --redis-client-key go together".into(),
            ));
        }
    };
    if options.ca_cert.is_none() && client_pair.is_none() {
        return Ok(redis::Client::open(info)?);
    }
    if !url.starts_with("rediss://") {
        return Err(QueueError::Config(
            "--redis-ca-cert and --redis-client-cert need a rediss:// URL".into(),
        ));
    }
    let root_cert = match &options.ca_cert {
        Some(path) => Some(read_file("--redis-ca-cert", path).await?),
        None => None,
    };
    Ok(redis::Client::build_with_tls(
        info,
        redis::TlsCertificates {
            client_tls: client_pair,
            root_cert,
        },
    )?)
}

impl RedisBackend {
    /// Connects and makes sure the coordinators' consumer group exists.
    pub async fn connect(url: &str, prefix: &str) -> Result<Self, QueueError> {
        Self::connect_with(url, &RedisOptions::default(), prefix).await
    }

    /// [`RedisBackend::connect`] with TLS material or a password file.
    pub async fn connect_with(
        url: &str,
        options: &RedisOptions,
        prefix: &str,
    ) -> Result<Self, QueueError> {
        let client = client(url, options).await?;
        // Reconnects on its own after the first connection; the first one
        // fails fast so a wrong URL is reported at startup.
        let config = ConnectionManagerConfig::new()
            .set_number_of_retries(2)
            .set_connection_timeout(Some(Duration::from_secs(3)))
            .set_response_timeout(Some(Duration::from_secs(10)));
        let conn = ConnectionManager::new_with_config(client.clone(), config).await?;
        let backend = RedisBackend {
            prefix: prefix.to_owned(),
            conn,
            blocking: BlockingPool::new(client),
        };
        // Job streams get their group when a worker first reads them.
        backend
            .ensure_group(&backend.key("results"), COORDINATOR_GROUP)
            .await?;
        Ok(backend)
    }

    /// Where lane jobs travel, for the attributes of producer and consumer
    /// spans (each job's stream is this with `:{engine}` added).
    pub fn job_target(&self) -> crate::telemetry::MessagingTarget {
        crate::telemetry::MessagingTarget {
            system: "redis",
            destination: self.key("jobs"),
            group: WORKER_GROUP.to_owned(),
        }
    }

    fn key(&self, suffix: &str) -> String {
        format!("{}:{}", self.prefix, suffix)
    }

    /// The job stream of `engine`.
    fn job_stream(&self, engine: &str) -> String {
        format!("{}:jobs:{engine}", self.prefix)
    }

    /// The jobs of `engine` that wait out a retry delay, scored by the
    /// time (ms) they are due.
    fn delayed_set(&self, engine: &str) -> String {
        format!("{}:delayed:{engine}", self.prefix)
    }

    /// Every engine that has a job stream.
    async fn job_engines(&self) -> Result<Vec<String>, QueueError> {
        let mut conn = self.conn.clone();
        let mut engines: Vec<String> = redis::cmd("SMEMBERS")
            .arg(self.key("engines"))
            .query_async(&mut conn)
            .await?;
        engines.sort();
        Ok(engines)
    }

    /// A key of review `id`: under its tenant's namespace when it has one.
    fn review_key(&self, id: &crate::lane::ReviewId, suffix: &str) -> String {
        let base = format!("{}review:{}", self.namespace(id.tenant()), id.local());
        if suffix.is_empty() {
            base
        } else {
            format!("{base}:{suffix}")
        }
    }

    /// The key that holds the review `tenant` submitted under idempotency
    /// key `key`.
    fn idempotency_key(&self, tenant: Option<&str>, key: &str) -> String {
        format!("{}idem:{key}", self.namespace(tenant))
    }

    /// Where the keys of `tenant` start: `{p}:tenant:{tenant}:`, or `{p}:`
    /// for reviews submitted without one.
    fn namespace(&self, tenant: Option<&str>) -> String {
        match tenant {
            Some(t) => format!("{}:tenant:{t}:", self.prefix),
            None => format!("{}:", self.prefix),
        }
    }

    async fn ensure_group(&self, stream: &str, group: &str) -> Result<(), QueueError> {
        let mut conn = self.conn.clone();
        let created: Result<(), redis::RedisError> = redis::cmd("XGROUP")
            .arg("CREATE")
            .arg(stream)
            .arg(group)
            .arg("0")
            .arg("MKSTREAM")
            .query_async(&mut conn)
            .await;
        match created {
            Ok(()) => Ok(()),
            Err(e) if e.code() == Some("BUSYGROUP") => Ok(()),
            Err(e) => Err(e.into()),
        }
    }
}
