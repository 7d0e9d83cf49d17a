//! The integration tests of the review stages, in one binary: each module
//! was a test binary of its own, and linking the workspace once instead of
//! once per file is most of a clean test build.

mod boundary;
mod fuzz_corpus;
