//! The checks behind pedelec's fuzz targets: each takes the fuzzer's bytes and panics when an
//! invariant does not hold. `pedelec-core/tests/fuzz_corpus.rs` replays the committed corpus
//! through the same functions on stable Rust.

pub mod checks;
