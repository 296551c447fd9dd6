//! Call policy (DESIGN §9–10): scopes and callers, rate and concurrency limits, and tower
//! layers around calls, in process and over JSON Lines.

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::task::{Context, Poll};
use std::time::Duration;

use pedelec::context::{Caller, Cancellation};
use pedelec::session::{RateLimit, ToolService};
use pedelec::{
    CallOptions, ErrorCode, Session, ToolArgs, ToolCall, ToolCallContext, ToolError, ToolResult,
    skills, tool,
};
use serde::Deserialize;
use serde_json::{Value, json};
use tower::{Layer, Service, ServiceExt};

#[derive(Deserialize, ToolArgs)]
struct Delta {
    /// How much to add.
    #[arg(minimum = -100, maximum = 100)]
    delta: i64,
}

/// Counts the calls that reached a handler.
#[derive(Default)]
struct Reached(AtomicUsize);

/// Adds `delta`; needs `counter:write`.
#[tool(scopes = ["counter:write"])]
async fn update_counter(args: Delta, ctx: ToolCallContext) -> Result<Value, ToolError> {
    ctx.state::<Reached>()?.0.fetch_add(1, SeqCst);
    let who = ctx.caller().map(|c| c.subject().to_owned());
    Ok(json!({"delta": args.delta, "caller": who}))
}

/// Reads, open to anyone.
#[tool]
async fn read_counter(ctx: ToolCallContext) -> Result<Value, ToolError> {
    ctx.state::<Reached>()?.0.fetch_add(1, SeqCst);
    Ok(json!({"secret": "s3cr3t", "caller": ctx.caller().map(Caller::subject)}))
}

/// Waits, so calls overlap; at most two at once.
#[tool(max_concurrency = 2)]
async fn slow(ctx: ToolCallContext) -> Result<u32, ToolError> {
    let running = ctx.state::<Running>()?;
    let now = running.now.fetch_add(1, SeqCst) + 1;
    running.max.fetch_max(now, SeqCst);
    tokio::time::sleep(Duration::from_millis(40)).await;
    running.now.fetch_sub(1, SeqCst);
    Ok(1)
}

/// Waits, so calls overlap; no limit of its own.
#[tool]
async fn gauge(ctx: ToolCallContext) -> Result<u32, ToolError> {
    let gauge = ctx.state::<Gauge>()?;
    let now = gauge.0.now.fetch_add(1, SeqCst) + 1;
    gauge.0.max.fetch_max(now, SeqCst);
    tokio::time::sleep(Duration::from_millis(5)).await;
    gauge.0.now.fetch_sub(1, SeqCst);
    Ok(1)
}

#[derive(Default)]
struct Gauge(Running);

/// Deletes everything (a guardrail refuses it without a flag).
#[tool(destructive)]
async fn wipe() -> Result<&'static str, ToolError> {
    Ok("wiped")
}

#[derive(Default)]
struct Running {
    now: AtomicUsize,
    max: AtomicUsize,
}

skills![
    guidance = "Policy test tools.",
    tools = [update_counter, read_counter, slow, gauge, wipe],
];

/// A session builder with the tools' state, and that state.
fn builder_and_state() -> (
    pedelec::session::SessionBuilder<ToolName>,
    Arc<Reached>,
    Arc<Running>,
) {
    let reached = Arc::new(Reached::default());
    let running = Arc::new(Running::default());
    let builder = Session::builder(ToolName::skills())
        .state_arc(reached.clone())
        .state_arc(running.clone())
        .state(Gauge::default());
    (builder, reached, running)
}

fn builder() -> pedelec::session::SessionBuilder<ToolName> {
    builder_and_state().0
}

fn writer() -> Caller {
    Caller::new("alice").with_scopes(["counter:write"])
}

fn code(result: &ToolResult) -> Option<ErrorCode> {
    result.error_code()
}

// ------------------------------------------------------------------------------------------
// Scopes and callers

