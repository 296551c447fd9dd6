//! `run_code`, the host's side: the program runs in a worker process (`worker.rs`) or on a
//! thread of the host (`Isolation::InProcess`); its interpreter (`interp.rs`) sends each
//! tool call here, and the host makes it through the session with the outer call's caller
//! (validation, scopes, limits, approval, events, call ids `<outer>/<n>`), as a task of the
//! caller's Tokio runtime, and sends its answer back.
//!
//! The interpreter stops itself at its deadline; the host does not count on it: past the
//! deadline and a grace it kills the worker (a built-in looping in C never sees the
//! interpreter's clock), at once when the outer call is cancelled or dropped. A worker that
//! dies answers an error saying how; calls still running when the program ends are
//! cancelled.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};
use tokio::task::AbortHandle;

use super::api::Api;
use super::frame::{Limits, Outcome, Start, ToHost, ToWorker};
use super::interp::{Stop, internal, stopped};
use super::worker::{FromWorker, InProcess, Worker};
use crate::context::{Caller, ToolCallContext};
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::session::{CallOptions, Session};

/// How long past its deadline a program's worker has to answer before it is killed.
const GRACE: Duration = Duration::from_millis(200);

/// Where the program runs.
enum Runner {
    Worker(Worker),
    InProcess(InProcess),
}

impl Runner {
    fn send(&mut self, frame: ToWorker) {
        match self {
            Runner::Worker(w) => w.send(&frame),
            Runner::InProcess(t) => t.send(frame),
        }
    }

    async fn recv(&mut self) -> FromWorker {
        let frames = match self {
            Runner::Worker(w) => &mut w.frames,
            Runner::InProcess(t) => &mut t.frames,
        };
        frames.recv().await.unwrap_or_else(|| {
            FromWorker::Ended("its thread stopped before it answered".to_owned())
        })
    }

    /// Stops the program: kills its worker, or interrupts its thread.
    fn stop(&self, why: Stop) {
        match self {
            Runner::Worker(w) => w.kill(),
            Runner::InProcess(t) => Stop::set(&t.stop, why),
        }
    }
}

/// Runs `code` for the call `ctx`: its answer (`{"result", "output"}`) or its error.
pub(super) async fn run(
    api: &Arc<Api>,
    code: &str,
    ctx: ToolCallContext,
) -> Result<Value, ToolError> {
    let Some(session) = api.link.session() else {
        return Err(ToolError::new("the session is gone"));
    };
    let time = api.limits.time.min(ctx.remaining());
    let deadline = Instant::now() + time;
    let limits = Limits {
        time_ms: u64::try_from(time.as_millis()).unwrap_or(u64::MAX),
        max_calls: api.limits.max_calls,
        memory: api.limits.memory,
        stack: api.limits.stack,
        max_output: api.limits.max_output,
    };
    // What this caller may call, and nothing else: the program's globals, its "did you
    // mean", its calls.
    let callable: Vec<usize> = (0..api.functions.len())
        .filter(|&i| session.may_call(&api.functions[i].name, ctx.caller()))
        .collect();
    let start = Start {
        code: code.to_owned(),
        names: callable
            .iter()
            .map(|&i| api.functions[i].name.clone())
            .collect(),
        paths: callable
            .iter()
            .map(|&i| api.functions[i].path.clone())
            .collect(),
        limits,
    };
    let mut runner = match &api.pool {
        Some(pool) => {
            let mut worker = pool.take()?;
            worker.send(&ToWorker::Start(Box::new(start)));
            Runner::Worker(worker)
        }
        None => Runner::InProcess(InProcess::spawn(start)?),
    };
    let (answers, mut answered) = unbounded_channel();
    let mut calls = Calls {
        session,
        caller: ctx.caller_arc(),
        api: api.clone(),
        callable,
        call_id: ctx.call_id().to_owned(),
        made: 0,
        running: HashMap::new(),
        answers,
    };
    let mut output = String::new();
    let cancellation = ctx.cancellation();
    let killed_at = tokio::time::Instant::from_std(deadline + GRACE);
    let outcome = loop {
        tokio::select! {
            heard = runner.recv() => match heard {
                FromWorker::Frame(ToHost::Call { name, args }) => {
                    let reply = match calls.start(&name, &args) {
                        Ok((id, mut call)) => {
                            // Polled here once: a call that finishes at once is answered
                            // with its start, in one frame; another runs as a task.
                            let first = std::future::poll_fn(|cx| {
                                std::task::Poll::Ready(call.as_mut().poll(cx))
                            })
                            .await;
                            match first {
                                std::task::Poll::Ready(result) => match answer(&result) {
                                    Ok((ok, json)) => ToWorker::Answered { id, ok, json },
                                    Err(e) => break Outcome::Failed(internal(&e)),
                                },
                                std::task::Poll::Pending => {
                                    calls.spawn(id, call);
                                    ToWorker::Started(id)
                                }
                            }
                        }
                        Err((error, stop)) => ToWorker::Refused { error, stop },
                    };
                    runner.send(reply);
                }
                FromWorker::Frame(ToHost::Print(text)) => {
                    if output.len() + text.len() < limits.max_output {
                        output.push_str(&text);
                        output.push('\n');
                    }
                }
                FromWorker::Frame(ToHost::Done(outcome)) => break outcome,
                FromWorker::Ended(how) => break Outcome::Failed(ToolError::new(format!(
                    "the program's worker ended: {how}; an interpreter crash (the program \
                     itself, or the sandbox's bug) ends its worker, never the session"
                ))),
            },
            Some((id, result)) = answered.recv() => {
                calls.running.remove(&id);
                match answer(&result) {
                    Ok((ok, json)) => runner.send(ToWorker::Answer { id, ok, json }),
                    Err(e) => break Outcome::Failed(internal(&e)),
                }
            }
            () = tokio::time::sleep_until(killed_at) => {
                runner.stop(Stop::Time);
                break Outcome::Failed(stopped(Stop::Time, &limits));
            }
            () = cancellation.cancelled() => {
                runner.stop(Stop::Cancelled);
                break Outcome::Failed(stopped(Stop::Cancelled, &limits));
            }
        }
    };
    // The worker is killed when dropped (its listener reaps it); calls still running stop
    // when `calls` is dropped (here, or with this future when the outer call ends first).
    drop(runner);
    drop(calls);
    finish(outcome, output, limits.max_output)
}

