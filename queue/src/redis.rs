//! The Redis Streams backend of the distributed mode, on one Redis or on a
//! Redis Cluster.
//!
//! Keys are split into shards (see [`layout`]): `{p:N}` below is the hash
//! tag of shard N of prefix `p` (`revu` by default), so that every key one
//! atomic step touches sits in one cluster slot.
//!
//! | key                                | type   | holds                                        |
//! |------------------------------------|--------|----------------------------------------------|
//! | `{p:N}:jobs:{engine}`              | stream | lane jobs of one engine; group `workers`     |
//! | `{p:N}:delayed:{engine}`           | zset   | retries waiting out their delay              |
//! | `{p:N}:engines`                    | set    | engines that have a job stream in the shard  |
//! | `{p:N}:results`                    | stream | lane reports; consumer group `coordinators`  |
//! | `{p:N}:dead`                       | stream | dead-lettered jobs with their reason         |
//! | `{p:N}:review:{id}`                | hash   | `record`, `phase`, `bundle`, `diff`,         |
//! |                                    |        | `report`, and `head:{sha256}`: each head     |
//! |                                    |        | file's contents, once per distinct content   |
//! | `{p:N}:review:{id}:diff`           | string | a diff over 1 MiB, kept apart from the hash  |
//! | `{p:N}:review:{id}:lanes`          | hash   | settled lane results by lane id              |
//! | `{p:N}:review:{id}:attempts`       | hash   | the attempt awaited per lane                 |
//! | `{p:N}:review:{id}:events`         | stream | progress events                              |
//! | `{p:N}:active`                     | set    | ids of the shard's reviews still running     |
//! | `{p:N}:idem:{key}`                 | string | review id submitted under an idempotency key |
//! | `p:stats`                          | hash   | delivery counters (retries, duplicates, …)   |
//! | `p:cache:{key}`                    | string | a lane report body, reused until it expires  |
//! | `{p:index}:entries`                | hash   | code index cache entries a fleet shares, by  |
//! |                                    |        | `{stamp}/{blob id}.{language}`               |
//! | `{p:index}:used`                   | zset   | the same fields, by last use (ms)            |
//! | `{p:index}:bytes`                  | string | the entries' total size                      |
//!
//! A review's `phase` field is what a phase move compares and sets, in
//! the script that writes the record and everything else the move brings
//! (see `phase.rs`); a review stored before reviews had a phase has none
//! until its first move, and reads in the phase its record implies.
//!
//! A review's own keys (`review:{id}` and its suffixes, `:diff` among
//! them) expire together once it has finished, when the coordinator keeps
//! reviews for a while only ([`RedisBackend::with_review_retention`]).
//!
//! A review's jobs and results travel on the streams of its own shard. A
//! review submitted by a tenant keeps its `review:…` and `idem:…` keys
//! under `tenant:{tenant}:` inside the shard, and its quota counters
//! outside the shards (`p:tenant:{tenant}:quota:{name}:{window}`, strings
//! that expire with their window). Its id in the `active` set and in lane
//! jobs is `{tenant}/{uuid}`.

mod backlog;
mod conn;
mod cover;
pub use conn::Conn;
mod index_cache;
pub mod layout;
mod maintenance;
mod phase;
mod queue;
mod reads;
mod records;
mod scripts;
mod store;

use conn::{BlockingPool, Source};
use layout::Layout;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::cluster::{ClusterClient, ClusterClientBuilder};
use revu_domain::clock::{Clock, SharedClock};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{QueueError, SettingsError};

/// Consumer group of the workers on the job stream.
pub const WORKER_GROUP: &str = "workers";
/// Consumer group of the coordinators on the result stream.
pub const COORDINATOR_GROUP: &str = "coordinators";

/// Longest a new review waits for a replica to have it (on a cluster).
const REPLICATION_WAIT_MS: u64 = 50;
/// Longest a command waits for its answer (a blocking read excepted).
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a blocking read on a cluster may take: well past any `BLOCK`
/// revu sends there (a watch waits 5 s at most), so that a master that
/// vanished without closing its connections is noticed.
const BLOCKING_RESPONSE_TIMEOUT: Duration = Duration::from_secs(60);

