//! Fuzz target `review_md`: see `revu_stages::fuzzing::review_md`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| revu_stages::fuzzing::review_md(data));
