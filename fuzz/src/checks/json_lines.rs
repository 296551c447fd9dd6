//! The JSON Lines bridge (`bridge::JsonLines`, `docs/protocol.md`) fed arbitrary bytes.
//!
//! Input: byte 0 picks the limits (`max_line_bytes`, `max_depth`), the pipe's capacity and
//! whether a fallback handler is set; byte 1 seeds how the rest is cut into chunks (and where
//! the writer pauses, so that cancels and timeouts meet calls in flight); the rest is what
//! Core sends. The conversation runs on a paused clock and must end (Core closes its side,
//! the session answers what is in flight and returns `Ok`) within [`HANG_AFTER`].
//!
//! Invariants, from an independent reading of the input (split at `\n`, JSON-parsed with
//! `serde_json`):
//! - the first line out is the manifest; every line out is a JSON object with a known
//!   `type`, results have a known shape, protocol errors a known code and a line number
//!   that exists;
//! - no input line gets two protocol errors; a blank line gets none; a line that is too
//!   long, not JSON, nested too deep, or neither a `tool_call` nor a `cancel` gets exactly
//!   one;
//! - every `tool_call` line that got no protocol error gets exactly one `tool_result`
//!   (counted per call id, since ids may be reused once answered), and no result answers a
//!   call that was not accepted.

use std::collections::HashMap;
use std::fmt::Write as _;

use pedelec_core::bridge::JsonLines;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::{HANG_AFTER, Rng, block_on, check_result_shape, chunks, depth, test_session};

const PROTOCOL_CODES: &[&str] = &[
    "MALFORMED_JSON",
    "INVALID_MESSAGE",
    "UNKNOWN_MESSAGE_TYPE",
    "LINE_TOO_LONG",
    "NESTING_TOO_DEEP",
    "UNKNOWN_CALL_ID",
    "DUPLICATE_CALL_ID",
];

/// The limits and pipe of one run, from the first input byte.
#[derive(Debug, Clone, Copy)]
struct Config {
    max_line_bytes: usize,
    max_depth: usize,
    pipe: usize,
    fallback: bool,
}

impl Config {
    fn from_byte(b: u8) -> Self {
        Config {
            max_line_bytes: [48, 200, 4096, 1 << 20][usize::from(b & 3)],
            max_depth: [2, 3, 8, 64][usize::from((b >> 2) & 3)],
            pipe: [1, 7, 64, 1 << 16][usize::from((b >> 4) & 3)],
            fallback: b & 0x40 != 0,
        }
    }
}

/// Runs one conversation; panics when an invariant does not hold.
pub fn check(data: &[u8]) {
    super::install_panic_filter();
    let (config, seed, input) = match data {
        [a, b, rest @ ..] => (Config::from_byte(*a), *b, rest),
        _ => return,
    };
    let output = converse(config, seed, input);
    check_transcript(config, input, &output);
}

/// Sends `input` to a served session in random chunks; returns everything it wrote.
fn converse(config: Config, seed: u8, input: &[u8]) -> Vec<u8> {
    let mut rng = Rng::new(u64::from(seed));
    let pieces = chunks(input, &mut rng);
    let pauses: Vec<u64> = pieces
        .iter()
        .map(|_| match rng.below(8) {
            0 => 1 + rng.next() % 80,
            _ => 0,
        })
        .collect();
    block_on(async move {
        let session = test_session(config.fallback);
        let (core, session_end) = tokio::io::duplex(config.pipe);
        let bridge = JsonLines::new(session_end)
            .max_line_bytes(config.max_line_bytes)
            .max_depth(config.max_depth);
        let served = tokio::spawn(session.serve(bridge));
        let (mut from_session, mut to_session) = tokio::io::split(core);
        let writer = tokio::spawn(async move {
            for (piece, pause) in pieces.iter().zip(pauses) {
                to_session
                    .write_all(piece)
                    .await
                    .expect("the session reads");
                if pause > 0 {
                    tokio::time::sleep(std::time::Duration::from_millis(pause)).await;
                }
            }
            to_session.shutdown().await.expect("end of input");
        });
        let conversation = async {
            let mut out = Vec::new();
            from_session
                .read_to_end(&mut out)
                .await
                .expect("reading the session's output");
            writer.await.expect("the writer task");
            let served = served.await.expect("the serve task");
            assert!(
                served.is_ok(),
                "serve failed although Core read everything: {served:?}"
            );
            out
        };
        match tokio::time::timeout(HANG_AFTER, conversation).await {
            Ok(out) => out,
            Err(tokio::time::error::Elapsed { .. }) => panic!(
                "hang: the conversation did not end within {HANG_AFTER:?} (virtual) \nconfig: {config:?}\ninput: {:?}",
                String::from_utf8_lossy(input)
            ),
        }
    })
}

