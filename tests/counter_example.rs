//! The counter example: what `cargo run --example counter` prints is
//! `tests/golden/counter_transcript.txt` (refresh with
//! `UPDATE_EXPECT=1 cargo test --test counter_example`, or `cargo xtask bless`, and review
//! the diff), and what `--stdio` serves answers JSON Lines per `docs/protocol.md` (here over
//! an in-memory pipe instead of standard input and output).

#[allow(dead_code, reason = "the example's `main` is not called here")]
#[path = "../examples/counter.rs"]
mod counter;

use pedelec::bridge::JsonLines;
use pedelec::context::Caller;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

#[tokio::test]
async fn the_transcript_matches_the_golden_file() {
    let transcript = counter::transcript().await.unwrap();
    expect_test::expect_file!["golden/counter_transcript.txt"].assert_eq(&transcript);
}

#[tokio::test]
async fn the_stdio_session_answers_each_line_and_says_what_is_wrong_with_bad_ones() {
    let (core, session_end) = tokio::io::duplex(1 << 16);
    let serving = tokio::spawn(
        counter::demo_session()
            .unwrap()
            .serve(JsonLines::new(session_end).caller(Caller::new("core").with_every_scope())),
    );
    let (reader, mut writer) = tokio::io::split(core);
    let input = [
        r#"{"type":"tool_call","callId":"1","name":"update_counter","args":{"delta":2}}"#,
        r#"{"type":"tool_call","callId":"2","name":"update_counter","args":{"delta":"x"}}"#,
        "not json",
        r#"{"type":"tool_call","callId":"3","name":"get_current_page","args":{}}"#,
    ]
    .join("\n")
        + "\n";
    writer.write_all(input.as_bytes()).await.unwrap();
    let mut lines = BufReader::new(reader).lines();
    let mut received = Vec::new();
    while received.len() < 5 {
        let line = lines
            .next_line()
            .await
            .unwrap()
            .expect("the session answers");
        received.push(serde_json::from_str::<serde_json::Value>(&line).expect("JSON lines"));
    }
    // Core hangs up: the session stops serving.
    drop(writer);
    drop(lines);
    serving.await.unwrap().ok();

    assert_eq!(received[0]["type"], "manifest");
    assert_eq!(
        received[0]["manifest"]["tools"][1]["name"],
        "update_counter"
    );
    let result = |id: &str| {
        received
            .iter()
            .find(|l| l["type"] == "tool_result" && l["callId"] == id)
            .unwrap_or_else(|| panic!("no result for {id}: {received:?}"))["result"]
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
    let protocol_error = received
        .iter()
        .find(|l| l["type"] == "protocol_error")
        .unwrap();
    assert_eq!(protocol_error["code"], "MALFORMED_JSON");
    assert_eq!(protocol_error["line"], 3);
}
