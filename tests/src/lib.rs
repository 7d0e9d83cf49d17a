//! The end-to-end harness: a real `redis-server` (and, for the model test,
//! a real `llama-server`) on a free loopback port, and the revu binaries as
//! real processes, each on the port it bound. Everything started here is
//! stopped by its own guard, by PID.

pub mod bins;
pub mod certs;
pub mod client;
pub mod fake_openai;
pub mod git;
pub mod history;
pub mod llm_server;
pub mod otlp;
pub mod procs;
pub mod prometheus;
pub mod queue_fixtures;
pub mod redis_cluster;
pub mod redis_docker;
pub mod redis_server;
pub mod scenario;
pub mod scrape;

pub use bins::{bin, example, fault_engine};
pub use client::Client;
pub use git::git;
pub use llm_server::LlmServer;
pub use procs::{Cluster, Proc};
pub use redis_cluster::RedisCluster;
pub use redis_server::RedisServer;
