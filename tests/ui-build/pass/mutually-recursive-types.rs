//! Types that contain each other: each type of the cycle gets its `$defs` entry, wherever
//! the cycle is entered (a generic type inside the cycle included: the cycle is broken at
//! the types without parameters).
use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Folder {
    files: Vec<File>,
}

#[derive(ToolArgs)]
struct File {
    parent: Option<Box<Folder>>,
}

#[derive(ToolArgs)]
struct Node {
    group: Option<Group>,
    tagged: Option<Tagged<u8>>,
}

#[derive(ToolArgs)]
struct Group {
    members: Vec<Node>,
}

#[derive(ToolArgs)]
struct Tagged<T> {
    tag: T,
    node: Box<Node>,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let folder = pedelec::schema_for::<Folder>().to_json();
    assert_eq!(folder["properties"]["files"]["items"]["$ref"], "#/$defs/File");
    assert_eq!(folder["$defs"]["File"]["properties"]["parent"]["$ref"], "#/$defs/Folder");
    root::<Folder>();
    let node = pedelec::schema_for::<Node>().to_json();
    let defs: Vec<&String> = node["$defs"].as_object().unwrap().keys().collect();
    assert_eq!(defs, ["Node", "Group"]);
    assert_eq!(
        node["properties"]["tagged"]["properties"]["node"]["$ref"],
        "#/$defs/Node"
    );
}