#[tokio::test]
async fn a_tool_with_scopes_is_forbidden_without_them_before_validation() {
    let session = builder().create().unwrap();
    // Anonymous: forbidden, even with invalid args (scopes come first).
    let anonymous = session
        .call("update_counter", json!({"delta": "not a number"}))
        .await;
    assert_eq!(
        code(&anonymous),
        Some(ErrorCode::ToolForbidden),
        "{anonymous:?}"
    );
    let reader = Caller::new("bob").with_scopes(["counter:read"]);
    let result = session
        .call_with(
            "update_counter",
            json!({"delta": 1}),
            CallOptions::new().caller(reader),
        )
        .await;
    let ToolResult::Err(e) = &result else {
        panic!("{result:?}")
    };
    assert_eq!(e.code(), ErrorCode::ToolForbidden);
    assert_eq!(
        e.message(),
        "`update_counter` requires the scopes `counter:write`, and the caller `bob` does not hold `counter:write`"
    );
    assert_eq!(
        e.details().unwrap()["missingScopes"],
        json!(["counter:write"])
    );
    // With the scope: validated, then run, and the handler sees its caller.
    let ok = session
        .call_with(
            "update_counter",
            json!({"delta": 2}),
            CallOptions::new().caller(writer()),
        )
        .await;
    assert_eq!(ok, ToolResult::Ok(json!({"delta": 2, "caller": "alice"})));
    let invalid = session
        .call_with(
            "update_counter",
            json!({"delta": 500}),
            CallOptions::new().caller(writer()),
        )
        .await;
    assert_eq!(code(&invalid), Some(ErrorCode::ToolArgsInvalid));
    // A tool without scopes is open to anyone, anonymous included.
    let open = session.call("read_counter", json!({})).await;
    assert_eq!(open.value().unwrap()["caller"], Value::Null);
    // A trusted caller holds every scope.
    let trusted = session
        .call_with(
            "update_counter",
            json!({"delta": 3}),
            CallOptions::new().caller(Caller::new("core").with_every_scope()),
        )
        .await;
    assert!(trusted.is_ok(), "{trusted:?}");
    assert_eq!(session.definitions()[0].scopes(), ["counter:write"]);
    assert_eq!(<update_counter as pedelec::Tool>::SCOPES, ["counter:write"]);
}

#[tokio::test]
async fn a_json_lines_connection_has_its_caller() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let session = builder().create().unwrap();
    let (core, server) = tokio::io::duplex(1 << 16);
    let bridge = pedelec::bridge::JsonLines::new(server).caller(writer());
    tokio::spawn(session.serve(bridge));
    let (r, mut w) = tokio::io::split(core);
    let mut lines = BufReader::new(r).lines();
    let _manifest = lines.next_line().await.unwrap().unwrap();
    w.write_all(b"{\"type\":\"tool_call\",\"callId\":\"c1\",\"name\":\"update_counter\",\"args\":{\"delta\":4}}\n")
        .await
        .unwrap();
    let line: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(
        line["result"],
        json!({"ok": true, "value": {"delta": 4, "caller": "alice"}})
    );
}

// ------------------------------------------------------------------------------------------
// Limits