/// A call's answer as the program reads it: whether it succeeded, and its value's or its
/// error's JSON.
fn answer(result: &ToolResult) -> serde_json::Result<(bool, String)> {
    match result {
        ToolResult::Ok(value) => serde_json::to_string(value).map(|json| (true, json)),
        ToolResult::Err(error) => serde_json::to_string(error).map(|json| (false, json)),
    }
}

/// A call made through the session, not polled to its end yet.
type Call = Pin<Box<dyn Future<Output = ToolResult> + Send>>;

/// The program's calls, as the host makes them.
struct Calls {
    session: Session<String>,
    caller: Option<Arc<Caller>>,
    api: Arc<Api>,
    /// The functions this caller may call (indices into `api.functions`).
    callable: Vec<usize>,
    call_id: String,
    made: u32,
    /// Calls running, by id: cancelled when the program ends first.
    running: HashMap<i32, AbortHandle>,
    answers: UnboundedSender<(i32, ToolResult)>,
}

impl Drop for Calls {
    fn drop(&mut self) {
        for (_, call) in self.running.drain() {
            call.abort();
        }
    }
}

impl Calls {
    /// Checks a call and makes it through the session: its id and the call to poll, or why
    /// it was refused (thrown in the program at the call) and whether the program stops
    /// (its call limit).
    fn start(&mut self, name: &str, args: &str) -> Result<(i32, Call), (ToolError, bool)> {
        let limits = &self.api.limits;
        if self.made >= limits.max_calls {
            let error = ToolError::new(format!(
                "the program made more than {} tool calls, its limit (`CodeMode::max_calls`)",
                limits.max_calls
            ));
            return Err((error, true));
        }
        if !self
            .callable
            .iter()
            .any(|&i| self.api.functions[i].name == name)
        {
            return Err((self.not_callable(name), false));
        }
        let args: Value = serde_json::from_str(args).map_err(|e| {
            let error = ToolError::with_code(
                ErrorCode::ToolArgsInvalid,
                format!("invalid arguments for `{name}`: {e}"),
            );
            (error, false)
        })?;
        // Checked here, so that the program stops at the call that is wrong, before any
        // tool of it runs; the session checks again (its layers may change the args).
        self.session
            .check_args(name, args.clone())
            .map_err(|e| (e, false))?;
        self.made += 1;
        let id = i32::try_from(self.made).unwrap_or(i32::MAX);
        let mut options = CallOptions::new().call_id(format!("{}/{id}", self.call_id));
        if let Some(caller) = &self.caller {
            options = options.caller(caller.clone());
        }
        let session = self.session.clone();
        let name = name.to_owned();
        Ok((
            id,
            Box::pin(async move { session.call_with(&name, args, options).await }),
        ))
    }

