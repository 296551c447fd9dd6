//! Replays the fuzz corpus (`fuzz/corpus/<target>/`, minimized with `cargo fuzz cmin`)
//! through the very checks the fuzz targets run (`fuzz/src/checks/`), on stable Rust: what
//! the fuzzer learned (and every regression it found) stays tested in CI. A missing or
//! empty corpus directory fails.

#[path = "../../fuzz/src/checks/mod.rs"]
mod checks;

use std::path::PathBuf;

fn replay(target: &str, check: fn(&[u8])) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus")
        .join(target);
    let entries = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("the fuzz corpus {} is missing: {e}", dir.display()));
    let mut files: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "the fuzz corpus {} is empty",
        dir.display()
    );
    for file in &files {
        let data = std::fs::read(file).unwrap();
        let outcome = std::panic::catch_unwind(|| check(&data));
        if let Err(panic) = outcome {
            eprintln!("{target}: {} fails", file.display());
            std::panic::resume_unwind(panic);
        }
    }
}

#[test]
fn json_lines() {
    replay("json_lines", checks::json_lines::check);
}

#[cfg(feature = "mcp")]
#[test]
fn mcp() {
    replay("mcp", checks::mcp::check);
}

#[cfg(feature = "code-mode")]
#[test]
fn code_mode() {
    replay("code_mode", checks::code_mode::check);
}

#[test]
fn schema_from_json() {
    replay("schema_from_json", checks::schema_from_json::check);
}

#[test]
fn skills_from_json() {
    replay("skills_from_json", checks::skills_from_json::check);
}

#[test]
fn fast_path() {
    replay("fast_path", checks::fast_path::check);
}

#[test]
fn ecma() {
    replay("ecma", checks::ecma::check);
}

#[test]
fn strict_result() {
    replay("strict_result", checks::strict_result::check);
}
