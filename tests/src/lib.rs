//! The end-to-end harness: a real `redis-server` on a free loopback port,
//! and the revu binaries as real processes. Everything started here is
//! stopped by its own guard, by PID.

pub mod bins;
pub mod procs;
pub mod redis_server;

pub use bins::{bin, example};
pub use procs::{Cluster, Proc, free_port};
pub use redis_server::RedisServer;
