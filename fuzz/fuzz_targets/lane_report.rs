//! Fuzz target `lane_report`: see `revu_stages::fuzzing::lane_report`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| revu_stages::fuzzing::lane_report(data));
