//! The expansions of `#[tool]` and `skills![]` compile in a module that shadows the
//! prelude (serde's `test_gen.rs` trick, plus `mod core {}` and shadowed primitive types),
//! with the lints a demanding crate denies. Compiling this file is the test; clippy
//! (pedantic, through the workspace lints and `cargo clippy --all-targets`) checks it too.

#![deny(warnings, missing_docs, unused_qualifications, unused_results)]
#![deny(clippy::pedantic)]

#[macro_use]
mod shadows;

/// Tools declared where nothing from the prelude can be trusted.
pub mod shadowed {
    #![allow(non_camel_case_types)]

    shadow!(struct Result, Option, Some, None, Ok, Err, Vec, Box, String, Send, Sync, Future, Clone, Default, u64, u32, TaskSupport, str);
    shadow!(mod core, pedelec);
    /// A type named like a generated alias.
    pub type __pedelec_tool_0 = ();

    // serde's derive does not survive shadowed primitive types (`u64`, `str`): declare
    // the arguments outside.
    pub use super::Args;
    use ::pedelec::{ToolCallContext, ToolError, skills, tool};

    /// Doubles `n`.
    ///
    /// Second paragraph.
    ///
    /// # Errors
    /// Never.
    #[tool(timeout_ms = 1_000)]
    pub async fn double(
        args: Args,
        ctx: ToolCallContext,
    ) -> ::core::result::Result<::core::primitive::i64, ToolError> {
        let _ = ctx;
        ::core::result::Result::Ok(args.n * 2)
    }

    /// Echoes `n`.
    #[must_use]
    #[tool(
        name = "echo.n",
        scopes = ["echo:read"],
        max_concurrency = 2,
        icon = "https://example.com/echo.svg",
        task = required,
        example = r#"{"n": 1}"#,
    )]
    pub fn echo(args: Args) -> ::core::primitive::i64 {
        args.n
    }

    /// Pings.
    #[tool]
    pub fn ping() {}

    /// Described by a constant.
    pub const DESCRIPTION: &::core::primitive::str = "Reads the context.";

    #[tool(description = DESCRIPTION)]
    pub(crate) async fn context(ctx: ToolCallContext) -> ::std::io::Result<::std::string::String> {
        ::core::result::Result::Ok(::std::string::ToString::to_string(ctx.call_id()))
    }

    /// The guidance.
    pub const GUIDANCE: &::core::primitive::str = "Use them.";

    skills![
        /// The shadowed tools.
        pub enum ShadowedTool,
        guidance = GUIDANCE,
        tools = [double, echo as Echo, ping, context,],
    ];

    /// A nested module.
    pub mod inner {
        use ::pedelec::tool;

        /// Pongs.
        #[tool]
        pub async fn pong() {}
    }

    skills![guidance = "One tool.", tools = [inner::pong]];
}

/// Arguments.
#[derive(::serde::Deserialize, ::pedelec::ToolArgs)]
pub struct Args {
    /// A number.
    pub n: i64,
}

#[test]
fn the_shadowed_expansions_work() {
    use pedelec::skills::SkillSet;
    use shadowed::{ShadowedTool, ToolName};
    assert_eq!(ShadowedTool::ALL.len(), 4);
    assert_eq!(ShadowedTool::Echo.as_str(), "echo.n");
    let skills = ShadowedTool::skills();
    let echo = &skills.tools()[1];
    assert_eq!(echo.scopes(), ["echo:read"]);
    assert_eq!(echo.max_concurrency(), ::core::option::Option::Some(2));
    assert_eq!(echo.task_support(), pedelec::tool::TaskSupport::Required);
    assert_eq!(
        "context".parse::<ShadowedTool>().ok(),
        Some(ShadowedTool::Context)
    );
    assert_eq!(ToolName::Pong.to_string(), "pong");
    assert_eq!(<ToolName as SkillSet>::skills().tools().len(), 1);
    assert_eq!(
        ShadowedTool::manifest().tools[3].description,
        "Reads the context."
    );
}

/// A deprecated tool: implementing it raises no warning (naming it would).
pub mod deprecated {
    use pedelec::tool;

    /// Old.
    #[must_use]
    #[deprecated = "use `double`"]
    #[tool(description = DESCRIPTION)]
    pub fn old() -> bool {
        true
    }

    /// Its description.
    pub const DESCRIPTION: &str = "The old tool.";
}
