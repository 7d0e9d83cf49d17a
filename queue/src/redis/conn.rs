//! Connections: one shared for ordinary commands, a pool for blocking
//! reads, to one Redis or to a Redis Cluster.
//!
//! A blocking `XREADGROUP`/`XREAD` holds its connection until it returns, so
//! it must never share the multiplexed connection the other commands use, and
//! it needs no response timeout. Readers check one out of the pool and give
//! it back when the read returns; a connection that failed is dropped.

use redis::aio::{ConnectionLike, ConnectionManager, MultiplexedConnection};
use redis::cluster::ClusterClient;
use redis::cluster_async::ClusterConnection;
use redis::{AsyncConnectionConfig, Cmd, Pipeline, RedisFuture, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A connection to one Redis or to a cluster; commands on a cluster go to
/// the master of their first key's slot, and follow it when it moves.
#[derive(Clone)]
pub enum Conn {
    Managed(ConnectionManager),
    Multiplexed(MultiplexedConnection),
    Cluster(ClusterConnection),
}

impl std::fmt::Debug for Conn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Conn::Managed(_) => "Conn::Managed",
            Conn::Multiplexed(_) => "Conn::Multiplexed",
            Conn::Cluster(_) => "Conn::Cluster",
        })
    }
}

impl ConnectionLike for Conn {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            Conn::Managed(c) => c.req_packed_command(cmd),
            Conn::Multiplexed(c) => c.req_packed_command(cmd),
            Conn::Cluster(c) => c.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            Conn::Managed(c) => c.req_packed_commands(pipeline, offset, count),
            Conn::Multiplexed(c) => c.req_packed_commands(pipeline, offset, count),
            Conn::Cluster(c) => c.req_packed_commands(pipeline, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Conn::Managed(c) => c.get_db(),
            Conn::Multiplexed(c) => c.get_db(),
            Conn::Cluster(c) => c.get_db(),
        }
    }
}

/// What blocking connections are made from.
#[derive(Clone)]
pub(super) enum Source {
    Single(Box<redis::Client>),
    /// A cluster client whose responses may take as long as a read blocks.
    Cluster(Box<ClusterClient>),
}

#[derive(Clone)]
pub(super) struct BlockingPool {
    source: Source,
    idle: Arc<Mutex<Vec<Conn>>>,
}

impl BlockingPool {
    pub(super) fn new(source: Source) -> Self {
        BlockingPool {
            source,
            idle: Arc::new(Mutex::new(Vec::new())),
        }
    }

    pub(super) async fn checkout(&self) -> Result<Conn, redis::RedisError> {
        let reused = self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop();
        if let Some(conn) = reused {
            return Ok(conn);
        }
        match &self.source {
            Source::Single(client) => {
                let config = AsyncConnectionConfig::new()
                    .set_connection_timeout(Some(Duration::from_secs(5)))
                    .set_response_timeout(None);
                Ok(Conn::Multiplexed(
                    client
                        .get_multiplexed_async_connection_with_config(&config)
                        .await?,
                ))
            }
            Source::Cluster(client) => Ok(Conn::Cluster(client.get_async_connection().await?)),
        }
    }

    pub(super) fn give_back(&self, conn: Conn) {
        let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
        if idle.len() < 64 {
            idle.push(conn);
        }
    }
}

/// Milliseconds for a `BLOCK` argument; 0 would mean "forever" to Redis, so
/// a zero wait is sent as 1 ms.
pub(super) fn block_ms(wait: Duration) -> u64 {
    u64::try_from(wait.as_millis()).unwrap_or(u64::MAX).max(1)
}
