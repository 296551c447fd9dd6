const _: () = {
    #[allow(clippy::absolute_paths)]
    static BODY: ::pedelec::__private::SchemaNode = ::pedelec::__private::SchemaNode::string()
        .with_enum_values(const {
            &[
                ::pedelec::__private::Literal::str("slow"),
                ::pedelec::__private::Literal::str("very_fast"),
            ]
        })
        .with_description("How fast to go.\n\n- `slow`: Careful.");
    #[automatically_derived]
    impl ::pedelec::__private::ToolArgs for Speed {
        const SCHEMA: ::pedelec::__private::SchemaNode = ::pedelec::__private::SchemaNode::named(
            "Speed",
            &BODY,
        );
    }
};
