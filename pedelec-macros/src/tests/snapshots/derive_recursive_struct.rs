#[automatically_derived]
#[allow(clippy::absolute_paths)]
impl ::pedelec::__private::ToolArgs for Filter {
    const SCHEMA: ::pedelec::__private::SchemaNode = ::pedelec::__private::recursive::<
        Self,
    >();
}
#[automatically_derived]
#[allow(clippy::absolute_paths)]
impl ::pedelec::__private::Recursive for Filter {
    const NAME: &'static ::core::primitive::str = "Filter";
    const BODY: ::pedelec::__private::SchemaNode = ::pedelec::__private::SchemaNode::object(const {
            &[
                ::pedelec::__private::Property::new(
                    "field",
                    <Option<String> as ::pedelec::__private::ToolArgs>::SCHEMA,
                    !<Option<String> as ::pedelec::__private::ToolArgs>::OPTIONAL,
                ),
                ::pedelec::__private::Property::new(
                    "and",
                    <Option<
                        Vec<::pedelec::__private::SelfRef<Self>>,
                    > as ::pedelec::__private::ToolArgs>::SCHEMA,
                    !<Option<
                        Vec<::pedelec::__private::SelfRef<Self>>,
                    > as ::pedelec::__private::ToolArgs>::OPTIONAL,
                ),
                ::pedelec::__private::Property::new(
                    "not",
                    <Option<
                        Box<::pedelec::__private::SelfRef<Self>>,
                    > as ::pedelec::__private::ToolArgs>::SCHEMA,
                    !<Option<
                        Box<::pedelec::__private::SelfRef<Self>>,
                    > as ::pedelec::__private::ToolArgs>::OPTIONAL,
                ),
            ]
        })
        .with_description("A filter over records.")
        .closed();
}
#[automatically_derived]
impl ::pedelec::__private::ToolArgsRoot for Filter {}
const _: () = ::core::mem::forget(<Filter as ::pedelec::__private::ToolArgs>::SCHEMA);
