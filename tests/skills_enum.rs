//! `skills![]` at run time: the generated enum (variants, `ALL`, `as_str`, `Display`,
//! `FromStr`, serde), the skill set and its manifest, membership, custom enum names and
//! `as` renames.

use std::collections::BTreeSet;
use std::str::FromStr;

use pedelec::skills::{InSkillSet, SkillSet};
use pedelec::{ToolCallContext, ToolError, skills, tool};
use serde_json::json;

/// Read the current page.
#[tool]
async fn get_current_page(ctx: ToolCallContext) -> Result<String, ToolError> {
    Ok(format!("page for {}", ctx.call_id()))
}

/// Update the counter.
#[tool(name = "update_counter", timeout_ms = 5_000)]
fn update() -> i64 {
    1
}

mod nav {
    use pedelec::tool;

    /// Open a URL.
    #[tool(name = "nav.open-url")]
    pub fn open_url() -> bool {
        true
    }

    /// Go back.
    #[tool]
    pub fn back() -> bool {
        true
    }
}

skills![
    guidance = "Read current state before making changes.",
    tools = [get_current_page, update],
];

const BROWSER_GUIDANCE: &str = "Open pages, then read them.";

mod browser {
    use super::{BROWSER_GUIDANCE, get_current_page, nav};
    use pedelec::skills;

    skills![
        /// The browser's tools.
        pub(crate) enum BrowserTool,
        tools = [nav::open_url as Open, nav::back, get_current_page,],
        guidance = BROWSER_GUIDANCE,
    ];
}

use browser::BrowserTool;

#[test]
fn variants_follow_the_functions_and_the_renames() {
    assert_eq!(ToolName::ALL, [ToolName::GetCurrentPage, ToolName::Update]);
    assert_eq!(
        BrowserTool::ALL,
        [
            BrowserTool::Open,
            BrowserTool::Back,
            BrowserTool::GetCurrentPage
        ]
    );
    assert_eq!(<ToolName as SkillSet>::ALL, &ToolName::ALL);
}

#[test]
fn wire_names_are_the_tool_names() {
    const NAME: &str = ToolName::Update.as_str();
    assert_eq!(NAME, "update_counter");
    assert_eq!(ToolName::GetCurrentPage.as_str(), "get_current_page");
    assert_eq!(BrowserTool::Open.as_str(), "nav.open-url");
    assert_eq!(BrowserTool::Open.to_string(), "nav.open-url");
    assert_eq!(format!("{}", ToolName::Update), "update_counter");
    assert_eq!(format!("{:?}", ToolName::Update), "Update");
    // Formatted like a string: width and alignment apply.
    assert_eq!(format!("[{:>16}]", ToolName::Update), "[  update_counter]");
    assert_eq!(format!("[{:<6.3}]", ToolName::Update), "[upd   ]");
}

#[test]
fn names_parse_back_and_unknown_names_are_explained() {
    for tool in BrowserTool::ALL {
        assert_eq!(tool.as_str().parse::<BrowserTool>(), Ok(tool));
    }
    let error = ToolName::from_str("update").unwrap_err();
    assert_eq!(error.name(), "update");
    assert_eq!(error.valid(), ["get_current_page", "update_counter"]);
    assert_eq!(
        error.to_string(),
        "unknown tool name \"update\"; expected one of `get_current_page` or `update_counter`"
    );
    let error = BrowserTool::from_str("Open").unwrap_err();
    assert_eq!(
        error.to_string(),
        "unknown tool name \"Open\"; expected one of `nav.open-url`, `back` or `get_current_page`"
    );
}

