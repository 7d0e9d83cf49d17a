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
mod segments;
mod sink;
mod text;

pub use error::{DiffError, DiffErrorKind, HunkSide, ReadError};
pub(crate) use hunk::HunkHeader;
pub use model::{Diff, FilePatch, FileStatus, Hunk, Line, LineKind, MAX_LINE_NUMBER};
pub(crate) use parse::walk;
pub use parse::{parse, parse_text};
#[cfg(test)]
pub(crate) use segments::walk_in_segments;
pub(crate) use segments::{Cutting, walk_reader};
pub(crate) use sink::{BodyLine, Sink};
pub use text::LineText;
