//! The rules' regexes: [`revu_domain::pattern`], guarded by their
//! literals (worked out when the program is built) and compiled on first
//! use.

pub(crate) use revu_domain::pattern::{Pattern, pattern};
