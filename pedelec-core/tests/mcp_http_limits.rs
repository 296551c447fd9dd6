//! `McpHttp` against clients that are slow, greedy, broken or gone: a header that never
//! ends, more connections than the cap, a peer that never reads its answer, bodies that are
//! not JSON or not JSON-RPC, and the session shutting down. Each test checks what happens,
//! never how fast (a bound on waiting only keeps a broken server from hanging the test).

mod support;

use std::net::SocketAddr;
use std::time::Duration;

use pedelec_core::Session;
use pedelec_core::bridge::McpHttp;
use serde_json::{Value, json};
use support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpSocket, TcpStream};

/// Long enough for anything this machine does; short enough to fail a test that hangs.
const PATIENCE: Duration = Duration::from_secs(20);

fn session() -> Session<ToolName> {
    session_with_sleeping_manual()
}

async fn serve(
    session: &Session<ToolName>,
    configure: impl FnOnce(McpHttp) -> McpHttp,
) -> (
    SocketAddr,
    tokio::task::JoinHandle<Result<(), pedelec_core::Error>>,
) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let bridge = configure(McpHttp::from_listener(listener)).shutdown_on(std::future::pending());
    (addr, tokio::spawn(session.serve(bridge)))
}

/// A raw HTTP/1.1 POST of `body` to `/mcp`.
fn request(addr: SocketAddr, body: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// Reads one response (head and a `content-length` body).
async fn read_response(stream: &mut TcpStream) -> (u16, String, Vec<u8>) {
    let mut buf = Vec::new();
    let mut chunk = [0; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = stream.read(&mut chunk).await.unwrap();
        assert!(n > 0, "the connection closed before a response: {buf:?}");
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_lowercase();
    let status: u16 = head[9..12].parse().unwrap();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .map_or(0, |v| v.trim().parse().unwrap());
    while buf.len() < head_end + length {
        let n = stream.read(&mut chunk).await.unwrap();
        assert!(n > 0, "the connection closed inside a body");
        buf.extend_from_slice(&chunk[..n]);
    }
    (status, head, buf[head_end..head_end + length].to_vec())
}

/// Whether the peer closed the connection (a read gives end of file or a reset).
async fn closed(stream: &mut TcpStream) -> bool {
    let mut buf = [0; 1024];
    loop {
        match tokio::time::timeout(PATIENCE, stream.read(&mut buf)).await {
            Err(_) => return false,
            Ok(Ok(0) | Err(_)) => return true,
            Ok(Ok(_)) => {}
        }
    }
}

#[tokio::test]
async fn a_body_that_is_not_json_rpc_gets_400_and_a_json_rpc_error() {
    let session = session();
    let (addr, _serving) = serve(&session, |b| b).await;
    for (body, code) in [
        ("{not json", -32700),
        ("\u{1}", -32700),
        (r#"{"jsonrpc":"2.0","id":1}"#, -32600),
        ("[1,2]", -32600),
        (r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#, -32600),
    ] {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream
            .write_all(request(addr, body).as_bytes())
            .await
            .unwrap();
        let (status, head, body_bytes) = read_response(&mut stream).await;
        assert_eq!(status, 400, "{body}");
        assert!(head.contains("content-type: application/json"), "{head}");
        let answer: Value = serde_json::from_slice(&body_bytes).unwrap();
        assert_eq!(answer["id"], Value::Null, "{body}");
        assert_eq!(answer["error"]["code"], code, "{body}: {answer}");
    }
}

#[tokio::test]
async fn a_header_that_never_ends_is_timed_out() {
    let session = session();
    let (addr, _serving) = serve(&session, |b| b.header_timeout(Duration::from_millis(200))).await;
    let mut slow = Vec::new();
    for _ in 0..20 {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream
            .write_all(b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: applic")
            .await
            .unwrap();
        slow.push(stream);
    }
    for stream in &mut slow {
        assert!(
            closed(stream).await,
            "a connection with half a header stays open"
        );
    }
    // Those connections are gone: a well-formed request is served.
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    stream
        .write_all(request(addr, list).as_bytes())
        .await
        .unwrap();
    assert_eq!(read_response(&mut stream).await.0, 200);
}

#[tokio::test]
async fn connections_past_the_cap_get_503_and_are_closed() {
    let session = session();
    let (addr, _serving) = serve(&session, |b| b.max_connections(2)).await;
    let list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    // Two kept-alive connections, each served once.
    let mut held = Vec::new();
    for _ in 0..2 {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream
            .write_all(request(addr, list).as_bytes())
            .await
            .unwrap();
        assert_eq!(read_response(&mut stream).await.0, 200);
        held.push(stream);
    }
    // A third is told why, and closed.
    let mut third = TcpStream::connect(addr).await.unwrap();
    third
        .write_all(request(addr, list).as_bytes())
        .await
        .unwrap();
    let (status, head, body) = read_response(&mut third).await;
    assert_eq!(status, 503);
    assert!(head.contains("retry-after: 1"), "{head}");
    let answer: Value = serde_json::from_slice(&body).unwrap();
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("at most 2 connections"),
        "{answer}"
    );
    assert!(closed(&mut third).await);
    // Once one of the two goes, a new connection is served.
    drop(held.pop());
    let served = async {
        loop {
            let mut stream = TcpStream::connect(addr).await.unwrap();
            stream
                .write_all(request(addr, list).as_bytes())
                .await
                .unwrap();
            if read_response(&mut stream).await.0 == 200 {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(PATIENCE, served).await.unwrap();
}

#[tokio::test]
async fn a_peer_that_never_reads_is_disconnected() {
    let session = session();
    let (addr, _serving) = serve(&session, |b| {
        b.write_timeout(Duration::from_millis(300))
            .max_body_bytes(64 << 20)
            .max_connections(1)
    })
    .await;
    // An answer far larger than the socket buffers, to a client whose receive buffer is
    // small and who reads nothing.
    let text = "x".repeat(16 << 20);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "manual", "arguments": {"text": text}}})
    .to_string();
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut greedy = socket.connect(addr).await.unwrap();
    greedy
        .write_all(request(addr, &body).as_bytes())
        .await
        .unwrap();
    // The only connection is taken; it is given back once the write stalled long enough.
    let served = async {
        loop {
            let mut stream = TcpStream::connect(addr).await.unwrap();
            let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
            stream
                .write_all(request(addr, list).as_bytes())
                .await
                .unwrap();
            if read_response(&mut stream).await.0 == 200 {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(PATIENCE, served)
        .await
        .expect("the stalled connection is closed and its slot served again");
    drop(greedy);
}

#[tokio::test]
async fn serving_ends_when_the_session_shuts_down() {
    let session = session();
    let (addr, serving) = serve(&session, |b| b).await;
    // A call in flight when the shutdown starts is answered.
    let slow = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "manual", "arguments": {"text": "t", "repeat": 300}}})
    .to_string();
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(request(addr, &slow).as_bytes())
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    let shutdown = tokio::spawn(session.shutdown(Duration::from_secs(10)));
    let (status, _, body) = read_response(&mut stream).await;
    assert_eq!(status, 200);
    let answer: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    tokio::time::timeout(PATIENCE, shutdown)
        .await
        .unwrap()
        .unwrap();
    let served = tokio::time::timeout(PATIENCE, serving)
        .await
        .expect("`serve` returns once the session's shutdown is over");
    assert!(served.unwrap().is_ok());
    assert!(
        TcpStream::connect(addr).await.is_err(),
        "nothing listens any more"
    );
}
