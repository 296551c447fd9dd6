use pedelec::{skills, tool};

macro_rules! tools {
    ($($name:ident)*) => {$(
        /// A tool.
        #[tool]
        fn $name() -> bool {
            true
        }
    )*};
}

tools!(t01 t02 t03 t04 t05 t06 t07 t08 t09 t10 t11 t12 t13 t14 t15 t16 t17 t18 t19 t20 t21);

skills![
    guidance = "Many tools.",
    tools = [
        t01, t02, t03, t04, t05, t06, t07, t08, t09, t10,
        t11, t12, t13, t14, t15, t16, t17, t18, t19, t20, t21,
    ],
    targets = [openai, anthropic],
];

fn main() {}
