use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[arg(mcp_header = "Score")]
    score: f64,
}

fn main() {
    let _ = pedelec::schema_for::<Args>();
}
