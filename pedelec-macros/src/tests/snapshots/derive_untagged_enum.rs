#[automatically_derived]
#[allow(clippy::absolute_paths)]
impl ::pedelec::__private::ToolArgs for Target {
    const SCHEMA: ::pedelec::__private::SchemaNode = ::pedelec::__private::named!(
        "Target", ::pedelec::__private::SchemaNode::one_of(const { & [< u64 as
        ::pedelec::__private::ToolArgs > ::SCHEMA,
        ::pedelec::__private::SchemaNode::object(const { &
        [::pedelec::__private::Property::new("name", < String as
        ::pedelec::__private::ToolArgs > ::SCHEMA, ! < String as
        ::pedelec::__private::ToolArgs > ::OPTIONAL)] }).closed()] })
    );
}
