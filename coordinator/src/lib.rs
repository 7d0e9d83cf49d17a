//! The revu coordinator: the gRPC API, lane dispatch and gathering, running
//! the deterministic stages of `revu-stages`.

pub mod auth;
pub mod config;
pub mod metrics;
pub mod server;
pub mod service;
