use pedelec::{skills, tool};

mod ops {
    /// Check that the office answers.
    #[pedelec::tool]
    pub fn ping() -> bool {
        true
    }

    pedelec::skills![guidance = "Operations.", tools = [ping]];
}

mod health {
    /// Check that the service answers.
    #[pedelec::tool(name = "ping")]
    pub fn alive() -> bool {
        true
    }

    pedelec::skills![guidance = "Health.", tools = [alive]];
}

/// Check the office, from here.
#[tool(name = "ping")]
fn local_ping() -> bool {
    true
}

skills![
    guidance = "Back office.",
    include = [ops::ToolName, health::ToolName],
    tools = [local_ping],
];

fn main() {}