/// The Redis backend. Cloning shares connections.
#[derive(Clone)]
pub struct RedisBackend {
    layout: Layout,
    conn: Conn,
    blocking: BlockingPool,
    /// On a cluster, reads across shards go shard by shard.
    cluster: bool,
    /// On a cluster, the shards this process's reads of jobs and of
    /// reports watch, so that readers side by side spread over them and
    /// look only at those nobody watches.
    job_cover: std::sync::Arc<cover::ShardCover>,
    result_cover: std::sync::Arc<cover::ShardCover>,
    /// Seconds a finished review's keys are kept (at least one: `EXPIRE
    /// 0` would delete them at once); forever when `None`.
    retention_secs: Option<u64>,
    /// Records decoded lately, reused while their text is unchanged.
    records: std::sync::Arc<records::RecordCache>,
    /// What retries' due times are compared with.
    clock: SharedClock,
}

impl std::fmt::Debug for RedisBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisBackend")
            .field("prefix", &self.layout.prefix())
            .field("cluster", &self.cluster)
            .field("retention_secs", &self.retention_secs)
            .finish_non_exhaustive()
    }
}

/// How to reach Redis beyond its URL: TLS material, a password file, and
/// whether it is a cluster.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RedisOptions {
    /// CA certificates (PEM) that replace the system roots for `rediss://`.
    pub ca_cert: Option<PathBuf>,
    /// Client certificate and key (PEM), for a Redis that asks for one.
    pub client_cert: Option<PathBuf>,
    pub client_key: Option<PathBuf>,
    /// The password, instead of the URL's.
    pub password_file: Option<PathBuf>,
    /// A Redis Cluster: the URL is a comma-separated list of seed nodes.
    pub cluster: bool,
}

async fn read_file(flag: &'static str, path: &Path) -> Result<Vec<u8>, SettingsError> {
    tokio::fs::read(path)
        .await
        .map_err(|source| SettingsError::Read {
            flag,
            path: path.to_owned(),
            source,
        })
}

/// The password and TLS material `options` name, read.
struct Secrets {
    password: Option<String>,
    tls: Option<redis::TlsCertificates>,
}

async fn secrets(url: &str, options: &RedisOptions) -> Result<Secrets, SettingsError> {
    let password = match &options.password_file {
        Some(path) => {
            let flag = "--redis-password-file";
            let raw = read_file(flag, path).await?;
            let text = String::from_utf8(raw).map_err(|_| SettingsError::NotUtf8 {
                flag,
                path: path.to_owned(),
            })?;
            Some(text.trim_end_matches(['\n', '\r']).to_owned())
        }
        None => None,
    };
    let client_pair = match (&options.client_cert, &options.client_key) {
        (Some(cert), Some(key)) => Some(redis::ClientTlsConfig {
            client_cert: read_file("--redis-client-cert", cert).await?,
            client_key: read_file("--redis-client-key", key).await?,
        }),
        (None, None) => None,
        _ => return Err(SettingsError::HalfClientPair),
    };
    if options.ca_cert.is_none() && client_pair.is_none() {
        return Ok(Secrets {
            password,
            tls: None,
        });
    }
    if !url.starts_with("rediss://") {
        return Err(SettingsError::TlsWithoutRediss);
    }
    let root_cert = match &options.ca_cert {
        Some(path) => Some(read_file("--redis-ca-cert", path).await?),
        None => None,
    };
    Ok(Secrets {
        password,
        tls: Some(redis::TlsCertificates {
            client_tls: client_pair,
            root_cert,
        }),
    })
}

/// A client for `url` with `options` applied (one Redis; see
/// [`cluster_client`] for a cluster).
pub async fn client(url: &str, options: &RedisOptions) -> Result<redis::Client, QueueError> {
    use redis::IntoConnectionInfo;
    let mut info = url.into_connection_info()?;
    let secrets = secrets(url, options).await?;
    if let Some(password) = &secrets.password {
        let settings = info.redis_settings().clone().set_password(password);
        info = info.set_redis_settings(settings);
    }
    Ok(match secrets.tls {
        None => redis::Client::open(info)?,
        Some(certs) => redis::Client::build_with_tls(info, certs)?,
    })
}

