use pedelec::ToolOutput;
use serde::Serialize;

#[derive(Serialize, ToolOutput)]
enum Verdict {
    #[arg(title = "Looks good")]
    Pass,
    Fail,
}

#[derive(Serialize, ToolOutput)]
struct Reply {
    #[arg(enum_names)]
    verdict: Verdict,
}

fn main() {}
