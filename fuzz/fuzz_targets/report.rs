//! Fuzz target `report`: see `revu_stages::fuzzing::report`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| revu_stages::fuzzing::report(data));
