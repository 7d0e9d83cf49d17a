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

pub use error::{DiffError, DiffErrorKind, HunkSide};
pub use model::{Diff, FilePatch, FileStatus, Hunk, Line, LineKind};
pub use parse::parse;
