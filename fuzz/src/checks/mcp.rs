//! The MCP bridge (`bridge::Mcp`, through `rmcp`) fed arbitrary JSON-RPC lines.
//!
//! Input: byte 0 picks whether a valid `initialize` handshake comes first, the pipe's
//! capacity and whether a fallback handler is set; byte 1 seeds the chunking; the rest is
//! sent as the client's messages. After the last byte the client waits (virtual time) for
//! every call to finish, then closes its side: the server must return within
//! [`HANG_AFTER`].
//!
//! Invariants:
//! - every line the server writes is a JSON-RPC 2.0 object;
//! - every response answers a request that was sent (or is an error with a `null` id);
//!   when the request ids sent are distinct, none is answered twice;
//! - after a valid handshake, every well-formed `tools/call` request (distinct id, object
//!   `params` with a string `name`, `arguments` absent or an object) that was not cancelled
//!   is answered exactly once, while the connection is still open; a failed call's answer
//!   carries one of the result codes.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use pedelec_core::bridge::Mcp;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::{HANG_AFTER, RESULT_CODES, Rng, block_on, chunks, test_session};

const HANDSHAKE: &str = concat!(
    r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    "\n"
);

/// Runs one conversation; panics when an invariant does not hold.
pub fn check(data: &[u8]) {
    super::install_panic_filter();
    let (flags, seed, body) = match data {
        [a, b, rest @ ..] => (*a, *b, rest),
        _ => return,
    };
    let handshake = flags & 1 != 0;
    let pipe = [1, 64, 1 << 16][usize::from((flags >> 1) & 3) % 3];
    let fallback = flags & 8 != 0;
    let mut input = Vec::new();
    if handshake {
        input.extend_from_slice(HANDSHAKE.as_bytes());
    }
    input.extend_from_slice(body);

    let mut rng = Rng::new(u64::from(seed));
    let pieces = chunks(&input, &mut rng);
    let shown = String::from_utf8_lossy(&input).into_owned();
    let output = block_on(async move {
        let session = test_session(fallback);
        let (client, server_end) = tokio::io::duplex(pipe);
        let (r, w) = tokio::io::split(server_end);
        let served = tokio::spawn(session.serve(Mcp::from_parts(r, w)));
        let (mut from_server, mut to_server) = tokio::io::split(client);
        let writer = tokio::spawn(async move {
            for piece in &pieces {
                if to_server.write_all(piece).await.is_err() {
                    return; // the server closed the connection
                }
            }
            // Every call ends within its timeout (50 ms at most): wait for the answers
            // before closing.
            tokio::time::sleep(Duration::from_secs(1)).await;
            let _ = to_server.shutdown().await;
        });
        let conversation = async {
            let mut out = Vec::new();
            let _ = from_server.read_to_end(&mut out).await;
            writer.await.expect("the writer task");
            // An error is fine here (garbage before `initialize`): it must just end.
            let _ = served.await.expect("the serve task");
            out
        };
        match tokio::time::timeout(HANG_AFTER, conversation).await {
            Ok(out) => out,
            Err(tokio::time::error::Elapsed { .. }) => panic!(
                "hang: the MCP conversation did not end within {HANG_AFTER:?} (virtual)\ninput: {shown:?}"
            ),
        }
    });
    check_transcript(handshake, &input, &output);
}

fn check_transcript(handshake: bool, input: &[u8], output: &[u8]) {
    let context = format!(
        "input: {}\noutput: {}",
        String::from_utf8_lossy(input),
        String::from_utf8_lossy(output)
    );
    // What the client sent.
    let mut request_ids: Vec<Value> = Vec::new();
    let mut calls: Vec<Value> = Vec::new();
    let mut cancelled: HashSet<String> = HashSet::new();
    for line in input.split(|&b| b == b'\n') {
        let Ok(msg) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        let Some(method) = msg.get("method").and_then(Value::as_str) else {
            continue;
        };
        if method == "notifications/cancelled" {
            cancelled.insert(msg["params"]["requestId"].to_string());
        }
        let Some(id) = msg.get("id") else { continue };
        request_ids.push(id.clone());
        let params = &msg["params"];
        if method == "tools/call"
            && msg["jsonrpc"] == "2.0"
            && (id.is_string() || id.is_i64() || id.is_u64())
            && params["name"].is_string()
            && params
                .get("arguments")
                .is_none_or(|a| a.is_object() || a.is_null())
            && params.as_object().is_some_and(|p| {
                p.keys()
                    .all(|k| matches!(k.as_str(), "name" | "arguments" | "_meta"))
            })
            && params
                .get("_meta")
                .is_none_or(|m| m.is_null() || m.as_object().is_some_and(serde_json::Map::is_empty))
        {
            calls.push(id.clone());
        }
    }
    let distinct = {
        let texts: HashSet<String> = request_ids.iter().map(Value::to_string).collect();
        texts.len() == request_ids.len()
    };

    // What the server answered.
    let text = String::from_utf8_lossy(output);
    let mut answered: HashMap<String, Vec<Value>> = HashMap::new();
    for line in text.split('\n').filter(|l| !l.trim().is_empty()) {
        let msg: Value = serde_json::from_str(line).unwrap_or_else(|e| {
            panic!("the server wrote a line that is not JSON ({e}): {line}\n{context}")
        });
        assert_eq!(msg["jsonrpc"], "2.0", "{line}\n{context}");
        if msg.get("method").is_some() {
            continue; // a request or notification of the server's own
        }
        let id = msg.get("id").cloned().unwrap_or(Value::Null);
        if id.is_null() {
            assert!(
                msg.get("error").is_some(),
                "a result without an id: {line}\n{context}"
            );
            continue;
        }
        assert!(
            request_ids.contains(&id),
            "an answer to {id}, which was never sent: {line}\n{context}"
        );
        answered.entry(id.to_string()).or_default().push(msg);
    }
    if distinct {
        for (id, answers) in &answered {
            assert!(
                answers.len() == 1,
                "request {id} answered {} times\n{context}",
                answers.len()
            );
        }
    }
    if !(handshake && distinct) {
        return;
    }
    // The handshake was answered; then every well-formed call.
    let init = answered
        .get("\"init\"")
        .unwrap_or_else(|| panic!("`initialize` was not answered\n{context}"));
    assert!(init[0].get("result").is_some(), "{context}");
    for id in &calls {
        let key = id.to_string();
        if cancelled.contains(&key) {
            continue;
        }
        let answers = answered
            .get(&key)
            .unwrap_or_else(|| panic!("the call {key} was not answered\n{context}"));
        let answer = &answers[0];
        if let Some(result) = answer.get("result")
            && result["isError"] == true
            && let Some(error) = result.get("structuredContent")
        {
            let code = error["code"].as_str().unwrap_or_default();
            assert!(
                RESULT_CODES.contains(&code),
                "unknown result code: {answer}\n{context}"
            );
        }
    }
}
