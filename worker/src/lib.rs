//! The revu worker: consumes lane jobs from the queue and runs review
//! engines on them.

pub mod config;
pub mod engines;
pub mod metrics;
pub mod runner;
