//! Fuzz target: see `pedelec_fuzz::checks::code_mode`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pedelec_fuzz::checks::code_mode::check(data));
