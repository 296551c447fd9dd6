use pedelec::export::{Choice, ExportOptions, Target};
use pedelec::{skills, tool};

/// Checks that the service answers.
#[tool]
fn ping() {}

skills![guidance = "Use it.", tools = [ping]];

mod other {
    use pedelec::{skills, tool};

    /// Answers.
    #[tool]
    fn pong() {}

    skills![guidance = "Use it.", tools = [pong]];
}

fn main() {
    let export = ToolName::export(Target::OpenAiChat, ExportOptions::default()).unwrap();
    let _ = export.tool_choice(&["ping"], Choice::Required);
    let _ = export.tool_choice(&[other::ToolName::Pong], Choice::Required);
}