#[tokio::test]
async fn a_per_caller_rate_limit_throttles_one_caller_and_refills() {
    let session = builder()
        .rate_limit(RateLimit::per_caller(3, Duration::from_millis(300)))
        .create()
        .unwrap();
    let as_ = |who: &str| CallOptions::new().caller(Caller::new(who));
    for _ in 0..3 {
        let r = session
            .call_with("read_counter", json!({}), as_("alice"))
            .await;
        assert!(r.is_ok(), "{r:?}");
    }
    let limited = session
        .call_with("read_counter", json!({}), as_("alice"))
        .await;
    let ToolResult::Err(e) = &limited else {
        panic!("{limited:?}")
    };
    assert_eq!(e.code(), ErrorCode::ToolRateLimited);
    let retry = e.details().unwrap()["retryAfterMs"].as_u64().unwrap();
    assert!((1..=100).contains(&retry), "{retry}");
    // Refused calls used no budget; another caller is unaffected.
    let bob = session
        .call_with("read_counter", json!({}), as_("bob"))
        .await;
    assert!(bob.is_ok(), "{bob:?}");
    // After retryAfterMs, alice may call again.
    tokio::time::sleep(Duration::from_millis(retry + 5)).await;
    let again = session
        .call_with("read_counter", json!({}), as_("alice"))
        .await;
    assert!(again.is_ok(), "{again:?}");
    // Anonymous calls share one bucket.
    for _ in 0..3 {
        assert!(session.call("read_counter", json!({})).await.is_ok());
    }
    assert_eq!(
        code(&session.call("read_counter", json!({})).await),
        Some(ErrorCode::ToolRateLimited)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_concurrency_holds_under_50_concurrent_calls() {
    let (builder, _, running) = builder_and_state();
    let session = builder.create().unwrap();
    let calls: Vec<_> = (0..50)
        .map(|_| session.start_call("slow", json!({})))
        .collect();
    let mut ok = 0;
    let mut limited = 0;
    for call in calls {
        match call.await {
            ToolResult::Ok(_) => ok += 1,
            ToolResult::Err(e) => {
                assert_eq!(e.code(), ErrorCode::ToolRateLimited, "{e}");
                assert!(e.details().unwrap()["retryAfterMs"].as_u64().unwrap() >= 1);
                limited += 1;
            }
        }
    }
    assert_eq!(ok + limited, 50);
    assert!(ok >= 2, "{ok} ran");
    assert!(limited > 0);
    assert!(
        running.max.load(SeqCst) <= 2,
        "{} at once",
        running.max.load(SeqCst)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tower_concurrency_limit_never_exceeds_its_bound_under_100_calls() {
    let gauge = Arc::new(Gauge::default());
    let session = Session::builder(ToolName::skills())
        .state_arc(gauge.clone())
        .layer(tower::limit::ConcurrencyLimitLayer::new(3))
        .create()
        .unwrap();
    // The layer queues calls past 3 (each bounded by its timeout): all 100 are answered,
    // never more than 3 at once.
    let calls: Vec<_> = (0..100)
        .map(|_| session.start_call("gauge", json!({})))
        .collect();
    for call in calls {
        let result = call.await;
        assert_eq!(result, ToolResult::Ok(json!(1)));
    }
    let max = gauge.0.max.load(SeqCst);
    assert!((1..=3).contains(&max), "{max} at once");
}

// ------------------------------------------------------------------------------------------
// Layers

/// A layer made of a function over the call and the inner service.
#[derive(Clone)]
struct FnLayer<F>(F);

impl<F: Clone> Layer<ToolService> for FnLayer<F> {
    type Service = FnService<F>;
    fn layer(&self, inner: ToolService) -> FnService<F> {
        FnService {
            f: self.0.clone(),
            inner,
        }
    }
}

#[derive(Clone)]
struct FnService<F> {
    f: F,
    inner: ToolService,
}

type BoxFut = std::pin::Pin<Box<dyn Future<Output = Result<ToolResult, Infallible>> + Send>>;

impl<F> Service<ToolCall> for FnService<F>
where
    F: Fn(ToolCall, ToolService) -> BoxFut + Clone + Send + 'static,
{
    type Response = ToolResult;
    type Error = Infallible;
    type Future = BoxFut;
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }
    fn call(&mut self, call: ToolCall) -> BoxFut {
        (self.f)(call, self.inner.clone())
    }
}

fn layer<F>(f: F) -> FnLayer<F>
where
    F: Fn(ToolCall, ToolService) -> BoxFut + Clone + Send + 'static,
{
    FnLayer(f)
}

#[tokio::test]
async fn a_layer_refuses_rewrites_args_and_redacts_results() {
    // A guardrail refusing `wipe` unless the args say `confirmed`.
    let guard = layer(|mut call: ToolCall, inner: ToolService| {
        Box::pin(async move {
            if call.name == "wipe" {
                if call.args.get("confirmed") != Some(&Value::Bool(true)) {
                    return Ok(ToolResult::Err(ToolError::new(
                        "`wipe` needs confirmed: true",
                    )));
                }
                call.args = json!({});
            }
            inner.oneshot(call).await
        }) as BoxFut
    });
    // Doubles every delta (a rewrite that may break the schema).
    let double = layer(|mut call: ToolCall, inner: ToolService| {
        Box::pin(async move {
            if let Some(d) = call.args.get("delta").and_then(Value::as_i64) {
                call.args = json!({"delta": d * 2});
            }
            inner.oneshot(call).await
        }) as BoxFut
    });
    // Redacts `secret` from every result.
    let redact = layer(|call: ToolCall, inner: ToolService| {
        Box::pin(async move {
            Ok(match inner.oneshot(call).await? {
                ToolResult::Ok(mut v) => {
                    if let Some(o) = v.as_object_mut()
                        && o.contains_key("secret")
                    {
                        o.insert("secret".into(), json!("[redacted]"));
                    }
                    ToolResult::Ok(v)
                }
                err @ ToolResult::Err(_) => err,
            })
        }) as BoxFut
    });
    let (builder, reached, _) = builder_and_state();
    let session = builder
        .layer(guard)
        .layer(redact)
        .layer(double)
        .create()
        .unwrap();
    let before = reached.0.load(SeqCst);
    // Refused: the handler never ran.
    let refused = session.call("wipe", json!({})).await;
    assert_eq!(
        refused,
        ToolResult::Err(ToolError::new("`wipe` needs confirmed: true"))
    );
    assert_eq!(
        session.call("wipe", json!({"confirmed": true})).await,
        ToolResult::Ok(json!("wiped"))
    );
    // Rewritten args are validated again: 40 → 80 passes, 60 → 120 is refused.
    let as_writer = || CallOptions::new().caller(writer());
    let ok = session
        .call_with("update_counter", json!({"delta": 40}), as_writer())
        .await;
    assert_eq!(ok.value().unwrap()["delta"], 80);
    let broken = session
        .call_with("update_counter", json!({"delta": 60}), as_writer())
        .await;
    let ToolResult::Err(e) = &broken else {
        panic!("{broken:?}")
    };
    assert_eq!(e.code(), ErrorCode::ToolArgsInvalid);
    assert!(
        e.message()
            .contains("/delta: expected a number <= 100, got 120"),
        "{e}"
    );
    // Redacted.
    let read = session.call("read_counter", json!({})).await;
    assert_eq!(read.value().unwrap()["secret"], "[redacted]");
    // Only the valid calls reached handlers: wipe has no state; update_counter once,
    // read_counter once.
    assert_eq!(reached.0.load(SeqCst) - before, 2);
}

/// Records the order layers see a call in.
fn recorder(
    label: &'static str,
    log: Arc<std::sync::Mutex<Vec<String>>>,
) -> FnLayer<impl Fn(ToolCall, ToolService) -> BoxFut + Clone + Send + 'static> {
    layer(move |call: ToolCall, inner: ToolService| {
        let log = log.clone();
        Box::pin(async move {
            log.lock().unwrap().push(format!("{label}>"));
            let result = inner.oneshot(call).await;
            log.lock().unwrap().push(format!("<{label}"));
            result
        }) as BoxFut
    })
}

#[tokio::test]
async fn layers_nest_in_order_and_layer_for_wraps_one_tool() {
    let log = Arc::new(std::sync::Mutex::new(Vec::new()));
    let session = builder()
        .layer(recorder("outer", log.clone()))
        .layer(recorder("inner", log.clone()))
        .layer_for(ToolName::ReadCounter, recorder("read-1", log.clone()))
        .layer_for(ToolName::ReadCounter, recorder("read-2", log.clone()))
        .create()
        .unwrap();
    assert!(session.call("read_counter", json!({})).await.is_ok());
    assert_eq!(
        *log.lock().unwrap(),
        [
            "outer>", "inner>", "read-1>", "read-2>", "<read-2", "<read-1", "<inner", "<outer"
        ]
    );
    log.lock().unwrap().clear();
    assert!(session.call("wipe", json!({})).await.is_ok());
    assert_eq!(
        *log.lock().unwrap(),
        ["outer>", "inner>", "<inner", "<outer"]
    );
    // Session layers see names outside the skill set too.
    log.lock().unwrap().clear();
    let unknown = session.call("nope", json!({})).await;
    assert_eq!(code(&unknown), Some(ErrorCode::ToolHandlerNotFound));
    assert_eq!(
        *log.lock().unwrap(),
        ["outer>", "inner>", "<inner", "<outer"]
    );
    // Only layer_for, over call_raw (text in, text out).
    let log2 = Arc::new(std::sync::Mutex::new(Vec::new()));
    let only = builder()
        .layer_for(ToolName::Wipe, recorder("wipe", log2.clone()))
        .create()
        .unwrap();
    let raw = serde_json::value::RawValue::from_string("{}".into()).unwrap();
    assert_eq!(
        only.call_raw("wipe", &raw).await,
        r#"{"ok":true,"value":"wiped"}"#
    );
    assert!(
        only.call_raw("read_counter", &raw)
            .await
            .starts_with(r#"{"ok":true"#)
    );
    assert_eq!(*log2.lock().unwrap(), ["wipe>", "<wipe"]);
}

#[tokio::test]
async fn a_panicking_layer_answers_handler_error() {
    crate_quiet_panics();
    let in_call = layer(|_call: ToolCall, _inner: ToolService| -> BoxFut {
        panic!("layer exploded while called")
    });
    let session = builder().layer(in_call).create().unwrap();
    let r = session.call("read_counter", json!({})).await;
    let ToolResult::Err(e) = &r else {
        panic!("{r:?}")
    };
    assert_eq!(e.code(), ErrorCode::ToolHandlerError);
    assert!(e.message().contains("layer exploded while called"), "{e}");
    let in_future = layer(|_call: ToolCall, _inner: ToolService| -> BoxFut {
        Box::pin(async { panic!("layer exploded while polled") })
    });
    let session = builder().layer(in_future).create().unwrap();
    let r = session.call("read_counter", json!({})).await;
    assert!(
        matches!(&r, ToolResult::Err(e) if e.code() == ErrorCode::ToolHandlerError && e.message().contains("while polled")),
        "{r:?}"
    );
    // The session still answers afterwards.
    let r = session.call("read_counter", json!({})).await;
    assert_eq!(code(&r), Some(ErrorCode::ToolHandlerError));
}

fn crate_quiet_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !info.to_string().contains("layer exploded") {
            default(info);
        }
    }));
}

