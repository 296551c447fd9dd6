//! The counter example as a user runs it: `cargo run --example counter` prints the manifest
//! and the transcript in `tests/golden/counter_transcript.txt` (refresh with
//! `UPDATE_EXPECT=1 cargo test --test counter_example`, or `cargo xtask bless`, and review
//! the diff), and `--stdio` answers JSON Lines per `docs/protocol.md`.
//!
//! The example is built with the features of this test, so `cargo test` has built it
//! already and `cargo run` only starts it.

use std::io::Write as _;
use std::process::{Command, Stdio};

/// Runs the example with `args`, writing `stdin` to it; returns its standard output.
fn run_counter(args: &[&str], stdin: &str) -> String {
    let mut command = Command::new(env!("CARGO"));
    command
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["run", "-q", "--example", "counter"]);
    if cfg!(feature = "mcp") {
        command.args(["--features", "mcp"]);
    }
    let mut child = command
        .arg("--")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cargo runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "the example failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn the_transcript_matches_the_golden_file() {
    let transcript = run_counter(&[], "");
    expect_test::expect_file!["golden/counter_transcript.txt"].assert_eq(&transcript);
}

#[test]
fn stdio_answers_each_line_and_says_what_is_wrong_with_bad_ones() {
    let input = [
        r#"{"type":"tool_call","callId":"1","name":"update_counter","args":{"delta":2}}"#,
        r#"{"type":"tool_call","callId":"2","name":"update_counter","args":{"delta":"x"}}"#,
        "not json",
        r#"{"type":"tool_call","callId":"3","name":"get_current_page","args":{}}"#,
    ]
    .join("\n")
        + "\n";
    let output = run_counter(&["--stdio"], &input);
    let lines: Vec<serde_json::Value> = output
        .lines()
        .map(|l| serde_json::from_str(l).expect("every output line is JSON"))
        .collect();
    assert_eq!(lines.len(), 5, "{output}");
    assert_eq!(lines[0]["type"], "manifest");
    assert_eq!(lines[0]["manifest"]["tools"][1]["name"], "update_counter");
    let result = |id: &str| {
        lines
            .iter()
            .find(|l| l["type"] == "tool_result" && l["callId"] == id)
            .unwrap_or_else(|| panic!("no result for {id}: {output}"))["result"]
            .clone()
    };
    assert_eq!(
        result("1"),
        serde_json::json!({"ok": true, "value": {"value": 2}})
    );
    assert_eq!(result("2")["error"]["code"], "TOOL_ARGS_INVALID");
    assert_eq!(
        result("2")["error"]["details"]["errors"][0]["pointer"],
        "/delta"
    );
    // Calls run concurrently: the page is read, whatever the counter shows by then.
    assert_eq!(result("3")["ok"], true);
    let protocol_error = lines
        .iter()
        .find(|l| l["type"] == "protocol_error")
        .unwrap();
    assert_eq!(protocol_error["code"], "MALFORMED_JSON");
    assert_eq!(protocol_error["line"], 3);
}
