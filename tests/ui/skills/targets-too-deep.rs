use pedelec::{ToolArgs, skills, tool};
use serde::Deserialize;

macro_rules! nest {
    ($outer:ident $inner:ident) => {
        #[derive(Deserialize, ToolArgs)]
        struct $outer {
            inner: $inner,
        }
    };
}

#[derive(Deserialize, ToolArgs)]
struct L11 {
    leaf: bool,
}
nest!(L10 L11);
nest!(L9 L10);
nest!(L8 L9);
nest!(L7 L8);
nest!(L6 L7);
nest!(L5 L6);
nest!(L4 L5);
nest!(L3 L4);
nest!(L2 L3);
nest!(L1 L2);

/// Takes deeply nested arguments.
#[tool]
fn deep(args: L1) -> bool {
    let _ = args;
    true
}

skills![
    guidance = "Go deep.",
    tools = [deep],
    targets = [anthropic, openai],
];

fn main() {}
