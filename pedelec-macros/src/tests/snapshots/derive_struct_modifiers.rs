#[automatically_derived]
#[allow(clippy::absolute_paths)]
impl ::pedelec::__private::ToolArgs for Search {
    const SCHEMA: ::pedelec::__private::SchemaNode = ::pedelec::__private::named!(
        "Search", ::pedelec::__private::SchemaNode::object(const { &
        [::pedelec::__private::Property::new("query",
        ::pedelec::__private::arg::default(::pedelec::__private::arg::pattern(::pedelec::__private::arg::max_length(::pedelec::__private::arg::min_length(<
        String as ::pedelec::__private::ToolArgs > ::SCHEMA, 1), 200), "\\S"),
        ::pedelec::__private::Literal::str("rust")), false),
        ::pedelec::__private::Property::new("weight",
        ::pedelec::__private::arg::multiple_of(::pedelec::__private::arg::exclusive_minimum(<
        f64 as ::pedelec::__private::ToolArgs > ::SCHEMA,
        ::pedelec::__private::Num::Int(0)), ::pedelec::__private::Num::Float(0.5)),
        false), ::pedelec::__private::Property::new("tags",
        ::pedelec::__private::arg::unique_items(::pedelec::__private::arg::max_items(::pedelec::__private::arg::min_items(<
        Vec < String > as ::pedelec::__private::ToolArgs > ::SCHEMA, 1), 5)), false),
        ::pedelec::__private::Property::new("since", ::pedelec::__private::arg::format(<
        Option < String > as ::pedelec::__private::ToolArgs > ::SCHEMA
        .with_description("Not before."), "date-time"), false),
        ::pedelec::__private::Property::new("type", < Kind as
        ::pedelec::__private::ToolArgs > ::SCHEMA, false),
        ::pedelec::__private::Property::new("extra", crate ::LOOSE, false)] }).closed()
    );
}
#[automatically_derived]
impl ::pedelec::__private::ToolArgsRoot for Search {}
