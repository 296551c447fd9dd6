use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Tree {
    label: String,
    children: Vec<Tree>,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Tree>();
    root::<Tree>();
}
