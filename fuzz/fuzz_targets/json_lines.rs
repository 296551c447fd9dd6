//! Fuzz target: see `pedelec_fuzz::checks::json_lines`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pedelec_fuzz::checks::json_lines::check(data));
