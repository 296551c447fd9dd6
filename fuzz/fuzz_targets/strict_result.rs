//! Fuzz target: see `pedelec_fuzz::checks::strict_result`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pedelec_fuzz::checks::strict_result::check(data));
