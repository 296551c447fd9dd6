use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Paging {
    page: u32,
}

#[derive(ToolArgs)]
struct Search {
    query: String,
    #[serde(flatten)]
    paging: Paging,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Search>();
    root::<Search>();
}
