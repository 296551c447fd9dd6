//! `run_code`: a program run in QuickJS on a thread of its own, its tool calls made through
//! the session on the caller's runtime.
//!
//! The program's thread owns the interpreter (one runtime and context per program: nothing
//! survives a run). Its tool functions return promises: a call is checked at once (a tool
//! the program may call, args that match its schema, the call limit), then started on the
//! session as a task of the caller's Tokio runtime; the thread runs the program's jobs
//! until it waits on calls only, then waits for the next answer and settles its promise.
//! An interrupt handler stops the program at its deadline, when a limit is reached, or when
//! the outer call ends (its timeout, its cancellation, its future dropped): QuickJS cannot
//! catch that. Calls still running when the program ends are cancelled.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rquickjs::context::intrinsic;
use rquickjs::{CatchResultExt, CaughtError, Context, Ctx, Function, Promise, Runtime};
use serde_json::{Value, json};
use tokio::task::AbortHandle;

use super::api::{Api, Limits, path};
use crate::context::{Caller, ToolCallContext};
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::session::{CallOptions, Session};

/// Why a program was stopped from outside (the interrupt handler's flag).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum Stop {
    Running = 0,
    Time = 1,
    Cancelled = 2,
    Calls = 3,
    Output = 4,
}

impl Stop {
    fn of(flag: &AtomicU8) -> Stop {
        match flag.load(Ordering::Acquire) {
            1 => Stop::Time,
            2 => Stop::Cancelled,
            3 => Stop::Calls,
            4 => Stop::Output,
            _ => Stop::Running,
        }
    }

    /// Sets the flag unless it is set already (the first reason stands).
    fn set(flag: &AtomicU8, stop: Stop) {
        let _ = flag.compare_exchange(0, stop as u8, Ordering::AcqRel, Ordering::Acquire);
    }
}

/// The interpreter's own intrinsics: no `Date` or `performance` (no clock), no `WeakRef`
/// (no observable garbage collection). Base objects (`Object`, `Array`, `Math`, `Error`, …)
/// are always there; QuickJS has no files, network, environment or module loader unless
/// the host adds them, and this host adds none.
type Intrinsics = (
    intrinsic::Eval,
    intrinsic::RegExpCompiler,
    intrinsic::RegExp,
    intrinsic::Json,
    intrinsic::Proxy,
    intrinsic::MapSet,
    intrinsic::TypedArrays,
    intrinsic::Promise,
);

/// The file name a program's frames carry (its line numbers are the program's own).
const PROGRAM: &str = "program.js";

/// The stack of the program's thread beyond the interpreter's own limit.
const THREAD_STACK_MARGIN: usize = 2 << 20;

/// Runs `code` for the call `ctx`: its answer (`{"result", "output"}`) or its error.
pub(super) async fn run(
    api: &Arc<Api>,
    code: &str,
    ctx: ToolCallContext,
) -> Result<Value, ToolError> {
    let Some(session) = api.link.session() else {
        return Err(ToolError::new("the session is gone"));
    };
    let limits = api.limits;
    let deadline = Instant::now() + limits.time.min(ctx.remaining());
    let stop = Arc::new(AtomicU8::new(Stop::Running as u8));
    let host = Host {
        session,
        caller: ctx.caller_arc(),
        call_id: ctx.call_id().to_owned(),
        runtime: tokio::runtime::Handle::current(),
        api: api.clone(),
    };
    let (answer, answered) = tokio::sync::oneshot::channel();
    let program = code.to_owned();
    let flag = stop.clone();
    std::thread::Builder::new()
        .name("pedelec-run-code".into())
        .stack_size(limits.stack + THREAD_STACK_MARGIN)
        .spawn(move || {
            let _ = answer.send(execute(&program, &host, deadline, &flag));
        })
        .map_err(|e| {
            ToolError::with_code(
                ErrorCode::IoFailed,
                format!("could not start the program's thread: {e}"),
            )
        })?;
    // The outer call ended (timed out, cancelled, dropped): the program stops.
    let _stop_on_drop = StopOnDrop(stop.clone());
    let cancellation = ctx.cancellation();
    tokio::select! {
        answer = answered => answer.unwrap_or_else(|_| Err(ToolError::new("the program's thread stopped"))),
        () = cancellation.cancelled() => {
            Stop::set(&stop, Stop::Cancelled);
            Err(ToolError::with_code(ErrorCode::ToolCancelled, "the program was cancelled"))
        }
    }
}

struct StopOnDrop(Arc<AtomicU8>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        Stop::set(&self.0, Stop::Cancelled);
    }
}

