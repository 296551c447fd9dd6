const _: () = {
    #[allow(clippy::absolute_paths)]
    static BODY: ::pedelec::__private::SchemaNode = ::pedelec::__private::SchemaNode::one_of(const {
        &[
            <u64 as ::pedelec::__private::ToolArgs>::SCHEMA,
            ::pedelec::__private::SchemaNode::object(const {
                    &[
                        ::pedelec::__private::Property::new(
                            "name",
                            <String as ::pedelec::__private::ToolArgs>::SCHEMA,
                            !<String as ::pedelec::__private::ToolArgs>::OPTIONAL,
                        ),
                    ]
                })
                .closed(),
        ]
    });
    #[automatically_derived]
    impl ::pedelec::__private::ToolArgs for Target {
        const SCHEMA: ::pedelec::__private::SchemaNode = ::pedelec::__private::SchemaNode::named(
            "Target",
            &BODY,
        );
    }
};
