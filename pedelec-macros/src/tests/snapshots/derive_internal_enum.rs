#[automatically_derived]
#[allow(clippy::absolute_paths)]
impl ::pedelec::__private::ToolArgs for Shape {
    const SCHEMA: ::pedelec::__private::SchemaNode = ::pedelec::__private::named!(
        "Shape", ::pedelec::__private::SchemaNode::one_of(const { &
        [::pedelec::__private::SchemaNode::object(const { &
        [::pedelec::__private::Property::new("kind",
        ::pedelec::__private::SchemaNode::string().with_enum_values(const { &
        [::pedelec::__private::Literal::str("circle")] }), true),
        ::pedelec::__private::Property::new("radius", < f64 as
        ::pedelec::__private::ToolArgs > ::SCHEMA, ! < f64 as
        ::pedelec::__private::ToolArgs > ::OPTIONAL)] }).closed(),
        ::pedelec::__private::SchemaNode::object(const { &
        [::pedelec::__private::Property::new("kind",
        ::pedelec::__private::SchemaNode::string().with_enum_values(const { &
        [::pedelec::__private::Literal::str("empty")] }), true)] }).closed()] })
    );
}