/// The seed nodes of a cluster URL list: `redis://a:7000,redis://b:7001`
/// (a bare `host:port` after the first takes its scheme).
pub fn seed_nodes(urls: &str) -> Result<Vec<String>, QueueError> {
    let mut nodes = Vec::new();
    let mut scheme = "redis://";
    for part in urls.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        if let Some((s, _)) = part.split_once("://") {
            scheme = if s == "rediss" {
                "rediss://"
            } else {
                "redis://"
            };
            nodes.push(part.to_owned());
        } else {
            nodes.push(format!("{scheme}{part}"));
        }
    }
    if nodes.is_empty() {
        return Err(SettingsError::NoSeedNode.into());
    }
    Ok(nodes)
}

/// A cluster client for the seed nodes in `urls` with `options` applied;
/// `response_timeout` bounds each answer.
pub async fn cluster_client(
    urls: &str,
    options: &RedisOptions,
    response_timeout: Duration,
) -> Result<ClusterClient, QueueError> {
    let nodes = seed_nodes(urls)?;
    let secrets = secrets(&nodes[0], options).await?;
    let mut builder = ClusterClientBuilder::new(nodes)
        .connection_timeout(Duration::from_secs(3))
        .response_timeout(response_timeout)
        // A failover takes the cluster's node timeout and an election:
        // retries with backoff ride it out.
        .overall_response_timeout(None)
        .retries(8)
        .min_retry_wait(50)
        .max_retry_wait(2_000);
    if let Some(password) = secrets.password {
        builder = builder.password(password);
    }
    if let Some(certs) = secrets.tls {
        builder = builder.certs(certs);
    }
    Ok(builder.build()?)
}

/// A plain connection to the Redis (or cluster) `url` and `options` name,
/// for tools that measure it.
pub async fn connection(url: &str, options: &RedisOptions) -> Result<Conn, QueueError> {
    if options.cluster {
        let client = cluster_client(url, options, RESPONSE_TIMEOUT).await?;
        Ok(Conn::Cluster(client.get_async_connection().await?))
    } else {
        let client = client(url, options).await?;
        Ok(Conn::Multiplexed(
            client.get_multiplexed_async_connection().await?,
        ))
    }
}

impl RedisBackend {
    /// Connects and makes sure the coordinators' consumer groups exist.
    pub async fn connect(url: &str, prefix: &str) -> Result<Self, QueueError> {
        Self::connect_with(url, &RedisOptions::default(), prefix).await
    }

    /// [`RedisBackend::connect`] with TLS material, a password file or a
    /// cluster.
    pub async fn connect_with(
        url: &str,
        options: &RedisOptions,
        prefix: &str,
    ) -> Result<Self, QueueError> {
        let layout = Layout::new(prefix)?;
        let (conn, source) = if options.cluster {
            let client = cluster_client(url, options, RESPONSE_TIMEOUT).await?;
            let blocking = cluster_client(url, options, BLOCKING_RESPONSE_TIMEOUT).await?;
            let conn = Conn::Cluster(client.get_async_connection().await?);
            (conn, Source::Cluster(Box::new(blocking)))
        } else {
            let client = client(url, options).await?;
            // Reconnects on its own after the first connection; the first
            // one fails fast so a wrong URL is reported at startup.
            let config = ConnectionManagerConfig::new()
                .set_number_of_retries(2)
                .set_connection_timeout(Some(Duration::from_secs(3)))
                .set_response_timeout(Some(RESPONSE_TIMEOUT));
            let conn = ConnectionManager::new_with_config(client.clone(), config).await?;
            (Conn::Managed(conn), Source::Single(Box::new(client)))
        };
        let backend = RedisBackend {
            layout,
            conn,
            blocking: BlockingPool::new(source),
            cluster: options.cluster,
            job_cover: std::sync::Arc::default(),
            result_cover: std::sync::Arc::default(),
            retention_secs: None,
            records: std::sync::Arc::default(),
            clock: revu_domain::clock::system(),
        };
        // Job streams get their group when a worker first reads them.
        for shard in layout::shards() {
            backend
                .ensure_group(&backend.layout.sharded(shard, "results"), COORDINATOR_GROUP)
                .await?;
        }
        Ok(backend)
    }

