//! The integration tests of the domain crate, in one binary: each module
//! was a test binary of its own, and linking the workspace once instead of
//! once per file is most of a clean test build.

mod support;

mod diff_fixtures;
mod facts_scan;
mod stored_records;
