use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Args<T> {
    #[serde(default)]
    #[arg(default = 300)]
    value: T,
}

// A generic type's schema is evaluated for each instance where it is used: here by a
// `const` (`cargo check` evaluates it); a use inside a generic function is evaluated by
// `cargo build`.
const SCHEMA: &pedelec::schema::SchemaNode = &<Args<u8> as ToolArgs>::SCHEMA;

fn main() {
    let _ = SCHEMA;
    let _ = pedelec::schema_for::<Args<u16>>();
}
