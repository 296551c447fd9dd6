/// The browser's tools.
#[derive(
    ::core::clone::Clone,
    ::core::marker::Copy,
    ::core::cmp::PartialEq,
    ::core::cmp::Eq,
    ::core::hash::Hash,
    ::core::cmp::PartialOrd,
    ::core::cmp::Ord,
    ::core::fmt::Debug,
)]
pub(crate) enum BrowserTool {
    /// The `nav::open_url` tool.
    Open,
    /// The `read_page` tool.
    ReadPage,
}
const _: () = {
    #[allow(non_camel_case_types)]
    type __pedelec_tool_0 = nav::open_url;
    #[allow(non_camel_case_types)]
    type __pedelec_tool_1 = read_page;
    #[automatically_derived]
    impl ::pedelec::__private::InSkillSet<BrowserTool> for __pedelec_tool_0 {}
    #[automatically_derived]
    impl ::pedelec::__private::InSkillSet<BrowserTool> for __pedelec_tool_1 {}
    #[automatically_derived]
    impl BrowserTool {
        /// Every tool of the skill set, in declaration order.
        pub const ALL: [Self; 2] = [Self::Open, Self::ReadPage];
        /// The namespace of the set's tools (`skills![namespace = "…"]`), if any.
        pub const NAMESPACE: ::core::option::Option<&'static ::core::primitive::str> = ::core::option::Option::None;
        /// The tool's wire name (its `#[tool]` name, after the set's namespace).
        #[must_use]
        pub const fn as_str(self) -> &'static ::core::primitive::str {
            match self {
                Self::Open => ::pedelec::__private::tool_name::<Self, __pedelec_tool_0>(),
                Self::ReadPage => {
                    ::pedelec::__private::tool_name::<Self, __pedelec_tool_1>()
                }
            }
        }
        /// The skill set: the guidance and every tool's definition, with its
        /// function as the inline handler. Start a session with it.
        #[must_use]
        pub fn skills() -> ::pedelec::__private::SkillsInput<Self> {
            ::pedelec::__private::SkillsInput::typed(
                    GUIDANCE,
                    ::pedelec::__private::Vec::from([
                        ::pedelec::__private::tool_definition::<
                            Self,
                            __pedelec_tool_0,
                        >(),
                        ::pedelec::__private::tool_definition::<Self, __pedelec_tool_1>(),
                    ]),
                )
                .with_package(
                    ::core::option_env!("CARGO_PKG_NAME"),
                    ::core::option_env!("CARGO_PKG_VERSION"),
                )
        }
        /// The serializable manifest of the skill set (what is sent to Core).
        #[must_use]
        pub fn manifest() -> ::pedelec::__private::SerializableSkillsManifest {
            Self::skills().manifest()
        }
        /// The skill set exported for a model provider, typed by this enum (so
        /// `tool_choice` takes its variants).
        ///
        /// # Errors
        /// As `SkillsInput::export`: what the provider cannot take.
        pub fn export(
            target: ::pedelec::__private::Target,
            options: ::pedelec::__private::ExportOptions,
        ) -> ::core::result::Result<
            ::pedelec::__private::Export<Self>,
            ::pedelec::__private::ExportError,
        > {
            Self::skills().export(target, options)
        }
        /// The skill set's search index (built on first use):
        /// `INDEX.search("query", 5)`.
        pub const INDEX: ::pedelec::__private::SkillsIndex<Self> = ::pedelec::__private::SkillsIndex::new();
    }
    #[automatically_derived]
    impl ::pedelec::__private::SkillSet for BrowserTool {
        const ALL: &'static [Self] = &Self::ALL;
        const NAMESPACE: ::core::option::Option<&'static ::core::primitive::str> = Self::NAMESPACE;
        fn as_str(self) -> &'static ::core::primitive::str {
            Self::as_str(self)
        }
        fn skills() -> ::pedelec::__private::SkillsInput<Self> {
            Self::skills()
        }
    }
    #[automatically_derived]
    impl ::core::fmt::Display for BrowserTool {
        fn fmt(
            &self,
            __formatter: &mut ::core::fmt::Formatter<'_>,
        ) -> ::core::fmt::Result {
            __formatter.pad(Self::as_str(*self))
        }
    }
    #[automatically_derived]
    impl ::core::str::FromStr for BrowserTool {
        type Err = ::pedelec::__private::UnknownToolName;
        fn from_str(
            __name: &::core::primitive::str,
        ) -> ::pedelec::__private::Result<Self, Self::Err> {
            ::pedelec::__private::parse_tool_name(__name)
        }
    }
    #[automatically_derived]
    impl ::pedelec::__private::serde::Serialize for BrowserTool {
        fn serialize<__S: ::pedelec::__private::serde::Serializer>(
            &self,
            __serializer: __S,
        ) -> ::pedelec::__private::Result<__S::Ok, __S::Error> {
            ::pedelec::__private::serialize_tool_name(*self, __serializer)
        }
    }
    #[automatically_derived]
    impl<'de> ::pedelec::__private::serde::Deserialize<'de> for BrowserTool {
        fn deserialize<__D: ::pedelec::__private::serde::Deserializer<'de>>(
            __deserializer: __D,
        ) -> ::pedelec::__private::Result<Self, __D::Error> {
            ::pedelec::__private::deserialize_tool_name(__deserializer)
        }
    }
    const __PEDELEC_TOOLS: &[(&::core::primitive::str, &::core::primitive::str); 2] = &[
        (
            ::pedelec::__private::tool_name::<BrowserTool, __pedelec_tool_0>(),
            "nav::open_url",
        ),
        (::pedelec::__private::tool_name::<BrowserTool, __pedelec_tool_1>(), "read_page"),
    ];
    const __PEDELEC_EARLIER: &[::core::primitive::usize; 2] = &::pedelec::__private::earlier_tool_names(
        __PEDELEC_TOOLS,
    );
    const _: () = ::pedelec::__private::check_unique_tool_name(
        __PEDELEC_TOOLS,
        __PEDELEC_EARLIER,
        1,
    );
};