/// What the program's thread needs of the outside.
struct Host {
    session: Session<String>,
    caller: Option<Arc<Caller>>,
    call_id: String,
    runtime: tokio::runtime::Handle,
    api: Arc<Api>,
}

/// The program's state, shared by the host functions on its thread.
struct State {
    output: String,
    calls: u32,
    /// Calls running, by id: cancelled when the program ends first.
    running: HashMap<i32, AbortHandle>,
    answers: mpsc::Sender<(i32, ToolResult)>,
}

fn execute(
    code: &str,
    host: &Host,
    deadline: Instant,
    stop: &Arc<AtomicU8>,
) -> Result<Value, ToolError> {
    let limits = host.api.limits;
    let runtime = Runtime::new().map_err(|e| internal(&e))?;
    runtime.set_memory_limit(limits.memory);
    runtime.set_max_stack_size(limits.stack);
    let flag = stop.clone();
    runtime.set_interrupt_handler(Some(Box::new(move || {
        if Stop::of(&flag) != Stop::Running {
            return true;
        }
        if Instant::now() >= deadline {
            Stop::set(&flag, Stop::Time);
            return true;
        }
        false
    })));
    let context = Context::custom::<Intrinsics>(&runtime).map_err(|e| internal(&e))?;
    let (answers, answered) = mpsc::channel();
    let state = Rc::new(RefCell::new(State {
        output: String::new(),
        calls: 0,
        running: HashMap::new(),
        answers,
    }));
    let outcome = context.with(|cx| drive(&cx, code, host, &state, &answered, deadline, stop));
    for (_, call) in state.borrow_mut().running.drain() {
        call.abort();
    }
    let output = std::mem::take(&mut state.borrow_mut().output);
    let outcome = match Stop::of(stop) {
        Stop::Running => outcome,
        why => Err(stopped(why, limits)),
    };
    finish(outcome, output, limits.max_output)
}

/// What a program ended with, before its output is added.
enum Outcome {
    /// The value it returned, as JSON text (`None`: `undefined`).
    Returned(Option<String>),
    /// The exception it did not catch.
    Threw(Thrown),
}

/// An uncaught exception, as the program's error reports it.
struct Thrown {
    /// `ToolError`'s code, for a refused call the program did not catch.
    code: Option<String>,
    name: String,
    message: String,
    line: Option<u32>,
    details: Option<Value>,
}

fn drive(
    cx: &Ctx<'_>,
    code: &str,
    host: &Host,
    state: &Rc<RefCell<State>>,
    answered: &mpsc::Receiver<(i32, ToolResult)>,
    deadline: Instant,
    stop: &Arc<AtomicU8>,
) -> Result<Outcome, ToolError> {
    let settle = install(cx, host, state, stop).map_err(|e| internal(&e))?;
    // The program is the body of an async function; its first line is line 1.
    let source = format!("(async () => {{{code}\n}})()");
    let mut options = rquickjs::context::EvalOptions::default();
    options.strict = false;
    options.filename = Some(PROGRAM.to_owned());
    let promise: Promise = match cx.eval_with_options(source, options).catch(cx) {
        Ok(promise) => promise,
        Err(caught) => return Ok(Outcome::Threw(thrown(caught))),
    };
    loop {
        while cx.execute_pending_job() {}
        if Stop::of(stop) != Stop::Running {
            return Ok(Outcome::Returned(None));
        }
        match promise.result::<rquickjs::Value>() {
            Some(Ok(value)) => {
                let text = cx.json_stringify(value).catch(cx);
                return match text {
                    Ok(text) => Ok(Outcome::Returned(
                        text.map(|t| t.to_string())
                            .transpose()
                            .map_err(|e| internal(&e))?,
                    )),
                    Err(caught) => Ok(Outcome::Threw(thrown(caught))),
                };
            }
            Some(Err(e)) => {
                return Ok(Outcome::Threw(thrown(CaughtError::from_error(cx, e))));
            }
            None => {}
        }
        if state.borrow().running.is_empty() {
            return Err(ToolError::new(
                "the program waits for something that never happens: no tool call is running \
                 and no job is left (a promise nothing resolves?)",
            ));
        }
        // Wait for an answer, in slices, so that a stop from outside is seen.
        let (id, result) = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                Stop::set(stop, Stop::Time);
                return Ok(Outcome::Returned(None));
            }
            match answered.recv_timeout(left.min(Duration::from_millis(20))) {
                Ok(answer) => break answer,
                Err(mpsc::RecvTimeoutError::Timeout) if Stop::of(stop) == Stop::Running => {}
                Err(_) => return Ok(Outcome::Returned(None)),
            }
        };
        state.borrow_mut().running.remove(&id);
        let (ok, text) = match &result {
            ToolResult::Ok(value) => (true, serde_json::to_string(value)),
            ToolResult::Err(error) => (false, serde_json::to_string(error)),
        };
        let text = text.map_err(|e| internal(&e))?;
        if let Err(caught) = settle.call::<_, ()>((id, ok, text)).catch(cx) {
            return Ok(Outcome::Threw(thrown(caught)));
        }
    }
}

