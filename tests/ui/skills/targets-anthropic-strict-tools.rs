use pedelec::{skills, tool};

macro_rules! tools {
    ($($attr:meta: $name:ident)*) => {$(
        /// A tool (deferred ones count too: Anthropic's grammar covers every tool sent).
        #[$attr]
        fn $name() -> bool {
            true
        }
    )*};
}

tools!(tool: t01 tool: t02 tool: t03 tool: t04 tool: t05 tool: t06 tool: t07 tool: t08 tool: t09 tool: t10 tool(defer): t11 tool(defer): t12 tool(defer): t13 tool(defer): t14 tool(defer): t15 tool(defer): t16 tool(defer): t17 tool(defer): t18 tool(defer): t19 tool(defer): t20 tool(defer): t21);

skills![
    guidance = "Many tools.",
    tools = [
        t01, t02, t03, t04, t05, t06, t07, t08, t09, t10,
        t11, t12, t13, t14, t15, t16, t17, t18, t19, t20, t21,
    ],
    targets = [openai, anthropic],
];

fn main() {}
