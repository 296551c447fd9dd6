#[automatically_derived]
#[allow(clippy::absolute_paths)]
impl ::pedelec::__private::ToolArgs for Speed {
    const SCHEMA: ::pedelec::__private::SchemaNode = ::pedelec::__private::named!(
        "Speed", ::pedelec::__private::SchemaNode::string().with_enum_values(const { &
        [::pedelec::__private::Literal::str("slow"),
        ::pedelec::__private::Literal::str("very_fast")] })
        .with_description("How fast to go.\n\n- `slow`: Careful.")
    );
}
