//! `tools/call`: one call run through the session's public call API, and its answer.
//!
//! - The args go to the session as the text they arrived in, and the value comes back as
//!   its JSON text ([`Session::call_text_with`]); the `CallToolResult` is written around
//!   it without building a `Value`: a string result is its own text, any other value its
//!   JSON as text and (when it is an object, or the tool lists an `outputSchema`) as
//!   `structuredContent`; [`Content`](crate::output::Content) becomes the content blocks.
//! - A failed call is an `isError` result with the error `{"code","message","details"?}` as
//!   text (bad args too: SEP-1303). An unknown tool, a tampered `requestState` and a
//!   missing client capability are protocol errors.
//! - The handler reaches the client through the call's [`CallChannel`]: progress and log
//!   messages as notifications on the request's stream; input as requests to the client
//!   (2025-11-25 on a connection that carries them), as an input-required result (2026-07-28,
//!   the answers coming back with the retried call, sealed in `requestState`), or inside a
//!   task.
//! - A tool that supports tasks, called by a client that declared the tasks extension,
//!   runs on the request until it first waits: if it finished, the answer is its result;
//!   otherwise it goes on as a task and the answer is the task. A handler of a
//!   `task = optional` tool that asked for input by then keeps running: the task waits in
//!   `input_required` until `tasks/update` brings the answers (nothing runs twice). A
//!   `task = required` tool gathers its input first, in input-required rounds, and becomes
//!   a task on the final round (SEP-2663's composition of the two).

use std::collections::BTreeMap;
use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;

use rmcp::model::{ClientCapabilities, ErrorData, SealOptions};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tracing::Instrument;

use super::channel::{Abilities, CallChannel, Mode, NO_REQUESTS};
use super::meta::Meta;
use super::result::{Frame, input_request, missing_capability, write_call_result};
use super::search::{CALL_TOOL, SEARCH_TOOLS, unwrap_call};
use super::shared::{Exchange, Lifecycle, Reply, Server, may_list};
use super::tasks::RENEWAL;
use super::telemetry;
use super::wire::{self, Message};
use crate::context::{APPROVAL_KEY, Cancellation, InputKind, InputRequest, LogLevel};
use crate::error::ToolError;
use crate::session::CallOptions;
use crate::tool::TaskSupport;

/// The associated data a `requestState` is bound to: the tool, its args and the caller (an
/// answer given for one call, an approval among them, opens for no other tool, args or
/// caller).
fn bound_to(name: &str, args: &str, caller: Option<&crate::context::Caller>) -> Vec<u8> {
    let args: String =
        serde_json::from_str::<Value>(args).map_or_else(|_| args.to_owned(), |v| v.to_string());
    let subject = caller.map_or("", crate::context::Caller::subject);
    let mut data = Vec::with_capacity(name.len() + args.len() + subject.len() + 2);
    data.extend_from_slice(name.as_bytes());
    data.push(0);
    data.extend_from_slice(args.as_bytes());
    data.push(0);
    data.extend_from_slice(subject.as_bytes());
    data
}

/// The mark a `requestState` carries when its round asked for approval: an approval answer
/// counts only with it (one the server never asked for is asked again).
const APPROVAL_ASKED: &str = "dev.pedelec/approvalAsked";

/// The single-use mark a `requestState` that carries or asks for an approval holds (a random
/// id): the approval runs one call, the mark consumed in the session's store (DESIGN §14),
/// so a replay of the same state and answers, on any replica sharing the store, is refused.
const APPROVAL_NONCE: &str = "dev.pedelec/approvalNonce";

/// Whether the answer to an approval approves: `accept` with `approve: true`.
fn approves(answer: Option<&Value>) -> bool {
    answer.is_some_and(|a| {
        a.get("action").and_then(Value::as_str) == Some("accept")
            && a.pointer("/content/approve").and_then(Value::as_bool) == Some(true)
    })
}

