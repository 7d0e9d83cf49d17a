//! A git unified-diff reader: `parse` turns the bytes `git diff` writes into
//! a [`Diff`].

mod binary;
mod error;
mod header;
mod hunk;
mod lines;
mod model;
mod parse;
mod path;
mod quote;
mod sink;

pub use error::{DiffError, DiffErrorKind, HunkSide};
pub(crate) use hunk::HunkHeader;
pub use model::{Diff, FilePatch, FileStatus, Hunk, Line, LineKind};
pub use parse::parse;
pub(crate) use parse::walk;
pub(crate) use sink::{BodyLine, Sink};
