//! Fuzz target: see `pedelec_fuzz::checks::ecma`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pedelec_fuzz::checks::ecma::check(data));
