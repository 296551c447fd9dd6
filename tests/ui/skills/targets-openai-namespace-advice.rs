// OpenAI's advice is a warning; denied here so the case pins it.
#![deny(deprecated)]

use pedelec::{skills, tool};

macro_rules! tools {
    ($($name:ident),*) => {$(
        /// One of many tools.
        #[tool]
        fn $name() -> bool {
            true
        }
    )*};
}

tools!(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10);

skills![
    namespace = "crowded",
    guidance = "Too many tools in one namespace.",
    tools = [a1, a2, a3, a4, a5, a6, a7, a8, a9, a10],
    targets = [openai],
];

fn main() {}
