use pedelec::ToolArgs;
use serde::Deserialize;

#[derive(Deserialize, ToolArgs)]
struct Tree<T> {
    value: T,
    children: Vec<Tree<T>>,
}

fn main() {}
