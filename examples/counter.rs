//! The counter skills of the Pedelec Tools API, in Rust: `get_current_page` and
//! `update_counter` over a shared counter, listed in `skills![]`.
//!
//! `cargo run --example counter` prints the skill set's manifest: what is sent to Core.

use std::sync::atomic::{AtomicI64, Ordering};

use pedelec::{
    Property, SchemaNode, ToolArgs, ToolArgsRoot, ToolCallContext, ToolError, skills, tool,
};
use serde::{Deserialize, Serialize};

/// The counter shown on the page, shared by every call (registered as session state).
#[derive(Debug, Default)]
pub struct Counter {
    value: AtomicI64,
}

impl Counter {
    /// Adds `delta` and returns the new value.
    pub fn add(&self, delta: i64) -> i64 {
        self.value.fetch_add(delta, Ordering::SeqCst) + delta
    }

    /// The current value.
    pub fn get(&self) -> i64 {
        self.value.load(Ordering::SeqCst)
    }
}

/// The arguments of `update_counter`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpdateCounterArgs {
    /// How much to add to the counter (negative to subtract).
    pub delta: i64,
}

impl ToolArgs for UpdateCounterArgs {
    const SCHEMA: SchemaNode = SchemaNode::object(
        const {
            &[Property::new(
                "delta",
                <i64 as ToolArgs>::SCHEMA
                    .description("How much to add to the counter (negative to subtract)."),
                true,
            )]
        },
    )
    .closed();
}
impl ToolArgsRoot for UpdateCounterArgs {}

/// The counter's value after a change.
#[derive(Debug, Serialize)]
pub struct CounterValue {
    /// The new value.
    pub value: i64,
}

/// What the page shows.
#[derive(Debug, Serialize)]
pub struct Page {
    /// The page's title.
    pub title: &'static str,
    /// The visible counter.
    pub counter: i64,
}

/// Read the current page: its title and the visible counter.
#[tool]
pub fn get_current_page(ctx: ToolCallContext) -> Result<Page, ToolError> {
    Ok(Page {
        title: "Counter",
        counter: ctx.state::<Counter>()?.get(),
    })
}

/// Update the visible counter by delta.
#[tool(name = "update_counter", timeout_ms = 5_000)]
pub async fn update_counter(
    args: UpdateCounterArgs,
    ctx: ToolCallContext,
) -> Result<CounterValue, ToolError> {
    Ok(CounterValue {
        value: ctx.state::<Counter>()?.add(args.delta),
    })
}

skills![
    pub enum ToolName,
    guidance = "Read current state before making changes.",
    tools = [get_current_page, update_counter],
];

/// The skill set's manifest as pretty JSON, with a final newline.
#[must_use]
pub fn manifest_json() -> String {
    let mut json =
        serde_json::to_string_pretty(&ToolName::manifest()).expect("a manifest always serializes");
    json.push('\n');
    json
}

fn main() {
    print!("{}", manifest_json());
}
