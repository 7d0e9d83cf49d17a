//! The rules' regexes: [`revu_common::pattern`], guarded by their
//! literals (worked out when the program is built) and compiled on first
//! use.

pub(crate) use revu_common::pattern::{Pattern, pattern};
