//! The integration tests of the coordinator library, in one binary: each module
//! was a test binary of its own, and linking the workspace once instead of
//! once per file is most of a clean test build.

mod conventions;
mod flags;
mod sweep;
mod triage;