pub(super) async fn call_tool(
    server: &Server,
    id: &str,
    message: &Message,
    meta: Meta,
    life: &Lifecycle<'_>,
    x: &Exchange,
) -> Reply {
    let started = std::time::Instant::now();
    let current = life.revision.is_current();
    let fail =
        |error: ErrorData, malformed: bool| Reply::error(Some(id), &error, current, malformed);
    let Ok(Some(name)) = message.string(&message.params.name) else {
        return fail(
            ErrorData::invalid_params("Invalid params: `tools/call` needs `name`, a string", None),
            false,
        );
    };
    let mut args = message.raw(&message.params.arguments).unwrap_or("null");
    // Deferred tools: `search_tools` is answered here; `call_tool` is the call it names.
    let unwrapped;
    let name = match server.search() {
        Some(search) if name == SEARCH_TOOLS => {
            let visible = |position: usize| {
                server
                    .tools()
                    .get(position)
                    .is_some_and(|t| may_list(x.caller.as_deref(), &t.scopes))
            };
            return tool_result(id, &search.answer(args, visible), Frame::PLAIN, current);
        }
        Some(_) if name == CALL_TOOL => match unwrap_call(args) {
            Ok((inner, inner_args)) => {
                unwrapped = inner_args;
                args = unwrapped.as_deref().map_or("null", RawValue::get);
                std::borrow::Cow::Owned(inner)
            }
            Err(e) => return tool_result(id, &Err(e), Frame::PLAIN, current),
        },
        _ => name,
    };
    let tool = server.tool(&name);
    if tool.is_none() && !server.session().has_fallback() {
        return fail(
            ErrorData::invalid_params(
                format!("Unknown tool: {name}"),
                Some(serde_json::json!({ "name": &*name })),
            ),
            false,
        );
    }
    let output = Frame {
        output: tool.and_then(|t| t.output),
        remote: tool.is_some_and(|t| t.remote),
    };
    let task_support = tool.map_or(TaskSupport::Forbidden, |t| t.task);
    let declared_tasks = life
        .capabilities
        .is_some_and(ClientCapabilities::supports_tasks);
    if task_support == TaskSupport::Required && !declared_tasks {
        return fail(
            ErrorData::missing_required_client_capability(
                ClientCapabilities::builder().enable_tasks().build(),
            ),
            false,
        );
    }

    // How input is answered.
    let binding = bound_to(&name, args, x.caller.as_deref());
    let mode = if current {
        let mut answers = Map::new();
        if let Some(state) = message.string(&message.params.request_state).ok().flatten() {
            let opened = server
                .call_settings()
                .codec
                .open_json_with::<Map<String, Value>>(&state, &binding);
            match opened {
                Ok(earlier) => answers = earlier,
                Err(e) => {
                    return fail(
                        ErrorData::invalid_params(
                            format!(
                                "Invalid params: `requestState` failed its integrity check ({e}): it was altered, has expired, or belongs to another call"
                            ),
                            None,
                        ),
                        true,
                    );
                }
            }
        }
        // An approval counts only as the answer to a round that asked for it, for this
        // tool, these args and this caller (the sealed state says so), or as sealed in an
        // earlier round: any other is asked for again, and a sealed one is not replaced.
        let asked = answers.remove(APPROVAL_ASKED).is_some();
        let nonce = answers.remove(APPROVAL_NONCE);
        let sealed = answers.get(APPROVAL_KEY).cloned();
        if let Some(raw) = message.raw(&message.params.input_responses) {
            match input_responses(raw) {
                Ok(responses) => answers.extend(responses),
                Err(error) => return fail(error, true),
            }
        }
        match sealed {
            Some(approval) => {
                answers.insert(APPROVAL_KEY.to_owned(), approval);
            }
            None if !asked => {
                answers.remove(APPROVAL_KEY);
            }
            None => {}
        }
        // An approval that would run the call is used once: its state's mark is consumed
        // (one without a mark approves nothing).
        if approves(answers.get(APPROVAL_KEY)) {
            let fresh = match nonce.as_ref().and_then(Value::as_str) {
                Some(nonce) => server
                    .session()
                    .store()
                    .use_once(
                        &format!("approval:{nonce}"),
                        server.call_settings().state_ttl,
                    )
                    .await
                    .map_err(|e| {
                        ErrorData::internal_error(
                            format!("the approval could not be checked: {e}"),
                            None,
                        )
                    }),
                None => Ok(false),
            };
            match fresh {
                Ok(true) => {}
                Ok(false) => {
                    return fail(
                        ErrorData::invalid_params(
                            "Invalid params: the approval in `requestState` was used already: an approval runs one call; call again without `requestState` to be asked anew",
                            None,
                        ),
                        true,
                    );
                }
                Err(error) => return fail(error, false),
            }
        }
        Mode::Rounds {
            answers,
            round: BTreeMap::new(),
            waiting: BTreeMap::new(),
        }
    } else if x.connection.is_some() {
        Mode::Direct
    } else {
        Mode::Unavailable(NO_REQUESTS)
    };
    let abilities = Abilities::of(life.capabilities);
    let log_threshold = if current {
        meta.log_level
    } else {
        // Before 2026-07-28 the level is the connection's (`logging/setLevel`); a client
        // that never set one gets informational messages and above.
        Some(
            x.connection
                .as_deref()
                .and_then(super::shared::Connection::log_level)
                .unwrap_or(LogLevel::Info),
        )
    };
    let channel = Arc::new(CallChannel::new(
        x.link.clone(),
        meta.progress_token,
        log_threshold,
        abilities,
        mode,
        server.clone(),
    ));
    let cancel = x.cancellation.clone().unwrap_or_default();
    let mut options = CallOptions::new()
        .cancellation(cancel.clone())
        .client_channel(channel.clone());
    if channel.wants_progress() {
        options = options.progress_sink(channel.clone());
    }
    if message.id().is_some() {
        options = options.call_id(id);
    }
    if let Some(caller) = &x.caller {
        options = options.caller(caller.clone());
    }
    // `_meta`'s idempotency key, else the HTTP request's `Idempotency-Key` header.
    if let Some(key) = meta
        .idempotency_key
        .as_deref()
        .or(x.idempotency_key.as_deref())
    {
        options = options.idempotency_key(key);
    }
    let outer =
        (meta.traceparent.as_ref()).and_then(|parent| server.trace_span().map(|make| make(parent)));
    let version = life.revision.as_str();
    let span = telemetry::call_span(&name, id, version, meta.traceparent.as_ref(), outer);

    if current && declared_tasks && task_support != TaskSupport::Forbidden {
        let reply = as_task(
            server,
            id,
            &name,
            args,
            task_support,
            options,
            channel.clone(),
            cancel,
            output,
            Some(span),
        )
        .await;
        return reply;
    }

    let call = server.session().call_text_with(&name, args, options);
    let outcome = run(call, &channel).instrument(span.clone()).await;
    let error = match &outcome {
        Outcome::Done(Err(e)) => Some(e.code()),
        _ => None,
    };
    telemetry::finished(&span, &name, version, error, started);
    channel.finish();
    answer(server, id, &binding, outcome, &channel, output, current)
}

