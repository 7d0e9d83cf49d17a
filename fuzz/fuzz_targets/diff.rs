//! Fuzz target `diff`: see `revu_stages::fuzzing::diff`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| revu_stages::fuzzing::diff(data));
