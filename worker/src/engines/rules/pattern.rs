//! The rules' regexes: [`revu_common::pattern`], guarded by their
//! literals and compiled on first use.

pub(crate) use revu_common::pattern::Pattern;
