#[automatically_derived]
#[allow(clippy::absolute_paths)]
impl<'a, T: Clone, const N: usize> ::pedelec::__private::ToolArgs for Page<'a, T, N>
where
    T: Send,
    T: ::pedelec::__private::ToolArgs,
    T::Next: ::pedelec::__private::ToolArgs,
{
    const SCHEMA: ::pedelec::__private::SchemaNode = ::pedelec::__private::SchemaNode::object(const {
            &[
                ::pedelec::__private::Property::new(
                    "items",
                    <[T; N] as ::pedelec::__private::ToolArgs>::SCHEMA,
                    !<[T; N] as ::pedelec::__private::ToolArgs>::OPTIONAL,
                ),
                ::pedelec::__private::Property::new(
                    "cursor",
                    <Option<&'a str> as ::pedelec::__private::ToolArgs>::SCHEMA,
                    !<Option<&'a str> as ::pedelec::__private::ToolArgs>::OPTIONAL,
                ),
                ::pedelec::__private::Property::new(
                    "next",
                    <Option<T::Next> as ::pedelec::__private::ToolArgs>::SCHEMA,
                    !<Option<T::Next> as ::pedelec::__private::ToolArgs>::OPTIONAL,
                ),
            ]
        })
        .closed();
}
#[automatically_derived]
impl<'a, T: Clone, const N: usize> ::pedelec::__private::ToolArgsRoot for Page<'a, T, N>
where
    T: Send,
    T: ::pedelec::__private::ToolArgs,
    T::Next: ::pedelec::__private::ToolArgs,
{}
