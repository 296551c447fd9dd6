//! The closing line of a test binary with its own `main` (`harness = false`), as libtest
//! writes it, and the exit code that goes with it.

use std::process::ExitCode;
use std::time::Instant;

/// Prints libtest's `test result:` line and answers success when nothing failed.
pub fn finish(
    passed: usize,
    failed: usize,
    skipped: usize,
    filtered: usize,
    started: Instant,
) -> ExitCode {
    let status = if failed == 0 { "ok" } else { "FAILED" };
    println!(
        "\ntest result: {status}. {passed} passed; {failed} failed; {skipped} ignored; 0 measured; {filtered} filtered out; finished in {:.2}s\n",
        started.elapsed().as_secs_f64()
    );
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
