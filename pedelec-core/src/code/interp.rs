//! The interpreter's side of `run_code`: one program in QuickJS (a fresh runtime and context:
//! nothing survives a run), whose tool calls go to the host as frames and come back as
//! answers. It runs in a worker process (`worker.rs`), which prepares its interpreter (the
//! runtime, its limits, the context, the prelude) before its program arrives, or, in
//! process, on a thread of the host; either way it knows nothing of the session.
//!
//! A call is sent to the host, which answers at once (started; answered, when the call
//! finished at once; or refused: thrown at the program's call); the program's jobs run until it waits on calls only, then the next
//! answer settles its promise. An interrupt handler stops the program at its deadline, at a
//! limit, or when the host is gone: QuickJS cannot catch that. An uncaught error that is a
//! limit (memory, stack) is answered as that limit, inside promise jobs too.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rquickjs::context::intrinsic;
use rquickjs::{CatchResultExt, CaughtError, Context, Ctx, Function, Persistent, Promise, Runtime};

use super::frame::{Limits, Outcome, Start, Thrown, ToHost, ToWorker};
use crate::error::{ErrorCode, ToolError};

/// Why a program was stopped (the interrupt handler's flag).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Stop {
    Running = 0,
    Time = 1,
    Cancelled = 2,
    Calls = 3,
    Output = 4,
}

impl Stop {
    pub(crate) fn of(flag: &AtomicU8) -> Stop {
        match flag.load(Ordering::Acquire) {
            1 => Stop::Time,
            2 => Stop::Cancelled,
            3 => Stop::Calls,
            4 => Stop::Output,
            _ => Stop::Running,
        }
    }