#[tokio::test]
async fn timeouts_and_cancellation_hold_through_a_layer() {
    // A layer that stalls: cancelling the call ends it (the session's own timeout covers
    // layers too: `the_call_timeout_covers_time_spent_in_layers`).
    let stall = layer(|call: ToolCall, inner: ToolService| {
        Box::pin(async move {
            tokio::time::sleep(Duration::from_hours(1)).await;
            inner.oneshot(call).await
        }) as BoxFut
    });
    let session = builder().layer(stall).create().unwrap();
    let cancel = Cancellation::new();
    let call = session.call_with(
        "read_counter",
        json!({}),
        CallOptions::new().cancellation(cancel.clone()),
    );
    let canceller = async {
        tokio::time::sleep(Duration::from_millis(20)).await;
        cancel.cancel();
    };
    let (result, ()) = tokio::join!(call, canceller);
    assert_eq!(code(&result), Some(ErrorCode::ToolCancelled));
    // A tower timeout layer inside: its error is the layer's own result.
    let timeout = layer(|call: ToolCall, inner: ToolService| {
        Box::pin(async move {
            match tokio::time::timeout(Duration::from_millis(10), inner.oneshot(call)).await {
                Ok(result) => result,
                Err(_) => Ok(ToolResult::Err(ToolError::new("timed out in a layer"))),
            }
        }) as BoxFut
    });
    let session = builder().layer(timeout).create().unwrap();
    let r = session.call("slow", json!({})).await;
    assert_eq!(r, ToolResult::Err(ToolError::new("timed out in a layer")));
}

