//! The revu coordinator: the gRPC API, lane dispatch and gathering, running
//! the deterministic stages of `revu-stages`, and the code index's cache
//! entries a fleet shares.

pub mod auth;
pub mod config;
pub mod index_cache;
pub mod metrics;
pub mod server;
pub mod service;