    /// Runs a call that did not finish at once as a task, whose answer comes to `answers`.
    fn spawn(&mut self, id: i32, call: Call) {
        let answers = self.answers.clone();
        let task = tokio::spawn(async move {
            let result = call.await;
            let _ = answers.send((id, result));
        });
        self.running.insert(id, task.abort_handle());
    }

    /// Why `name` cannot be called from a program: a tool for direct calls only, or no
    /// tool this caller may call (a tool the caller may not call is not named).
    fn not_callable(&self, name: &str) -> ToolError {
        let direct = self
            .session
            .definitions()
            .iter()
            .any(|d| d.name() == name && !d.callable_by_program())
            && self.session.may_call(name, self.caller.as_deref());
        if direct {
            ToolError::with_code(
                ErrorCode::ToolForbidden,
                format!(
                    "`{name}` cannot be called from a program: the model calls it directly \
                     (its callers do not include `program`)"
                ),
            )
        } else {
            let known = self
                .callable
                .iter()
                .map(|&i| self.api.functions[i].name.as_str());
            let hint = crate::schema::did_you_mean(name, known)
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default();
            ToolError::with_code(
                ErrorCode::ToolHandlerNotFound,
                format!("no tool named `{name}`{hint} (`search_tools` finds them)"),
            )
        }
    }
}

/// `text`, cut to at most `max` bytes (at a character boundary) with a marker saying what
/// was cut.
fn bounded(text: &str, max: usize, what: &str) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let marker = format!("… [{what} cut: {} of {} bytes shown]", 0, text.len());
    let keep = max.saturating_sub(marker.len() + 8);
    let mut end = keep.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}… [{what} cut: {end} of {} bytes shown]",
        &text[..end],
        text.len()
    )
}

/// The answer: `{"result", "output"}`, or the error with the program's line and output;
/// an error's parts are bounded by `max_output` together (half the message, a quarter the
/// output, a quarter the details), each with a marker of what was cut.
fn finish(outcome: Outcome, output: String, max_output: usize) -> Result<Value, ToolError> {
    let output_max = max_output / 4;
    match outcome {
        Outcome::Returned(text) => {
            let size = text.as_ref().map_or(0, String::len) + output.len();
            if size > max_output {
                return Err(ToolError::new(format!(
                    "the program's answer is {size} bytes, over its limit of {max_output} \
                     (`CodeMode::max_output`)"
                ))
                .with_details(json!({ "output": bounded(&output, output_max, "output") })));
            }
            let result = match text {
                Some(text) => serde_json::from_str(&text).map_err(|e| internal(&e))?,
                None => Value::Null,
            };
            Ok(json!({ "result": result, "output": output }))
        }
        Outcome::Threw(thrown) => {
            let mut message = String::from("the program threw");
            if let Some(line) = thrown.line {
                let _ = write!(message, " at line {line}");
            }
            let _ = write!(message, ": {}", thrown.name);
            if let Some(code) = &thrown.code {
                let _ = write!(message, " {code}");
            }
            let _ = write!(message, ": {}", thrown.message);
            let message = bounded(&message, max_output / 2, "message");
            let mut details = json!({
                "name": bounded(&thrown.name, 256, "name"),
                "output": bounded(&output, output_max, "output"),
            });
            if let Some(line) = thrown.line {
                details["line"] = json!(line);
            }
            if let Some(code) = thrown.code {
                details["code"] = json!(bounded(&code, 256, "code"));
            }
            if let Some(inner) = thrown.details {
                details["details"] = if inner.len() <= output_max {
                    serde_json::from_str(&inner).unwrap_or(Value::String(inner))
                } else {
                    Value::String(bounded(&inner, output_max, "details"))
                };
            }
            Err(ToolError::new(message).with_details(details))
        }
        Outcome::Failed(error) => {
            let output = bounded(&output, output_max, "output");
            let details = match error.details() {
                Some(Value::Object(d)) => {
                    let mut d = d.clone();
                    d.insert("output".into(), json!(output));
                    Value::Object(d)
                }
                _ => json!({ "output": output }),
            };
            let message = bounded(error.message(), max_output / 2, "message");
            Err(ToolError::with_code(error.code(), message).with_details(details))
        }
    }
}
