::core::compile_error! {
    "`#[serde(flatten)]` cannot be expressed in a tool-args schema: the properties of field `rest` would have to be merged into this object at compile time; list those fields here instead, or remove `flatten` to nest them under \"rest\""
}
::core::compile_error! {
    "`min_length` applies to strings, but `u32` is an integer; bound a number with `minimum` and `maximum`"
}
#[automatically_derived]
impl<T> ::pedelec::__private::ToolArgs for Broken<T> {
    const SCHEMA: ::pedelec::__private::SchemaNode = ::pedelec::__private::SchemaNode::object(
            &[],
        )
        .closed();
}
#[automatically_derived]
impl<T> ::pedelec::__private::ToolArgsRoot for Broken<T> {}
