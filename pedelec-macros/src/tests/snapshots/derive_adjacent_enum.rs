#[automatically_derived]
#[allow(clippy::absolute_paths)]
impl ::pedelec::__private::ToolArgs for Message {
    const SCHEMA: ::pedelec::__private::SchemaNode = ::pedelec::__private::named!(
        "Message", ::pedelec::__private::SchemaNode::one_of(const { &
        [::pedelec::__private::SchemaNode::object(const { &
        [::pedelec::__private::Property::new("t",
        ::pedelec::__private::SchemaNode::string().with_enum_values(const { &
        [::pedelec::__private::Literal::str("Text")] }), true),
        ::pedelec::__private::Property::new("c", < String as
        ::pedelec::__private::ToolArgs > ::SCHEMA, ! < String as
        ::pedelec::__private::ToolArgs > ::OPTIONAL)] }).closed(),
        ::pedelec::__private::SchemaNode::object(const { &
        [::pedelec::__private::Property::new("t",
        ::pedelec::__private::SchemaNode::string().with_enum_values(const { &
        [::pedelec::__private::Literal::str("Ping")] }), true),
        ::pedelec::__private::Property::new("c",
        ::pedelec::__private::SchemaNode::object(const { &
        [::pedelec::__private::Property::new("seq", < u32 as
        ::pedelec::__private::ToolArgs > ::SCHEMA, ! < u32 as
        ::pedelec::__private::ToolArgs > ::OPTIONAL)] }).closed(), true)] }).closed(),
        ::pedelec::__private::SchemaNode::object(const { &
        [::pedelec::__private::Property::new("t",
        ::pedelec::__private::SchemaNode::string().with_enum_values(const { &
        [::pedelec::__private::Literal::str("Quit")] }), true)] }).closed()] })
    );
}
