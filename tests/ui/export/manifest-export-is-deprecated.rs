#![deny(deprecated)]

use pedelec::export::{ExportOptions, Target};
use pedelec::{skills, tool};

/// Open a URL.
#[tool(name = "nav.open_url", defer)]
fn open_url() -> bool {
    true
}

skills![guidance = "Navigate.", tools = [open_url]];

fn main() {
    // Core's manifest has no deferral, callers, output schemas or examples: its export
    // would drop them without a word.
    let _ = ToolName::manifest().export(Target::OpenAiChat, ExportOptions::default());
    // What to write instead.
    let _ = ToolName::export(Target::OpenAiChat, ExportOptions::default());
}