    /// Sets the flag unless it is set already (the first reason stands).
    pub(crate) fn set(flag: &AtomicU8, stop: Stop) {
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

/// The globals a program finds besides its tools' namespaces: the interpreter's (listed by
/// an interpreter with the same intrinsics) and the prelude's. A dotted tool name whose
/// first part is one of them is reached by `tools["…"]` only.
pub(crate) fn globals() -> &'static [String] {
    static GLOBALS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    GLOBALS.get_or_init(|| {
        let mut names: Vec<String> = ["console", "tools", "ToolError"].map(String::from).to_vec();
        let listed = Runtime::new().ok().and_then(|runtime| {
            let context = Context::custom::<Intrinsics>(&runtime).ok()?;
            context.with(|cx| {
                cx.eval::<Vec<String>, _>("Object.getOwnPropertyNames(globalThis)")
                    .ok()
            })
        });
        names.extend(listed.unwrap_or_default());
        names
    })
}

/// The file name a program's frames carry (its line numbers are the program's own).
const PROGRAM: &str = "program.js";

/// The stack of the program's thread beyond the interpreter's own limit.
pub(crate) const THREAD_STACK_MARGIN: usize = 2 << 20;

/// The interpreter's way to the host: frames out, frames in.
pub(crate) struct Link {
    /// Sends a frame; false when the host is gone.
    pub(crate) send: Box<dyn FnMut(ToHost) -> bool + Send>,
    /// The next frame from the host, waiting at most the given time (none: until one
    /// comes or the host is gone).
    pub(crate) receive: Box<dyn FnMut(Option<Duration>) -> Received + Send>,
}

/// What `Link::receive` got.
pub(crate) enum Received {
    Frame(ToWorker),
    /// Nothing within the time given.
    Nothing,
    /// The host is gone (or sent what is not a frame).
    Closed,
}

impl Link {
    /// A link over channels, for a program on a thread of the host.
    pub(crate) fn channels(
        send: Box<dyn FnMut(ToHost) -> bool + Send>,
        inbox: mpsc::Receiver<ToWorker>,
    ) -> Link {
        Link {
            send,
            receive: Box::new(move |wait| match wait {
                None => inbox.recv().map_or(Received::Closed, Received::Frame),
                Some(wait) => match inbox.recv_timeout(wait) {
                    Ok(frame) => Received::Frame(frame),
                    Err(mpsc::RecvTimeoutError::Timeout) => Received::Nothing,
                    Err(mpsc::RecvTimeoutError::Disconnected) => Received::Closed,
                },
            }),
        }
    }
}

/// Runs `start`'s program in a fresh interpreter and sends its outcome (`ToHost::Done`):
/// the in-process sandbox. `stop` is set from outside too (the host cancelled).
pub(crate) fn serve(start: &Start, link: Link, stop: &Arc<AtomicU8>) {
    let state = State::new(link);
    let ready = prepare(start.limits.memory, start.limits.stack, &state, stop);
    run(ready, start, &state, stop);
}

/// A worker's program thread: prepares an interpreter under `memory` and `stack` before
/// its program arrives, then waits for the program (`ToWorker::Start`), calls `begin` with
/// its limits (the worker's last settings) and runs it. Nothing when the host lets the
/// worker go before it sent a program.
pub(crate) fn serve_prepared(
    memory: usize,
    stack: usize,
    link: Link,
    stop: &Arc<AtomicU8>,
    begin: impl FnOnce(&Limits) -> Result<(), ToolError>,
) {
    let state = State::new(link);
    let ready = prepare(memory, stack, &state, stop);
    let start = loop {
        let frame = (state.borrow_mut().link.receive)(None);
        match frame {
            Received::Frame(ToWorker::Start(start)) => break start,
            Received::Frame(_) | Received::Nothing => {}
            Received::Closed => return,
        }
    };
    let ready = match (ready, begin(&start.limits)) {
        (Ok(_), _) if (start.limits.memory, start.limits.stack) != (memory, stack) => Err(
            internal(&"the program's limits are not those its worker was prepared with"),
        ),
        (Ok(ready), Ok(())) => Ok(ready),
        (Err(e), _) | (_, Err(e)) => Err(e),
    };
    run(ready, &start, &state, stop);
}

/// Runs `start`'s program in `ready` and sends its outcome.
fn run(
    ready: Result<Ready, ToolError>,
    start: &Start,
    state: &Rc<RefCell<State>>,
    stop: &Arc<AtomicU8>,
) {
    let deadline = Instant::now() + Duration::from_millis(start.limits.time_ms);
    {
        let mut state = state.borrow_mut();
        state.deadline = deadline;
        state.max_output = start.limits.max_output;
    }
    let outcome = match ready.and_then(|ready| execute(&ready, start, state, deadline, stop)) {
        Ok(outcome) => outcome,
        Err(error) => Outcome::Failed(error),
    };
    let outcome = match Stop::of(stop) {
        Stop::Running => outcome,
        why => Outcome::Failed(stopped(why, &start.limits)),
    };
    let mut state = state.borrow_mut();
    // An answer over the limit is refused here, before it crosses the pipe.
    let max_output = start.limits.max_output;
    let outcome = match outcome {
        Outcome::Returned(Some(text)) if text.len() + state.printed > max_output => {
            Outcome::Failed(ToolError::new(format!(
                "the program's answer is {} bytes, over its limit of {max_output} \
                 (`CodeMode::max_output`)",
                text.len() + state.printed
            )))
        }
        outcome => outcome,
    };
    let _ = (state.link.send)(ToHost::Done(outcome));
}

/// The program's state, shared by the host functions on its thread.
struct State {
    link: Link,
    /// When the program must have ended (set when it arrives).
    deadline: Instant,
    /// The most it may print and return, in bytes (set when it arrives).
    max_output: usize,
    /// Bytes printed so far.
    printed: usize,
    /// Calls started and not answered yet.
    waiting: usize,
    /// Answers that arrived while the program waited for a call to start, or with its start.
    answers: VecDeque<(i32, bool, String)>,
}

impl State {
    fn new(link: Link) -> Rc<RefCell<State>> {
        Rc::new(RefCell::new(State {
            link,
            deadline: Instant::now(),
            max_output: 0,
            printed: 0,
            waiting: 0,
            answers: VecDeque::new(),
        }))
    }

    /// The next frame from the host, waiting in slices until the deadline or a stop.
    fn next(&mut self, stop: &AtomicU8) -> Option<ToWorker> {
        loop {
            let left = self.deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                Stop::set(stop, Stop::Time);
                return None;
            }
            match (self.link.receive)(Some(left.min(Duration::from_millis(20)))) {
                Received::Frame(frame) => return Some(frame),
                Received::Nothing if Stop::of(stop) == Stop::Running => {}
                Received::Nothing => return None,
                Received::Closed => {
                    Stop::set(stop, Stop::Cancelled);
                    return None;
                }
            }
        }
    }
}