    /// Keeps a finished review's keys (its record, diff, report, lanes,
    /// attempts and events) for `retention` after it finishes, then lets
    /// Redis expire them; `None` keeps them until they are deleted by hand.
    /// The review's idempotency key, which holds it for a day, expires with
    /// it when that comes sooner. Needs Redis 7 (`EXPIRE … LT`).
    pub fn with_review_retention(mut self, retention: Option<Duration>) -> Self {
        self.retention_secs = retention
            .filter(|r| !r.is_zero())
            .map(|r| r.as_secs().max(1));
        self
    }

    /// Reads the time a retry's due time is compared with from `clock`
    /// (by default the system's). What Redis times itself (an entry's
    /// idle time, a key's expiry) follows the server's clock.
    pub fn with_clock(mut self, clock: impl Clock + 'static) -> Self {
        self.clock = std::sync::Arc::new(clock);
        self
    }

    /// The clock this backend reads.
    pub fn clock(&self) -> &SharedClock {
        &self.clock
    }

    /// Where lane jobs travel, for the attributes of producer and consumer
    /// spans (each job's stream is `{p:N}:jobs:{engine}`).
    pub fn job_target(&self) -> revu_domain::telemetry::MessagingTarget {
        revu_domain::telemetry::MessagingTarget {
            system: "redis",
            destination: self.layout.global("jobs"),
            group: WORKER_GROUP.to_owned(),
        }
    }

    /// Every engine that has a job stream in any shard.
    async fn job_engines(&self) -> Result<Vec<String>, QueueError> {
        let mut conn = self.conn.clone();
        let mut engines = std::collections::BTreeSet::new();
        for shard in layout::shards() {
            let some: Vec<String> = redis::cmd("SMEMBERS")
                .arg(self.layout.sharded(shard, "engines"))
                .query_async(&mut conn)
                .await?;
            engines.extend(some);
        }
        Ok(engines.into_iter().collect())
    }

    /// On a cluster, waits (briefly) until a replica of `key`'s master has
    /// every write made so far, so that a failover right after does not
    /// lose what was just acknowledged; returns how many replicas have it.
    /// On one Redis, does nothing.
    async fn replicate(&self, key: &str) -> Result<u64, QueueError> {
        use redis::cluster_routing::{Route, RoutingInfo, SingleNodeRoutingInfo, SlotAddr};
        let Conn::Cluster(conn) = &self.conn else {
            return Ok(0);
        };
        let mut conn = conn.clone();
        let mut wait = redis::cmd("WAIT");
        wait.arg(1).arg(REPLICATION_WAIT_MS);
        let route = RoutingInfo::SingleNode(SingleNodeRoutingInfo::SpecificNode(Route::with_key(
            key,
            SlotAddr::Master,
        )));
        let acked = conn.route_command(wait, route).await?;
        Ok(redis::from_redis_value_ref(&acked).unwrap_or(0))
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

/// The handle of entry `id` on a stream of shard `shard`.
fn sharded_entry(shard: u16, id: &str) -> String {
    format!("{shard}/{id}")
}

/// The shard and stream entry id of a handle [`sharded_entry`] made.
fn split_sharded_entry(entry: &str) -> Result<(u16, &str), QueueError> {
    entry
        .split_once('/')
        .and_then(|(s, id)| Some((s.parse::<u16>().ok().filter(|s| *s < layout::SHARDS)?, id)))
        .ok_or_else(|| QueueError::BadEntry(entry.to_owned()))
}

/// The shard, engine and stream entry id of a job handle
/// (`{engine}/{shard}/{id}`).
fn split_handle(entry: &str) -> Result<(u16, &str, &str), QueueError> {
    let (engine, rest) = super::split_job_entry(entry)?;
    let (shard, id) =
        split_sharded_entry(rest).map_err(|_| QueueError::BadEntry(entry.to_owned()))?;
    Ok((shard, engine, id))
}
