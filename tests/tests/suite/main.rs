//! The integration tests of whole processes against a real Redis, in one binary: each module
//! was a test binary of its own, and linking the workspace once instead of
//! once per file is most of a clean test build.

mod adjudication;
mod alerts;
mod bench;
mod breadth;
mod cancel_race;
mod cardinality;
mod ci_recipes;
mod code_index;
mod dashboard;
mod distributed;
mod faults;
mod health;
mod helm_chart;
mod helm_render;
mod lane_cache;
mod lifecycle;
mod limits;
mod llm_server;
mod logs;
mod metrics;
mod phases;
mod prometheus;
mod python_interop;
mod queue_conformance;
mod redis_cluster;
mod redis_store;
mod restarts;
mod routing;
mod secrets;
mod shared_index;
mod shared_index_store;
mod soak;
mod sweeper;
mod telemetry;
mod tenants;
mod tls;
mod upgrade;
