use pedelec::ToolArgs;

// A cycle through generic types only: they have no `static` to break it at.
#[derive(ToolArgs)]
struct Folder<T> {
    files: Vec<File<T>>,
}

#[derive(ToolArgs)]
struct File<T> {
    tag: T,
    parent: Option<Box<Folder<T>>>,
}

const _: () = ::core::mem::forget(<Folder<u8> as ToolArgs>::SCHEMA);

fn main() {}
