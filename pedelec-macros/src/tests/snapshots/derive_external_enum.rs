#[automatically_derived]
#[allow(clippy::absolute_paths)]
impl ::pedelec::__private::ToolArgs for Action {
    const SCHEMA: ::pedelec::__private::SchemaNode = ::pedelec::__private::named!(
        "Action", ::pedelec::__private::SchemaNode::one_of(const { &
        [::pedelec::__private::SchemaNode::string().with_enum_values(const { &
        [::pedelec::__private::Literal::str("Stop")] }),
        ::pedelec::__private::SchemaNode::object(const { &
        [::pedelec::__private::Property::new("Move",
        ::pedelec::__private::SchemaNode::object(const { &
        [::pedelec::__private::Property::new("x", < i32 as ::pedelec::__private::ToolArgs
        > ::SCHEMA, ! < i32 as ::pedelec::__private::ToolArgs > ::OPTIONAL),
        ::pedelec::__private::Property::new("y", < i32 as ::pedelec::__private::ToolArgs
        > ::SCHEMA, ! < i32 as ::pedelec::__private::ToolArgs > ::OPTIONAL)] }).closed(),
        true)] }).closed(), ::pedelec::__private::SchemaNode::object(const { &
        [::pedelec::__private::Property::new("Say", < String as
        ::pedelec::__private::ToolArgs > ::SCHEMA, true)] }).closed()
        .with_description("Say something.")] })
    );
}