/// What one input line is, read independently of the bridge.
#[derive(Debug)]
enum Kind {
    /// Only white space: no answer.
    Blank,
    /// Must get exactly one protocol error.
    Bad,
    /// A `tool_call` with this id: a protocol error (e.g. a duplicate id) or one result.
    Call(String),
    /// A `cancel`: at most one protocol error (an unknown id).
    Cancel,
}

fn classify(line: &[u8], config: Config) -> Kind {
    if line.len() > config.max_line_bytes {
        return Kind::Bad;
    }
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Kind::Blank;
    }
    let Ok(value) = serde_json::from_slice::<Value>(line) else {
        return Kind::Bad;
    };
    if depth(&value) > config.max_depth {
        return Kind::Bad;
    }
    let field = |k: &str| value.get(k).and_then(Value::as_str);
    match (field("type"), field("callId"), field("name")) {
        (Some("tool_call"), Some(id), Some(_)) => Kind::Call(id.to_owned()),
        (Some("cancel"), Some(_), _) => Kind::Cancel,
        _ => Kind::Bad,
    }
}

fn check_transcript(config: Config, input: &[u8], output: &[u8]) {
    let mut context = String::new();
    let _ = write!(
        context,
        "config: {config:?}\ninput: {:?}\noutput: {}",
        String::from_utf8_lossy(input),
        String::from_utf8_lossy(output)
    );
    let text = std::str::from_utf8(output)
        .unwrap_or_else(|e| panic!("the output is not UTF-8: {e}\n{context}"));
    assert!(
        text.ends_with('\n'),
        "the output does not end with a newline\n{context}"
    );
    let mut out_lines = text[..text.len() - 1].split('\n');
    let manifest: Value = serde_json::from_str(out_lines.next().unwrap_or_default())
        .unwrap_or_else(|e| panic!("the first line is not JSON: {e}\n{context}"));
    assert_eq!(manifest["type"], "manifest", "{context}");
    assert_eq!(manifest["protocol"], 1, "{context}");

    // The input's lines (a last line without `\n` counts).
    let mut lines: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
    if input.is_empty() || input.ends_with(b"\n") {
        lines.pop();
    }
    let kinds: Vec<Kind> = lines.iter().map(|l| classify(l, config)).collect();

    let mut errors_on_line: HashMap<u64, Vec<String>> = HashMap::new();
    let mut results: HashMap<String, usize> = HashMap::new();
    for line in out_lines {
        let msg: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("an output line is not JSON ({e}): {line}\n{context}"));
        match msg["type"].as_str() {
            Some("tool_result") => {
                let id = msg["callId"]
                    .as_str()
                    .unwrap_or_else(|| panic!("a result without a callId: {line}\n{context}"));
                check_result_shape(&msg["result"], &context);
                *results.entry(id.to_owned()).or_default() += 1;
            }
            Some("protocol_error") => {
                let code = msg["code"].as_str().unwrap_or_default();
                assert!(
                    PROTOCOL_CODES.contains(&code),
                    "unknown protocol error code: {line}\n{context}"
                );
                assert!(msg["message"].is_string(), "{line}\n{context}");
                let n = msg["line"].as_u64().unwrap_or_else(|| {
                    panic!("a protocol error without a line: {line}\n{context}")
                });
                assert!(
                    n >= 1 && n <= lines.len() as u64,
                    "a protocol error for line {n} of {}: {line}\n{context}",
                    lines.len()
                );
                errors_on_line.entry(n).or_default().push(code.to_owned());
            }
            Some("tool_progress") => {}
            _ => panic!("an output line of unknown type: {line}\n{context}"),
        }
    }

    let mut expected: HashMap<String, usize> = HashMap::new();
    for (i, kind) in kinds.iter().enumerate() {
        let n = i as u64 + 1;
        let errors = errors_on_line.get(&n).map_or(&[][..], Vec::as_slice);
        match kind {
            Kind::Blank => assert!(
                errors.is_empty(),
                "blank line {n} got {errors:?}\n{context}"
            ),
            Kind::Bad => assert!(
                errors.len() == 1,
                "line {n} should get exactly one protocol error, got {errors:?}\n{context}"
            ),
            Kind::Cancel => assert!(
                errors.len() <= 1,
                "cancel line {n} got {errors:?}\n{context}"
            ),
            Kind::Call(id) => {
                assert!(errors.len() <= 1, "call line {n} got {errors:?}\n{context}");
                if errors.is_empty() {
                    *expected.entry(id.clone()).or_default() += 1;
                }
            }
        }
    }
    for (id, &n) in &expected {
        let got = results.get(id).copied().unwrap_or(0);
        assert_eq!(
            got, n,
            "call id {id:?}: {n} accepted call(s), {got} result(s)\n{context}"
        );
    }
    for (id, &got) in &results {
        assert!(
            expected.contains_key(id),
            "{got} result(s) for call id {id:?}, which no accepted call had\n{context}"
        );
    }
}
