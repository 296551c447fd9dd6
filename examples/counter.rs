//! The counter skills of the Pedelec Tools API, in Rust: `get_current_page` and
//! `update_counter` over a shared counter, listed in `skills![]`.
//!
//! `cargo run --example counter` prints the skill set's manifest: what is sent to Core.

use std::sync::atomic::{AtomicI64, Ordering};

use pedelec::{ToolArgs, ToolCallContext, ToolError, skills, tool};
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

// The arguments of `update_counter`. A `///` comment here would become the argsSchema's
// root description; the seed's schema has none.
#[derive(Debug, Deserialize, ToolArgs)]
struct UpdateCounterArgs {
    /// How much to add to the counter (negative to subtract).
    delta: i64,
}

/// The counter's value after a change.
#[derive(Debug, Serialize)]
struct CounterValue {
    /// The new value.
    value: i64,
}

/// What the page shows.
#[derive(Debug, Serialize)]
struct Page {
    /// The page's title.
    title: &'static str,
    /// The visible counter.
    counter: i64,
}

/// Read the current page: its title and the visible counter.
#[tool]
fn get_current_page(ctx: ToolCallContext) -> Result<Page, ToolError> {
    Ok(Page {
        title: "Counter",
        counter: ctx.state::<Counter>()?.get(),
    })
}

/// Update the visible counter by delta.
#[tool(name = "update_counter", timeout_ms = 5_000)]
async fn update_counter(
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
