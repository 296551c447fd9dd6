#[automatically_derived]
#[allow(clippy::absolute_paths)]
impl<T> ::pedelec::__private::ToolOutput for Page<T>
where
    T: ::pedelec::__private::ToolOutput,
{
    const OUTPUT_SCHEMA: ::pedelec::__private::SchemaNode = ::pedelec::__private::SchemaNode::object(const {
            &[
                ::pedelec::__private::Property::new(
                    "title",
                    ::pedelec::__private::arg::max_length(
                        <String as ::pedelec::__private::ToolOutput>::OUTPUT_SCHEMA,
                        80,
                    ),
                    true,
                ),
                ::pedelec::__private::Property::new(
                    "lastEditor",
                    <Option<String> as ::pedelec::__private::ToolOutput>::OUTPUT_SCHEMA,
                    true,
                ),
                ::pedelec::__private::Property::new(
                    "tags",
                    <Vec<T> as ::pedelec::__private::ToolOutput>::OUTPUT_SCHEMA,
                    false,
                ),
            ]
        })
        .with_description("A page.")
        .closed();
}