#[tokio::test]
async fn the_call_timeout_covers_time_spent_in_layers() {
    /// Times out after 50 ms.
    #[tool(timeout_ms = 50)]
    async fn quick() -> Result<u8, ToolError> {
        Ok(1)
    }
    skills![pub enum Quick, guidance = "One quick tool.", tools = [quick]];
    let stall = layer(|call: ToolCall, inner: ToolService| {
        Box::pin(async move {
            tokio::time::sleep(Duration::from_secs(1)).await;
            inner.oneshot(call).await
        }) as BoxFut
    });
    let session = Session::builder(Quick::skills())
        .layer(stall)
        .create()
        .unwrap();
    let r = session.call("quick", json!({})).await;
    assert_eq!(code(&r), Some(ErrorCode::ToolTimeout), "{r:?}");
}

// ------------------------------------------------------------------------------------------
// The example

#[allow(dead_code, reason = "the example's `main` is not called here")]
#[path = "../examples/policy.rs"]
mod example;

#[tokio::test]
async fn the_policy_example_audits_refuses_redacts_and_limits() {
    let text = example::transcript().await.unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let after = |label: &str| {
        let i = lines.iter().position(|l| l.starts_with(label)).unwrap();
        lines[i + 1].trim()
    };
    assert_eq!(after("alice adds"), r#"{"ok":true,"value":1}"#);
    assert!(after("bob may not").contains(r#""code":"TOOL_FORBIDDEN""#));
    assert_eq!(
        after("bob lists"),
        r#"{"ok":true,"value":["mail [email]"]}"#
    );
    assert!(after("alice wipes").contains("call it again with"));
    assert_eq!(after("alice confirms"), r#"{"ok":true,"value":"wiped"}"#);
    let limited: Value = serde_json::from_str(after("alice's fourth")).unwrap();
    assert_eq!(limited["error"]["code"], "TOOL_RATE_LIMITED");
    let retry = limited["error"]["details"]["retryAfterMs"]
        .as_u64()
        .unwrap();
    assert!((1..=334).contains(&retry), "{retry}");
    assert_eq!(after("bob is not"), r#"{"ok":true,"value":[]}"#);
    let audit: Vec<&str> = lines[lines.iter().position(|l| *l == "audit:").unwrap() + 1..]
        .iter()
        .map(|l| l.trim())
        .collect();
    assert_eq!(
        audit,
        [
            "alice add_note: ok",
            "bob list_notes: ok",
            "alice wipe_notes: TOOL_FORBIDDEN",
            "alice wipe_notes: ok",
            "bob list_notes: ok"
        ]
    );
}
