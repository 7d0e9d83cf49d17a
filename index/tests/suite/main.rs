//! The integration tests of the code index, in one binary: each module
//! was a test binary of its own, and linking the workspace once instead of
//! once per file is most of a clean test build.

mod common;

mod bindings;
mod cache;
mod extractor_version;
mod index;
mod snippets;
mod workspaces;
