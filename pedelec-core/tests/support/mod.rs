//! Hand-written tools for the runtime's integration tests (what `#[tool]`, `ToolArgs` and
//! `skills![]` generate, written out, so these tests depend on the runtime only).

#![allow(dead_code, non_camel_case_types)]

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicI64, Ordering};

use pedelec_core::schema::{Property, SchemaNode, ToolArgsRoot};
use pedelec_core::skills::{InSkillSet, SkillSet};
use pedelec_core::{SkillsInput, Tool, ToolArgs, ToolCallContext, ToolDefinition, ToolError};
use serde::{Deserialize, Serialize};

/// Shared state: the counter.
#[derive(Debug, Default)]
pub struct Counter(AtomicI64);

impl Counter {
    pub fn add(&self, delta: i64) -> i64 {
        self.0.fetch_add(delta, Ordering::SeqCst) + delta
    }

    pub fn get(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpdateCounterArgs {
    pub delta: i64,
}

impl ToolArgs for UpdateCounterArgs {
    const SCHEMA: SchemaNode =
        SchemaNode::object(const { &[Property::new("delta", SchemaNode::integer(), true)] })
            .closed();
}
impl ToolArgsRoot for UpdateCounterArgs {}

#[derive(Debug, Serialize, PartialEq)]
pub struct CounterValue {
    pub value: i64,
}

/// Update the visible counter by delta.
pub struct update_counter {}

impl Tool for update_counter {
    const NAME: &'static str = "update_counter";
    const DESCRIPTION: &'static str = "Update the visible counter by delta.";
    type Args = UpdateCounterArgs;
    type Output = CounterValue;

    async fn call(
        args: UpdateCounterArgs,
        ctx: ToolCallContext,
    ) -> Result<CounterValue, ToolError> {
        Ok(CounterValue {
            value: ctx.state::<Counter>()?.add(args.delta),
        })
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EchoArgs {
    pub text: String,
    #[serde(default)]
    pub repeat: Option<u32>,
}

impl ToolArgs for EchoArgs {
    const SCHEMA: SchemaNode = SchemaNode::object(
        const {
            &[
                Property::new("text", SchemaNode::string(), true),
                Property::new("repeat", <u32 as ToolArgs>::SCHEMA, false),
            ]
        },
    )
    .closed();
}
impl ToolArgsRoot for EchoArgs {}

/// Echo the text, repeated.
pub struct echo {}

impl Tool for echo {
    const NAME: &'static str = "echo";
    const DESCRIPTION: &'static str = "Echo the text back, `repeat` times (default once).";
    type Args = EchoArgs;
    type Output = String;

    async fn call(args: EchoArgs, _ctx: ToolCallContext) -> Result<String, ToolError> {
        Ok(args.text.repeat(args.repeat.unwrap_or(1) as usize))
    }
}

/// Where `slow` reports that it saw its cancellation.
pub struct CancelProbe(pub tokio::sync::mpsc::UnboundedSender<String>);

/// Never finishes; tells the probe (if registered) when its context is cancelled.
pub struct slow {}

impl Tool for slow {
    const NAME: &'static str = "slow";
    const DESCRIPTION: &'static str = "Wait forever (until the timeout).";
    const TIMEOUT_MS: Option<u64> = Some(30);
    type Args = pedelec_core::schema::NoArgs;
    type Output = ();

    async fn call(
        _args: pedelec_core::schema::NoArgs,
        ctx: ToolCallContext,
    ) -> Result<(), ToolError> {
        if let Ok(probe) = ctx.state::<CancelProbe>() {
            let tx = probe.0.clone();
            let watcher = ctx.clone();
            // Work moved off the handler's future: it must learn of the cancellation
            // through the context.
            tokio::spawn(async move {
                watcher.cancelled().await;
                let _ = tx.send(watcher.call_id().to_owned());
            });
        }
        std::future::pending::<()>().await;
        Ok(())
    }
}

/// Panics.
pub struct explode {}

impl Tool for explode {
    const NAME: &'static str = "explode";
    const DESCRIPTION: &'static str = "Panic (a bug in a handler).";
    type Args = pedelec_core::schema::NoArgs;
    type Output = ();

    async fn call(
        _args: pedelec_core::schema::NoArgs,
        _ctx: ToolCallContext,
    ) -> Result<(), ToolError> {
        panic!("deliberate panic in explode")
    }
}

/// Returns an error.
pub struct fail {}

impl Tool for fail {
    const NAME: &'static str = "fail";
    const DESCRIPTION: &'static str = "Fail with an error.";
    type Args = pedelec_core::schema::NoArgs;
    type Output = ();

    async fn call(
        _args: pedelec_core::schema::NoArgs,
        _ctx: ToolCallContext,
    ) -> Result<(), ToolError> {
        Err(std::io::Error::other("the disk is full").into())
    }
}

#[derive(Debug, Serialize)]
pub struct Stats {
    pub mean: f64,
}

/// Returns NaN.
pub struct nan {}

impl Tool for nan {
    const NAME: &'static str = "nan";
    const DESCRIPTION: &'static str = "Compute the mean of nothing.";
    type Args = pedelec_core::schema::NoArgs;
    type Output = Stats;

    async fn call(
        _args: pedelec_core::schema::NoArgs,
        _ctx: ToolCallContext,
    ) -> Result<Stats, ToolError> {
        Ok(Stats { mean: f64::NAN })
    }
}

/// A tool without an inline handler (served by a named or fallback handler).
pub fn manual_definition() -> ToolDefinition {
    ToolDefinition::new(
        "manual",
        "A tool whose handler is registered on the session.",
        pedelec_core::ToolArgsSchema::from_node(<EchoArgs as ToolArgs>::SCHEMA),
    )
}

/// A session of these tools whose `manual` sleeps for `repeat` milliseconds, then answers
/// its args: a call as slow as a transport's test needs.
pub fn session_with_sleeping_manual() -> pedelec_core::Session<ToolName> {
    let session = pedelec_core::Session::builder(ToolName::skills())
        .state(Counter::default())
        .create()
        .unwrap();
    session.on_tool_name(
        ToolName::Manual,
        |args: serde_json::Value, _ctx| async move {
            let ms = args["repeat"].as_u64().unwrap_or(0);
            tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
            Ok(args)
        },
    );
    session
}

/// What `skills![]` generates, written out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ToolName {
    UpdateCounter,
    Echo,
    Slow,
    Explode,
    Fail,
    Nan,
    Manual,
}

impl fmt::Display for ToolName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ToolName {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        ToolName::ALL
            .iter()
            .copied()
            .find(|t| t.as_str() == s)
            .ok_or_else(|| format!("unknown tool {s}"))
    }
}

impl SkillSet for ToolName {
    const ALL: &'static [Self] = &[
        ToolName::UpdateCounter,
        ToolName::Echo,
        ToolName::Slow,
        ToolName::Explode,
        ToolName::Fail,
        ToolName::Nan,
        ToolName::Manual,
    ];

    fn as_str(self) -> &'static str {
        match self {
            ToolName::UpdateCounter => "update_counter",
            ToolName::Echo => "echo",
            ToolName::Slow => "slow",
            ToolName::Explode => "explode",
            ToolName::Fail => "fail",
            ToolName::Nan => "nan",
            ToolName::Manual => "manual",
        }
    }

    fn skills() -> SkillsInput<Self> {
        SkillsInput::typed(
            "Read current state before making changes.",
            vec![
                ToolDefinition::of::<update_counter>(),
                ToolDefinition::of::<echo>(),
                ToolDefinition::of::<slow>(),
                ToolDefinition::of::<explode>(),
                ToolDefinition::of::<fail>(),
                ToolDefinition::of::<nan>(),
                manual_definition(),
            ],
        )
    }
}

impl InSkillSet<ToolName> for update_counter {}
impl InSkillSet<ToolName> for echo {}
impl InSkillSet<ToolName> for slow {}
impl InSkillSet<ToolName> for explode {}
impl InSkillSet<ToolName> for fail {}
impl InSkillSet<ToolName> for nan {}

/// The tools of the manifest, in order.
pub const TOOL_NAMES: [&str; 7] = [
    "update_counter",
    "echo",
    "slow",
    "explode",
    "fail",
    "nan",
    "manual",
];

/// Silences the default panic output for the deliberate panics of these tests only.
pub fn quiet_deliberate_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let deliberate = info
                .payload()
                .downcast_ref::<&str>()
                .is_some_and(|s| s.starts_with("deliberate"));
            if !deliberate {
                default(info);
            }
        }));
    });
}