/// Defines the program's globals (the prelude) and answers the function that settles a
/// call's promise.
fn install<'js>(
    cx: &Ctx<'js>,
    host: &Host,
    state: &Rc<RefCell<State>>,
    stop: &Arc<AtomicU8>,
) -> rquickjs::Result<Function<'js>> {
    let prelude: Function = cx.eval(include_str!("prelude.js"))?;
    let names: Vec<&str> = host.api.functions.iter().map(|f| f.name.as_str()).collect();
    let paths: Vec<Option<Vec<&str>>> = names
        .iter()
        .map(|name| (path(name) == *name).then(|| name.split('.').collect()))
        .collect();
    let names_js = cx.json_parse(json!(names).to_string())?;
    let paths_js = cx.json_parse(json!(paths).to_string())?;
    let calls = Calls {
        state: state.clone(),
        session: host.session.clone(),
        caller: host.caller.clone(),
        runtime: host.runtime.clone(),
        api: host.api.clone(),
        call_id: host.call_id.clone(),
        stop: stop.clone(),
    };
    let call = Function::new(
        cx.clone(),
        move |cx: Ctx<'js>, name: String, args: String| match calls.start(&name, &args) {
            Ok(id) => Ok(rquickjs::Value::new_int(cx, id)),
            Err(error) => {
                let text = serde_json::to_string(&error).unwrap_or_default();
                rquickjs::String::from_str(cx, &text).map(rquickjs::String::into_value)
            }
        },
    )?;
    let print = {
        let state = state.clone();
        let max_output = host.api.limits.max_output;
        let stop = stop.clone();
        Function::new(cx.clone(), move |text: String| {
            let mut state = state.borrow_mut();
            if state.output.len() + text.len() + 1 > max_output {
                Stop::set(&stop, Stop::Output);
                return;
            }
            state.output.push_str(&text);
            state.output.push('\n');
        })?
    };
    prelude.call((call, print, names_js, paths_js))
}

/// What starting a call needs (held by the program's `call` function).
struct Calls {
    state: Rc<RefCell<State>>,
    session: Session<String>,
    caller: Option<Arc<Caller>>,
    runtime: tokio::runtime::Handle,
    api: Arc<Api>,
    call_id: String,
    stop: Arc<AtomicU8>,
}

impl Calls {
    /// Checks a call and starts it on the session: its id, or why it was refused (thrown
    /// in the program at the call).
    fn start(&self, name: &str, args: &str) -> Result<i32, ToolError> {
        let mut state = self.state.borrow_mut();
        if state.calls >= self.api.limits.max_calls {
            Stop::set(&self.stop, Stop::Calls);
            return Err(stopped(Stop::Calls, self.api.limits));
        }
        if !self.api.functions.iter().any(|f| f.name == name) {
            return Err(self.not_callable(name));
        }
        let args: Value = serde_json::from_str(args).map_err(|e| {
            ToolError::with_code(
                ErrorCode::ToolArgsInvalid,
                format!("invalid arguments for `{name}`: {e}"),
            )
        })?;
        // Checked here, so that the program stops at the call that is wrong, before any
        // tool of it runs; the session checks again (its layers may change the args).
        self.session.check_args(name, args.clone())?;
        state.calls += 1;
        let id = i32::try_from(state.calls).unwrap_or(i32::MAX);
        let mut options = CallOptions::new().call_id(format!("{}/{id}", self.call_id));
        if let Some(caller) = &self.caller {
            options = options.caller(caller.clone());
        }
        let session = self.session.clone();
        let name = name.to_owned();
        let answers = state.answers.clone();
        let task = self.runtime.spawn(async move {
            let result = session.call_with(&name, args, options).await;
            let _ = answers.send((id, result));
        });
        state.running.insert(id, task.abort_handle());
        Ok(id)
    }

    /// Why `name` cannot be called from a program: not a tool, or one for direct calls only.
    fn not_callable(&self, name: &str) -> ToolError {
        if self.session.definitions().iter().any(|d| d.name() == name) {
            ToolError::with_code(
                ErrorCode::ToolForbidden,
                format!(
                    "`{name}` cannot be called from a program: the model calls it directly \
                     (its callers do not include `program`)"
                ),
            )
        } else {
            let known: Vec<&str> = self.api.functions.iter().map(|f| f.name.as_str()).collect();
            let hint = crate::schema::did_you_mean(name, known.iter().copied())
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default();
            ToolError::with_code(
                ErrorCode::ToolHandlerNotFound,
                format!("no tool named `{name}`{hint} (`search_tools` finds them)"),
            )
        }
    }
}

