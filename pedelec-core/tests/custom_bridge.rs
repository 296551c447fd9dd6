//! A bridge written outside the crate, with the public call API only: the calls the JSON
//! Lines bridge uses (`manifest`, `call_raw_with` with a call id, a cancellation handle and
//! a progress callback, `report_undelivered`). If this compiles and passes, a user's own
//! transport can do what the built-in ones do, as fast.

mod support;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use pedelec_core::bridge::Bridge;
use pedelec_core::context::{Cancellation, ProgressUpdate};
use pedelec_core::session::SessionEvent;
use pedelec_core::skills::SkillSet;
use pedelec_core::{CallOptions, Error, ErrorCode, Session};
use serde_json::{Value, json};
use support::{Counter, ToolName};
use tokio::sync::mpsc;

/// Core's side of an in-memory transport: requests in, messages out.
enum Request {
    Call {
        call_id: String,
        name: String,
        args: String,
    },
    Cancel {
        call_id: String,
    },
}

/// A minimal bridge over channels: the manifest first, then one task per call, each
/// answered exactly once; progress forwarded; cancellation by id.
struct Channels {
    requests: mpsc::UnboundedReceiver<Request>,
    out: mpsc::UnboundedSender<Value>,
}

impl Bridge for Channels {
    async fn serve<N: 'static>(mut self, session: Session<N>) -> Result<(), Error> {
        let manifest = serde_json::to_value(session.manifest()).unwrap();
        self.out
            .send(json!({"type": "manifest", "manifest": manifest}))
            .map_err(|e| Error::undelivered(e.to_string()))?;
        let inflight: Arc<Mutex<HashMap<String, Cancellation>>> = Arc::default();
        let mut tasks = tokio::task::JoinSet::new();
        while let Some(request) = self.requests.recv().await {
            match request {
                Request::Call {
                    call_id,
                    name,
                    args,
                } => {
                    let cancel = Cancellation::new();
                    inflight
                        .lock()
                        .unwrap()
                        .insert(call_id.clone(), cancel.clone());
                    let progress_out = self.out.clone();
                    let progress_id = call_id.clone();
                    let options = CallOptions::new()
                        .call_id(call_id.as_str())
                        .cancellation(cancel)
                        .on_progress(move |update: ProgressUpdate| {
                            let _ = progress_out.send(json!({
                                "type": "tool_progress", "callId": progress_id, "update": update,
                            }));
                        });
                    let (session, out, inflight) =
                        (session.clone(), self.out.clone(), inflight.clone());
                    tasks.spawn(async move {
                        let result = session.call_raw_with(&name, &args, options).await;
                        inflight.lock().unwrap().remove(&call_id);
                        let result: Value = serde_json::from_str(&result).unwrap();
                        let message =
                            json!({"type": "tool_result", "callId": call_id, "result": result});
                        if out.send(message).is_err() {
                            session.report_undelivered(&call_id, &name, "Core went away");
                        }
                    });
                }
                Request::Cancel { call_id } => {
                    if let Some(cancel) = inflight.lock().unwrap().get(&call_id) {
                        cancel.cancel();
                    }
                }
            }
        }
        while tasks.join_next().await.is_some() {}
        Ok(())
    }
}

fn call(call_id: &str, name: &str, args: &str) -> Request {
    Request::Call {
        call_id: call_id.to_owned(),
        name: name.to_owned(),
        args: args.to_owned(),
    }
}

#[tokio::test]
async fn a_bridge_built_on_the_public_api_serves_calls_progress_and_cancellation() {
    let session = Session::builder(ToolName::skills())
        .state(Counter::default())
        .create()
        .unwrap();
    session.on_tool_name(ToolName::Echo, |args: Value, ctx| {
        ctx.progress(1, Some(1), format!("echoing {}", ctx.call_id()));
        async move { Ok::<_, pedelec_core::ToolError>(args) }
    });
    let mut events = session.events();
    let (req_tx, req_rx) = mpsc::unbounded_channel();
    let (out_tx, mut out_rx) = mpsc::unbounded_channel();
    let served = tokio::spawn(session.serve(Channels {
        requests: req_rx,
        out: out_tx,
    }));

    let manifest = out_rx.recv().await.unwrap();
    assert_eq!(
        manifest["manifest"],
        serde_json::to_value(session.manifest()).unwrap()
    );

    req_tx
        .send(call("a", "update_counter", r#"{"delta": 2}"#))
        .unwrap();
    let msg = out_rx.recv().await.unwrap();
    assert_eq!(
        msg,
        json!({"type": "tool_result", "callId": "a", "result": {"ok": true, "value": {"value": 2}}})
    );

    // Args text that is not JSON, and no args at all (`null` counts as `{}`).
    req_tx
        .send(call("b", "update_counter", r#"{"delta": "#))
        .unwrap();
    let msg = out_rx.recv().await.unwrap();
    assert_eq!(msg["result"]["error"]["code"], "TOOL_ARGS_INVALID", "{msg}");
    let message = msg["result"]["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "invalid arguments for `update_counter`: the arguments are not valid JSON"
        ),
        "{message}"
    );

    // Progress, with the caller's call id, before the result.
    req_tx.send(call("c", "echo", r#"{"text": "hi"}"#)).unwrap();
    assert_eq!(
        out_rx.recv().await.unwrap(),
        json!({"type": "tool_progress", "callId": "c", "update": {"done": 1, "total": 1, "message": "echoing c"}})
    );
    assert_eq!(
        out_rx.recv().await.unwrap()["result"],
        json!({"ok": true, "value": {"text": "hi"}})
    );

    // Cancellation through the handle given in the options.
    // (Sent together: the cancel reaches the bridge before the call's task first runs.)
    req_tx.send(call("d", "slow", "null")).unwrap();
    req_tx
        .send(Request::Cancel {
            call_id: "d".to_owned(),
        })
        .unwrap();
    let msg = out_rx.recv().await.unwrap();
    assert_eq!(msg["callId"], "d");
    assert_eq!(msg["result"]["error"]["code"], "TOOL_CANCELLED", "{msg}");

    // A result the bridge cannot deliver is reported as an event.
    drop(out_rx);
    req_tx
        .send(call("e", "update_counter", r#"{"delta": 1}"#))
        .unwrap();
    drop(req_tx);
    served.await.unwrap().unwrap();
    let mut undelivered = None;
    while let Some(event) = events.try_recv() {
        if let SessionEvent::SubmitToolResultFailed { call_id, error, .. } = event {
            undelivered = Some((call_id, error));
        }
    }
    let (call_id, error) = undelivered.expect("a SubmitToolResultFailed event");
    assert_eq!(call_id, "e");
    assert_eq!(error.code(), ErrorCode::SubmitToolResultFailed);
    assert_eq!(error.message(), "Core went away");
}
