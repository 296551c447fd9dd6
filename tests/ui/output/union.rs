use pedelec::ToolOutput;

#[derive(ToolOutput)]
union Bits {
    f: f32,
    u: u32,
}

fn main() {}
