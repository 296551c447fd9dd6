//! The soak test at 20,000 calls (`cargo xtask soak` runs 1,000,000): every call of a
//! client that stayed connected is answered exactly once with the code its kind calls for
//! (valid, bad args, handler error, panic, timeout, cancelled), while other clients
//! disconnect in the middle of their calls. The server runs in this process; its memory is
//! reported, not asserted (a test process's RSS at this size says little).

#[path = "../examples/soak/driver.rs"]
#[allow(dead_code, reason = "the example uses the rest")]
mod driver;
#[cfg(feature = "mcp")]
#[path = "../examples/soak/mcp_http.rs"]
mod mcp_http;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_thousand_calls_are_each_answered_exactly_once() {
    driver::quiet_deliberate_panics();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(driver::serve(listener, driver::session()));
    let report = driver::run(addr, driver::Config::new(20_000))
        .await
        .unwrap();
    server.abort();
    println!("{report}");
    assert!(report.problems.is_empty(), "{report}");
    assert_eq!(report.answered + report.abandoned, report.sent, "{report}");
    let total: u64 = report.codes.values().sum();
    assert_eq!(total, report.answered, "{report}");
    // Every kind of call was exercised.
    for code in [
        "OK",
        "TOOL_ARGS_INVALID",
        "TOOL_HANDLER_ERROR",
        "TOOL_TIMEOUT",
        "TOOL_CANCELLED",
    ] {
        assert!(
            report.codes.get(code).is_some_and(|&n| n > 0),
            "no {code}: {report}"
        );
    }
    assert!(report.abandoned > 0, "{report}");
}

/// The same over MCP's streamable HTTP transport (`cargo xtask soak --mcp-http` runs
/// 1,000,000).
#[cfg(feature = "mcp")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_thousand_mcp_http_calls_are_each_answered_exactly_once() {
    driver::quiet_deliberate_panics();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(mcp_http::serve(listener, driver::session(), async move {
        let _ = stopped.await;
    }));
    let report = mcp_http::run(addr, driver::Config::new(20_000))
        .await
        .unwrap();
    let _ = stop.send(());
    let _ = server.await;
    println!("{report}");
    assert!(report.problems.is_empty(), "{report}");
    assert_eq!(report.answered + report.abandoned, report.sent, "{report}");
    for code in [
        "OK",
        "TOOL_ARGS_INVALID",
        "TOOL_HANDLER_ERROR",
        "TOOL_TIMEOUT",
        "-32602",
        "-32700",
        "-32600",
    ] {
        assert!(
            report.codes.get(code).is_some_and(|&n| n > 0),
            "no {code}: {report}"
        );
    }
    assert!(report.abandoned > 0, "{report}");
}
