//! Fuzz target: see `pedelec_fuzz::checks::schema_from_json`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pedelec_fuzz::checks::schema_from_json::check(data));
