//! Fuzz target `repo_config`: see `revu_stages::fuzzing::repo_config`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| revu_stages::fuzzing::repo_config(data));
