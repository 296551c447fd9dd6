#[automatically_derived]
#[allow(clippy::absolute_paths)]
impl ::pedelec::__private::ToolArgs for Name {
    const SCHEMA: ::pedelec::__private::SchemaNode = ::pedelec::__private::named!(
        "Name", ::pedelec::__private::arg::min_length(< String as
        ::pedelec::__private::ToolArgs > ::SCHEMA
        .with_description("A name, as people write it."), 1)
    );
}
#[automatically_derived]
impl ::pedelec::__private::ToolArgsRoot for Name
where
    for<'__pedelec> String: ::pedelec::__private::ToolArgsRoot,
{}