/// A `tools/call` answered with `result`, the tool's value as text or its error.
fn tool_result(
    id: &str,
    result: &Result<String, ToolError>,
    output: Frame,
    current: bool,
) -> Reply {
    let mut out = Vec::with_capacity(256);
    wire::open_result(&mut out, id);
    write_call_result(&mut out, result, output, current);
    out.push(b'}');
    Reply::ok(out)
}

/// What a call came to.
enum Outcome {
    Done(Result<String, ToolError>),
    /// It asked for input (2026-07-28).
    Input(BTreeMap<String, InputRequest>),
}

/// Runs a call until it finishes or asks for input it cannot have yet.
async fn run(
    call: impl Future<Output = Result<String, ToolError>>,
    channel: &CallChannel,
) -> Outcome {
    let mut call = std::pin::pin!(call);
    poll_fn(|cx| match call.as_mut().poll(cx) {
        Poll::Ready(result) => Poll::Ready(Outcome::Done(result)),
        Poll::Pending => match channel.round() {
            Some(round) => Poll::Ready(Outcome::Input(round)),
            None => Poll::Pending,
        },
    })
    .await
}

#[allow(clippy::too_many_arguments, reason = "one call's parts, each needed")]
fn answer(
    server: &Server,
    id: &str,
    binding: &[u8],
    outcome: Outcome,
    channel: &CallChannel,
    output: Frame,
    current: bool,
) -> Reply {
    match outcome {
        Outcome::Done(Err(_)) if channel.missing().is_some() => {
            let kind = channel.missing().unwrap_or(InputKind::Elicitation);
            Reply::error(Some(id), &missing_capability(kind), true, false)
        }
        Outcome::Done(result) => tool_result(id, &result, output, current),
        Outcome::Input(round) => {
            let mut answers = channel.answers();
            if round.contains_key(APPROVAL_KEY) {
                answers.insert(APPROVAL_ASKED.to_owned(), Value::Bool(true));
            }
            if round.contains_key(APPROVAL_KEY) || answers.contains_key(APPROVAL_KEY) {
                answers.insert(
                    APPROVAL_NONCE.to_owned(),
                    Value::from(uuid::Uuid::new_v4().to_string()),
                );
            }
            let state = server.call_settings().codec.seal_json_with(
                &answers,
                &SealOptions::new()
                    .associated_data(binding)
                    .ttl(server.call_settings().state_ttl),
            );
            let requests: Map<String, Value> = round
                .into_iter()
                .map(|(key, request)| (key, input_request(&request)))
                .collect();
            let mut result = serde_json::json!({
                "resultType": "input_required",
                "inputRequests": requests,
            });
            if let Ok(state) = state {
                result["requestState"] = Value::from(state);
            }
            Reply::ok(wire::result(id, &result))
        }
    }
}