/// The error of a program stopped from outside.
fn stopped(why: Stop, limits: Limits) -> ToolError {
    match why {
        Stop::Time => ToolError::with_code(
            ErrorCode::ToolTimeout,
            format!(
                "the program ran out of time ({} ms, its tool calls included)",
                limits.time.as_millis()
            ),
        ),
        Stop::Cancelled | Stop::Running => {
            ToolError::with_code(ErrorCode::ToolCancelled, "the program was cancelled")
        }
        Stop::Calls => ToolError::new(format!(
            "the program made more than {} tool calls, its limit",
            limits.max_calls
        )),
        Stop::Output => ToolError::new(format!(
            "the program printed more than {} bytes, its limit",
            limits.max_output
        )),
    }
}

/// An exception caught from the interpreter, as the program's error reports it.
fn thrown(caught: CaughtError<'_>) -> Thrown {
    match caught {
        CaughtError::Exception(e) => {
            let object = e.as_object();
            let name = object
                .get::<_, Option<String>>("name")
                .ok()
                .flatten()
                .unwrap_or_else(|| "Error".to_owned());
            let code = object.get::<_, Option<String>>("code").ok().flatten();
            let details = object
                .get::<_, Option<rquickjs::Value>>("details")
                .ok()
                .flatten()
                .and_then(|v| e.as_object().ctx().json_stringify(v).ok().flatten())
                .and_then(|t| t.to_string().ok())
                .and_then(|t| serde_json::from_str(&t).ok());
            Thrown {
                code,
                name,
                message: e.message().unwrap_or_default(),
                line: e.stack().as_deref().and_then(program_line),
                details,
            }
        }
        CaughtError::Value(value) => Thrown {
            code: None,
            name: "a value".to_owned(),
            message: value
                .ctx()
                .json_stringify(value.clone())
                .ok()
                .flatten()
                .and_then(|t| t.to_string().ok())
                .unwrap_or_else(|| format!("{:?}", value.type_of())),
            line: None,
            details: None,
        },
        CaughtError::Error(e) => Thrown {
            code: None,
            name: "InternalError".to_owned(),
            message: e.to_string(),
            line: None,
            details: None,
        },
    }
}

/// The program's line in a stack trace: the first frame in the program (`program.js:3:7`).
fn program_line(stack: &str) -> Option<u32> {
    let at = stack.find(PROGRAM)? + PROGRAM.len() + 1;
    let digits: String = stack[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// The answer: `{"result", "output"}`, or the error with the program's line and output.
fn finish(
    outcome: Result<Outcome, ToolError>,
    output: String,
    max_output: usize,
) -> Result<Value, ToolError> {
    match outcome {
        Ok(Outcome::Returned(text)) => {
            let size = text.as_ref().map_or(0, String::len) + output.len();
            if size > max_output {
                return Err(ToolError::new(format!(
                    "the program's answer is {size} bytes, over its limit of {max_output}"
                )));
            }
            let result = match text {
                Some(text) => serde_json::from_str(&text).map_err(|e| internal(&e))?,
                None => Value::Null,
            };
            Ok(json!({ "result": result, "output": output }))
        }
        Ok(Outcome::Threw(thrown)) => {
            let mut message = String::from("the program threw");
            if let Some(line) = thrown.line {
                let _ = write!(message, " at line {line}");
            }
            let _ = write!(message, ": {}", thrown.name);
            if let Some(code) = &thrown.code {
                let _ = write!(message, " {code}");
            }
            let _ = write!(message, ": {}", thrown.message);
            let mut details = json!({ "name": thrown.name, "output": output });
            if let Some(line) = thrown.line {
                details["line"] = json!(line);
            }
            if let Some(code) = thrown.code {
                details["code"] = json!(code);
            }
            if let Some(inner) = thrown.details {
                details["details"] = inner;
            }
            Err(ToolError::new(message).with_details(details))
        }
        Err(error) => {
            let details = match error.details() {
                Some(Value::Object(d)) => {
                    let mut d = d.clone();
                    d.insert("output".into(), json!(output));
                    Value::Object(d)
                }
                _ => json!({ "output": output }),
            };
            Err(error.with_details(details))
        }
    }
}

fn internal(e: &dyn std::fmt::Display) -> ToolError {
    ToolError::new(format!("the sandbox failed: {e}"))
}
