#[automatically_derived]
#[allow(clippy::absolute_paths)]
impl ::pedelec::__private::ToolArgs for Filter {
    const SCHEMA: ::pedelec::__private::SchemaNode = ::pedelec::__private::named!(
        "Filter", ::pedelec::__private::SchemaNode::object(const { &
        [::pedelec::__private::Property::new("field", < Option < String > as
        ::pedelec::__private::ToolArgs > ::SCHEMA, ! < Option < String > as
        ::pedelec::__private::ToolArgs > ::OPTIONAL),
        ::pedelec::__private::Property::new("and", < Option < Vec < Filter > > as
        ::pedelec::__private::ToolArgs > ::SCHEMA, ! < Option < Vec < Filter > > as
        ::pedelec::__private::ToolArgs > ::OPTIONAL),
        ::pedelec::__private::Property::new("not", < Option < Box < Filter > > as
        ::pedelec::__private::ToolArgs > ::SCHEMA, ! < Option < Box < Filter > > as
        ::pedelec::__private::ToolArgs > ::OPTIONAL)] })
        .with_description("A filter over records.").closed()
    );
}
#[automatically_derived]
impl ::pedelec::__private::ToolArgsRoot for Filter {}