/// An interpreter ready for a program: a runtime under its memory and stack limits, a
/// context, the prelude evaluated (what a warm worker does before its program arrives).
/// The saved functions are dropped before the context and the runtime (field order).
struct Ready {
    declare: Persistent<Function<'static>>,
    settle: Persistent<Function<'static>>,
    context: Context,
    runtime: Runtime,
}

/// A fresh interpreter with the prelude evaluated, its host functions speaking through
/// `state`.
fn prepare(
    memory: usize,
    stack: usize,
    state: &Rc<RefCell<State>>,
    stop: &Arc<AtomicU8>,
) -> Result<Ready, ToolError> {
    let runtime = Runtime::new().map_err(|e| internal(&e))?;
    runtime.set_memory_limit(memory);
    runtime.set_max_stack_size(stack);
    let context = Context::custom::<Intrinsics>(&runtime).map_err(|e| internal(&e))?;
    let (declare, settle) = context
        .with(|cx| -> rquickjs::Result<_> {
            let entries = install(&cx, state, stop)?;
            Ok((
                Persistent::save(&cx, entries.get::<_, Function>("declare")?),
                Persistent::save(&cx, entries.get::<_, Function>("settle")?),
            ))
        })
        .map_err(|e| internal(&e))?;
    Ok(Ready {
        declare,
        settle,
        context,
        runtime,
    })
}

fn execute(
    ready: &Ready,
    start: &Start,
    state: &Rc<RefCell<State>>,
    deadline: Instant,
    stop: &Arc<AtomicU8>,
) -> Result<Outcome, ToolError> {
    let Ready {
        declare,
        settle,
        context,
        runtime,
    } = ready;
    let limits = start.limits;
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
    let begun = context.with(|cx| -> Result<Result<_, Thrown>, ToolError> {
        let declare = declare.clone().restore(&cx).map_err(|e| internal(&e))?;
        let names = cx
            .json_parse(serde_json::to_string(&start.names).unwrap_or_default())
            .map_err(|e| internal(&e))?;
        let paths = cx
            .json_parse(serde_json::to_string(&start.paths).unwrap_or_default())
            .map_err(|e| internal(&e))?;
        if let Err(caught) = declare.call::<_, ()>((names, paths)).catch(&cx) {
            return Ok(Err(thrown(caught)));
        }
        // The program is the body of an async function; its first line is line 1.
        let source = format!("(async () => {{{}\n}})()", start.code);
        let mut options = rquickjs::context::EvalOptions::default();
        options.strict = false;
        options.filename = Some(PROGRAM.to_owned());
        Ok(
            match cx
                .eval_with_options::<Promise, _>(source, options)
                .catch(&cx)
            {
                Ok(promise) => Ok(Persistent::save(&cx, promise)),
                Err(caught) => Err(thrown(caught)),
            },
        )
    })?;
    let promise = match begun {
        Ok(begun) => begun,
        Err(thrown) => return Ok(limit_or(thrown, Uncaught::Engine, runtime, &limits)),
    };
    loop {
        // The jobs, with what they throw: QuickJS drops a job's exception (one that
        // could not even become a rejection: out of memory, the interrupt) otherwise.
        loop {
            match runtime.execute_pending_job() {
                Ok(true) => {}
                Ok(false) => break,
                Err(job) => {
                    if Stop::of(stop) != Stop::Running {
                        return Ok(Outcome::Returned(None));
                    }
                    let thrown = job.0.with(|cx| {
                        thrown(CaughtError::from_error(&cx, rquickjs::Error::Exception))
                    });
                    return Ok(limit_or(thrown, Uncaught::Engine, runtime, &limits));
                }
            }
        }
        if Stop::of(stop) != Stop::Running {
            return Ok(Outcome::Returned(None));
        }
        let settled = context.with(
            |cx| -> Result<Option<Result<Option<String>, Thrown>>, ToolError> {
                let promise = promise.clone().restore(&cx).map_err(|e| internal(&e))?;
                Ok(match promise.result::<rquickjs::Value>() {
                    Some(Ok(value)) => Some(match cx.json_stringify(value).catch(&cx) {
                        Ok(text) => Ok(text
                            .map(|t| t.to_string())
                            .transpose()
                            .map_err(|e| internal(&e))?),
                        Err(caught) => Err(thrown(caught)),
                    }),
                    Some(Err(e)) => Some(Err(thrown(CaughtError::from_error(&cx, e)))),
                    None => None,
                })
            },
        )?;
        match settled {
            Some(Ok(text)) => return Ok(Outcome::Returned(text)),
            Some(Err(thrown)) => return Ok(limit_or(thrown, Uncaught::Program, runtime, &limits)),
            None => {}
        }
        let queued = state.borrow_mut().answers.pop_front();
        let (id, ok, json) = match queued {
            Some(answer) => answer,
            None => {
                if state.borrow().waiting == 0 {
                    return Err(ToolError::new(
                        "the program waits for something that never happens: no tool call is \
                         running and no job is left (a promise nothing resolves?)",
                    ));
                }
                match state.borrow_mut().next(stop) {
                    Some(ToWorker::Answer { id, ok, json }) => (id, ok, json),
                    Some(_) => continue,
                    None => return Ok(Outcome::Returned(None)),
                }
            }
        };
        state.borrow_mut().waiting -= 1;
        let failed = context.with(|cx| -> Result<Option<Thrown>, ToolError> {
            let settle = settle.clone().restore(&cx).map_err(|e| internal(&e))?;
            Ok(settle
                .call::<_, ()>((id, ok, json))
                .catch(&cx)
                .err()
                .map(thrown))
        })?;
        if let Some(thrown) = failed {
            if Stop::of(stop) != Stop::Running {
                return Ok(Outcome::Returned(None));
            }
            return Ok(limit_or(thrown, Uncaught::Engine, runtime, &limits));
        }
    }
}

