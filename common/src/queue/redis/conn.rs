//! Connections for blocking reads.
//!
//! A blocking `XREADGROUP`/`XREAD` holds its connection until it returns, so
//! it must never share the multiplexed connection the other commands use, and
//! it needs no response timeout. Readers check one out of this pool and give
//! it back when the read returns; a connection that failed is dropped.

use redis::AsyncConnectionConfig;
use redis::aio::MultiplexedConnection;
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Clone)]
pub(super) struct BlockingPool {
    client: redis::Client,
    idle: Arc<Mutex<Vec<MultiplexedConnection>>>,
}

impl BlockingPool {
    pub(super) fn new(client: redis::Client) -> Self {
        BlockingPool {
            client,
            idle: Arc::new(Mutex::new(Vec::new())),
        }
    }

    pub(super) async fn checkout(&self) -> Result<MultiplexedConnection, redis::RedisError> {
        let reused = self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop();
        if let Some(conn) = reused {
            return Ok(conn);
        }
        let config = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(Duration::from_secs(5)))
            .set_response_timeout(None);
        self.client
            .get_multiplexed_async_connection_with_config(&config)
            .await
    }

    pub(super) fn give_back(&self, conn: MultiplexedConnection) {
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
