use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Folder {
    files: Vec<File>,
}

#[derive(ToolArgs)]
struct File {
    parent: Option<Box<Folder>>,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Folder>();
    root::<Folder>();
}