type BoxCall = Pin<Box<dyn Future<Output = Result<String, ToolError>> + Send>>;

/// A call of a tool that supports tasks: run on the request until it first waits, then a
/// task (see the module docs).
#[allow(clippy::too_many_arguments, reason = "one call's parts, each needed")]
async fn as_task(
    server: &Server,
    id: &str,
    name: &str,
    args: &str,
    support: TaskSupport,
    options: CallOptions,
    channel: Arc<CallChannel>,
    cancel: Cancellation,
    output: Frame,
    span: Option<tracing::Span>,
) -> Reply {
    let session = server.session().clone();
    let binding = bound_to(name, args, options.caller_ref());
    let (owned_name, owned_args) = (name.to_owned(), args.to_owned());
    let call = async move {
        session
            .call_text_with(&owned_name, &owned_args, options)
            .await
    };
    let mut call: BoxCall = match span {
        Some(span) => Box::pin(call.instrument(span)),
        None => Box::pin(call),
    };
    let first = poll_fn(|cx| Poll::Ready(call.as_mut().poll(cx))).await;
    let outcome = match first {
        Poll::Ready(result) => Some(Outcome::Done(result)),
        // A tool that always runs as a task gathers its input first (SEP-2663's
        // composition: input-required rounds, then the task on the final one).
        Poll::Pending if support == TaskSupport::Required => channel.round().map(Outcome::Input),
        Poll::Pending => None,
    };
    if let Some(outcome) = outcome {
        channel.finish();
        return answer(server, id, &binding, outcome, &channel, output, true);
    }
    // It waits: it goes on as a task, its handler still running; what it asked for, if
    // anything, waits in the task (`input_required`) until `tasks/update` answers it.
    let round = channel.round_requests();
    let task = match server.tasks().create(cancel, &round).await {
        Ok(task) => task,
        Err(error) => return Reply::error(Some(id), &error, true, false),
    };
    let task_id = task.task_id.clone();
    channel.become_task(&task_id);
    let server_ = server.clone();
    tokio::spawn(async move {
        // Renewed while it runs: other replicas see it alive and leave it their requests.
        let mut renewal = tokio::time::interval_at(tokio::time::Instant::now() + RENEWAL, RENEWAL);
        let result = loop {
            tokio::select! {
                result = &mut call => break result,
                _ = renewal.tick() => server_.tasks().renew(&task_id).await,
            }
        };
        channel.finish();
        server_
            .tasks()
            .finish(&task_id, result, channel.missing(), output)
            .await;
    });
    Reply::ok(wire::result(id, &rmcp::model::CreateTaskResult::new(task)))
}

/// `inputResponses` (2026-07-28): an object of answers by request key, each answer a result
/// object (an `ElicitResult`, a `CreateMessageResult`, a `ListRootsResult`). Anything else
/// is the client's protocol error, `-32602`, not a failure of the tool that asked.
pub(super) fn input_responses(raw: &str) -> Result<Map<String, Value>, ErrorData> {
    let invalid = |message: String| ErrorData::invalid_params(message, None);
    let responses = serde_json::from_str::<Map<String, Value>>(raw).map_err(|_| {
        invalid(
            "Invalid params: `inputResponses` must be an object of answers by request key".into(),
        )
    })?;
    if let Some((key, _)) = responses.iter().find(|(_, answer)| !answer.is_object()) {
        return Err(invalid(format!(
            "Invalid params: `inputResponses.{key}` must be an object: the result of the request it answers"
        )));
    }
    Ok(responses)
}

#[cfg(test)]
mod tests {
    use super::input_responses;

    #[test]
    fn input_responses_are_objects_of_result_objects() {
        let answers = input_responses(r#"{"confirm": {"action": "decline"}}"#).unwrap();
        assert_eq!(answers["confirm"]["action"], "decline");
        assert!(input_responses("{}").unwrap().is_empty());
        for (raw, names) in [
            ("null", "`inputResponses` must be an object"),
            ("[1]", "`inputResponses` must be an object"),
            (
                r#"{"a": {}, "b": 12345}"#,
                "`inputResponses.b` must be an object",
            ),
            (r#"{"a": "accept"}"#, "`inputResponses.a` must be an object"),
        ] {
            let error = input_responses(raw).unwrap_err();
            assert_eq!(error.code.0, -32602, "{raw}");
            assert!(error.message.contains(names), "{raw}: {}", error.message);
        }
    }
}
