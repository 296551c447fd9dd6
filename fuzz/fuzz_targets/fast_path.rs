//! Fuzz target: see `pedelec_fuzz::checks::fast_path`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pedelec_fuzz::checks::fast_path::check(data));
