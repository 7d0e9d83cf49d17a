//! The revu coordinator: the gRPC API, the deterministic review stages, lane
//! dispatch and gathering.

pub mod assemble;
pub mod config;
pub mod conventions;
pub mod metrics;
pub mod prepare;
pub mod server;
pub mod service;
pub mod stages;