/// Where an uncaught value came from. A program is the body of an async function, so what
/// it throws (`throw null` included) rejects its promise: `Program`. Evaluating it, running
/// a job, or settling a call's promise throws only what no program can catch (QuickJS ran
/// out of memory, or was interrupted): `Engine`, where a `null` is memory for certain.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Uncaught {
    Program,
    Engine,
}

/// The worker's peak resident size when it started (`note_worker_start`); unset
/// in process, where the peak is the whole server's.
static WORKER_START_PEAK: std::sync::OnceLock<u64> = std::sync::OnceLock::new();

/// Called by a worker as it starts, before it prepares its interpreter: the peak its
/// program's memory is measured from.
pub(super) fn note_worker_start() {
    if let Some(peak) = peak_rss() {
        let _ = WORKER_START_PEAK.set(peak);
    }
}

/// This process's peak resident size, in bytes (the kernel's high-water mark).
fn peak_rss() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        use nix::sys::resource::{UsageWho, getrusage};
        let usage = getrusage(UsageWho::RUSAGE_SELF).ok()?;
        u64::try_from(usage.max_rss()).ok().map(|kib| kib * 1024)
    }
    #[cfg(not(target_os = "linux"))]
    None
}

/// How far a worker's peak resident size rose while its program ran (0 in process).
fn worker_peak_growth() -> usize {
    let Some(start) = WORKER_START_PEAK.get() else {
        return 0;
    };
    let growth = peak_rss().map_or(0, |peak| peak.saturating_sub(*start));
    usize::try_from(growth).unwrap_or(usize::MAX)
}

/// An uncaught exception, or the limit it is: memory (QuickJS's "out of memory", or a
/// `null` it throws when it could not even allocate that error) or stack. A `null` from the
/// engine ([`Uncaught::Engine`]) is memory; one that rejected the program's promise (a
/// program may `throw null`) is taken for memory when the interpreter holds most of its
/// limit, or, in a worker, when the process's peak rose past half of it: QuickJS frees by
/// reference counting, so what the program built may be gone by the time it is read.
fn limit_or(thrown: Thrown, from: Uncaught, runtime: &Runtime, limits: &Limits) -> Outcome {
    let memory = thrown.message.contains("out of memory")
        || (thrown.name == "a value"
            && thrown.message == "null"
            && (from == Uncaught::Engine || {
                let used = usize::try_from(runtime.memory_usage().malloc_size).unwrap_or(0);
                used >= limits.memory / 4 * 3 || worker_peak_growth() >= limits.memory / 2
            }));
    if memory {
        return Outcome::Failed(ToolError::new(format!(
            "the program ran out of memory: it may use {} bytes (`CodeMode::memory_limit`); \
             out of memory",
            limits.memory
        )));
    }
    if thrown.message.contains("Maximum call stack size exceeded")
        || thrown.message.contains("stack overflow")
    {
        return Outcome::Failed(ToolError::new(format!(
            "the program ran out of stack: it may use {} bytes (`CodeMode::stack_limit`): \
             recursion too deep? ({}: {})",
            limits.stack, thrown.name, thrown.message
        )));
    }
    Outcome::Threw(thrown)
}

