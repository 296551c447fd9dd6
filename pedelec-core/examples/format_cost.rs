//! What checking a declared `format` costs a call (`docs/formats.md`), in instructions under
//! callgrind, as `call_cost` measures a call:
//!
//! ```text
//! cargo build --release -p pedelec-core --example format_cost
//! valgrind --tool=callgrind target/release/examples/format_cost email 2000
//! valgrind --tool=callgrind target/release/examples/format_cost email 4000
//! ```
//!
//! Each mode calls, through `Session::call_raw`, a tool taking one string: `email` and
//! `date_time` with that `format` declared, `email_plain` and `date_time_plain` the same
//! tool and text without it. A mode's cost per call is the difference of the two totals
//! over 2000; a format's cost is its mode's less its plain mode's. (A binary of its own:
//! more tools in `call_cost` would change how the compiler inlines the call it measures.)

#![allow(missing_docs)]

use pedelec_core::schema::{Property, SchemaNode, ToolArgsRoot};
use pedelec_core::{
    Session, SkillsInput, Tool, ToolArgs, ToolCallContext, ToolDefinition, ToolError,
};
use serde_json::value::RawValue;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    const EMAIL: &str = "ann@example.com";
    const DATE_TIME: &str = "2024-05-17T09:30:00+02:00";
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: u64 = args
        .get(1)
        .map_or(1000, |n| n.parse().expect("a call count"));
    match args.first().map_or("email", String::as_str) {
        "email" => calls::<EmailNote>(n, EMAIL).await,
        "email_plain" => calls::<PlainNote>(n, EMAIL).await,
        "date_time" => calls::<DateTimeNote>(n, DATE_TIME).await,
        "date_time_plain" => calls::<PlainNote>(n, DATE_TIME).await,
        other => panic!("unknown mode {other:?}: email, email_plain, date_time or date_time_plain"),
    }
}

/// `n` calls of the tool `T` with `value`, in a session of its own.
async fn calls<T: Tool>(n: u64, value: &str) {
    let session = Session::builder(SkillsInput::new("", vec![ToolDefinition::of::<T>()]))
        .create()
        .expect("a session");
    let args =
        RawValue::from_string(serde_json::json!({ "value": value }).to_string()).expect("json");
    for _ in 0..n {
        let out = session.call_raw(T::NAME, &args).await;
        assert!(out.starts_with("{\"ok\":true"), "{out}");
    }
}

/// A tool taking one string whose schema is `$schema`.
macro_rules! string_tool {
    ($tool:ident, $args:ident, $schema:expr) => {
        #[derive(serde::Deserialize)]
        struct $args {
            value: String,
        }

        impl ToolArgs for $args {
            const SCHEMA: SchemaNode =
                SchemaNode::object(const { &[Property::new("value", $schema, true)] }).closed();
        }

        impl ToolArgsRoot for $args {}

        struct $tool {}

        impl Tool for $tool {
            const NAME: &'static str = "note";
            const DESCRIPTION: &'static str = "Take a note.";
            type Args = $args;
            type Output = usize;

            async fn call(args: $args, _ctx: ToolCallContext) -> Result<usize, ToolError> {
                Ok(args.value.len())
            }
        }
    };
}

string_tool!(PlainNote, PlainArgs, SchemaNode::string());
string_tool!(
    EmailNote,
    EmailArgs,
    SchemaNode::string().with_format("email")
);
string_tool!(
    DateTimeNote,
    DateTimeArgs,
    SchemaNode::string().with_format("date-time")
);
