//! The integration tests of the `revu` binary, in one binary: each module
//! was a test binary of its own, and linking the workspace once instead of
//! once per file is most of a clean test build.

mod model_server;
mod scratch;

mod adjudication_llm;
mod blast_radius;
mod cli;
mod coverage;
mod eval;
mod eval_judge;
mod git;
mod golden;
mod index_cache;
mod intent;
mod lint;
mod llm;
mod llm_context;
mod llm_families;
mod packages;
mod quiet;
mod render;
mod repo;
mod rules;
mod workspaces;