/// Defines the program's globals (the prelude) and answers its two entries: `declare`,
/// which defines the tools, and `settle`, which settles a call's promise.
fn install<'js>(
    cx: &Ctx<'js>,
    state: &Rc<RefCell<State>>,
    stop: &Arc<AtomicU8>,
) -> rquickjs::Result<rquickjs::Object<'js>> {
    let prelude: Function = cx.eval(include_str!("prelude.js"))?;
    let call = {
        let state = state.clone();
        let stop = stop.clone();
        Function::new(
            cx.clone(),
            move |cx: Ctx<'js>, name: String, args: String| {
                let refused = |error: &ToolError| {
                    let text = serde_json::to_string(error).unwrap_or_default();
                    rquickjs::String::from_str(cx.clone(), &text).map(rquickjs::String::into_value)
                };
                let mut state = state.borrow_mut();
                if !(state.link.send)(ToHost::Call { name, args }) {
                    Stop::set(&stop, Stop::Cancelled);
                    return refused(&ToolError::with_code(
                        ErrorCode::ToolCancelled,
                        "the program was cancelled",
                    ));
                }
                loop {
                    match state.next(&stop) {
                        Some(ToWorker::Started(id)) => {
                            state.waiting += 1;
                            return Ok(rquickjs::Value::new_int(cx, id));
                        }
                        Some(ToWorker::Answered { id, ok, json }) => {
                            state.waiting += 1;
                            state.answers.push_back((id, ok, json));
                            return Ok(rquickjs::Value::new_int(cx, id));
                        }
                        Some(ToWorker::Refused { error, stop: halt }) => {
                            if halt {
                                Stop::set(&stop, Stop::Calls);
                            }
                            return refused(&error);
                        }
                        Some(ToWorker::Answer { id, ok, json }) => {
                            state.answers.push_back((id, ok, json));
                        }
                        Some(ToWorker::Start(_) | ToWorker::Prepare { .. }) => {}
                        None => {
                            return refused(&ToolError::with_code(
                                ErrorCode::ToolCancelled,
                                "the program was stopped",
                            ));
                        }
                    }
                }
            },
        )?
    };
    let print = {
        let state = state.clone();
        let stop = stop.clone();
        Function::new(cx.clone(), move |text: String| {
            let mut state = state.borrow_mut();
            if state.printed + text.len() + 1 > state.max_output {
                Stop::set(&stop, Stop::Output);
                return;
            }
            state.printed += text.len() + 1;
            if !(state.link.send)(ToHost::Print(text)) {
                Stop::set(&stop, Stop::Cancelled);
            }
        })?
    };
    prelude.call((call, print))
}

/// The error of a program stopped by a limit or from outside.
pub(crate) fn stopped(why: Stop, limits: &Limits) -> ToolError {
    match why {
        Stop::Time => ToolError::with_code(
            ErrorCode::ToolTimeout,
            format!(
                "the program ran out of time ({} ms, its tool calls included; \
                 `CodeMode::time_limit`)",
                limits.time_ms
            ),
        ),
        Stop::Cancelled | Stop::Running => {
            ToolError::with_code(ErrorCode::ToolCancelled, "the program was cancelled")
        }
        Stop::Calls => ToolError::new(format!(
            "the program made more than {} tool calls, its limit (`CodeMode::max_calls`)",
            limits.max_calls
        )),
        Stop::Output => ToolError::new(format!(
            "the program printed more than {} bytes, its limit (`CodeMode::max_output`)",
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
                .and_then(|t| t.to_string().ok());
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

pub(crate) fn internal(e: &dyn std::fmt::Display) -> ToolError {
    ToolError::new(format!("the sandbox failed: {e}"))
}