#[test]
fn serde_uses_the_wire_name() {
    assert_eq!(
        serde_json::to_value(ToolName::Update).unwrap(),
        json!("update_counter")
    );
    let back: BrowserTool = serde_json::from_value(json!("nav.open-url")).unwrap();
    assert_eq!(back, BrowserTool::Open);
    let list: Vec<ToolName> =
        serde_json::from_str(r#"["update_counter","get_current_page"]"#).unwrap();
    assert_eq!(list, [ToolName::Update, ToolName::GetCurrentPage]);
    let error = serde_json::from_value::<ToolName>(json!("nope")).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("unknown tool name \"nope\"; expected one of"),
        "{error}"
    );
    let error = serde_json::from_value::<ToolName>(json!(3)).unwrap_err();
    assert!(
        error.to_string().contains("expected a tool name"),
        "{error}"
    );
}

#[test]
fn the_enum_is_an_ordinary_value_type() {
    let set: BTreeSet<ToolName> = [ToolName::Update, ToolName::GetCurrentPage, ToolName::Update]
        .into_iter()
        .collect();
    assert_eq!(
        set.into_iter().collect::<Vec<_>>(),
        [ToolName::GetCurrentPage, ToolName::Update]
    );
    assert!(ToolName::GetCurrentPage < ToolName::Update);
}

#[test]
fn skills_hold_the_guidance_and_every_definition_in_order() {
    let skills = ToolName::skills();
    assert_eq!(
        skills.guidance(),
        "Read current state before making changes."
    );
    let names: Vec<_> = skills
        .tools()
        .iter()
        .map(pedelec::ToolDefinition::name)
        .collect();
    assert_eq!(names, ["get_current_page", "update_counter"]);
    assert!(skills.tools().iter().all(|t| t.handler().is_some()));
    assert_eq!(BrowserTool::skills().guidance(), BROWSER_GUIDANCE);
    assert_eq!(
        <BrowserTool as SkillSet>::skills().tools().len(),
        BrowserTool::ALL.len()
    );
}

#[test]
fn the_manifest_is_the_wire_payload() {
    assert_eq!(
        serde_json::to_value(ToolName::manifest()).unwrap(),
        json!({
            "guidance": "Read current state before making changes.",
            "tools": [
                {
                    "name": "get_current_page",
                    "description": "Read the current page.",
                    "argsSchema": {"type": "object", "properties": {}, "additionalProperties": false}
                },
                {
                    "name": "update_counter",
                    "description": "Update the counter.",
                    "argsSchema": {"type": "object", "properties": {}, "additionalProperties": false},
                    "timeoutMs": 5000
                }
            ]
        })
    );
    assert_eq!(ToolName::manifest(), ToolName::skills().manifest());
}

fn member<S, T: InSkillSet<S>>() -> &'static str {
    T::NAME
}

#[test]
fn membership_is_recorded_per_set() {
    assert_eq!(member::<ToolName, update>(), "update_counter");
    assert_eq!(member::<BrowserTool, nav::open_url>(), "nav.open-url");
    assert_eq!(
        member::<BrowserTool, get_current_page>(),
        "get_current_page"
    );
    assert_eq!(member::<ToolName, get_current_page>(), "get_current_page");
}

#[tokio::test]
async fn inline_handlers_are_reachable_from_the_skill_set() {
    let skills = ToolName::skills();
    let def = &skills.tools()[0];
    let handler = def.handler().unwrap();
    let value = handler
        .call(json!({}), ToolCallContext::detached(def.name()))
        .await
        .unwrap();
    assert_eq!(value, json!("page for detached"));
}

#[test]
fn the_set_knows_the_crate_that_declared_it() {
    // What an MCP server says it is by default (`serverInfo`): Cargo's name and version of
    // the crate whose `skills![]` declared the set; a set read at run time has none.
    let package = Some(("pedelec", env!("CARGO_PKG_VERSION")));
    assert_eq!(ToolName::skills().package(), package);
    assert_eq!(BrowserTool::skills().untyped().package(), package);
    let session = pedelec::create_session(ToolName::skills()).unwrap();
    assert_eq!(session.package(), package);
    assert_eq!(
        pedelec::SkillsInput::<String>::new("g", Vec::new()).package(),
        None
    );
}
