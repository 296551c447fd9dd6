use pedelec::export::{Choice, ExportOptions, Target};
use pedelec::{skills, tool};

/// Checks that the service answers.
#[tool]
fn ping() {}

skills![guidance = "Use it.", tools = [ping]];

fn main() {
    let export = ToolName::manifest()
        .export(Target::OpenAiChat, ExportOptions::default())
        .unwrap();
    let _ = export.tool_choice(&["ping"], Choice::Required);
}
