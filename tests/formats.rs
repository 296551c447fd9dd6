//! A session checks the formats a schema declares (`docs/formats.md`): on every path (a
//! typed handler from a `Value` or from JSON text, a JSON handler), with an error that says
//! what to write; and a tool without `format` is untouched.

use pedelec::{ErrorCode, Session, ToolArgs, skills, tool};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};

#[derive(Deserialize, ToolArgs)]
struct InviteArgs {
    /// Who to invite.
    #[arg(format = "email")]
    to: String,
    /// When the meeting starts.
    #[arg(format = "date-time")]
    at: Option<String>,
}

/// Invite someone to a meeting.
#[tool]
async fn invite(args: InviteArgs) -> String {
    match args.at {
        Some(at) => format!("{} at {at}", args.to),
        None => args.to,
    }
}

skills![guidance = "Invite people.", tools = [invite],];

const BAD_EMAIL: &str = r#"/to: "bob@" is not a valid email address (RFC 5321 mailbox, e.g. "name@example.com"): the domain after "@" is missing"#;
const BAD_DATE_TIME: &str = r#"/at: "2024-05-17T09:30:00" is not a valid date-time (RFC 3339, e.g. "2024-05-17T09:30:00Z"): add a time zone offset: "Z" for UTC, or one such as "+02:00""#;

fn session() -> Session<ToolName> {
    Session::builder(ToolName::skills()).create().unwrap()
}

#[tokio::test]
async fn typed_handlers_get_only_well_formed_values() {
    let session = session();
    let ok = session
        .call(
            "invite",
            json!({"to": "ann@example.com", "at": "2024-05-17T09:30:00+02:00"}),
        )
        .await;
    assert_eq!(
        ok.value(),
        Some(&json!("ann@example.com at 2024-05-17T09:30:00+02:00")),
        "{ok:?}"
    );

    let bad = session
        .call("invite", json!({"to": "bob@", "at": "2024-05-17T09:30:00"}))
        .await;
    let error = bad.error().expect("an error");
    assert_eq!(error.code(), ErrorCode::ToolArgsInvalid);
    assert_eq!(
        error.message(),
        format!("invalid arguments for `invite`: {BAD_EMAIL}; {BAD_DATE_TIME}")
    );
    let details = error.details().unwrap();
    assert_eq!(details["errors"][0]["keyword"], "format");
    assert_eq!(details["errors"][1]["pointer"], "/at");

    // From JSON text (the fast path, then the full check for the errors).
    let text = RawValue::from_string(r#"{"to":"bob@"}"#.to_owned()).unwrap();
    let out: Value = serde_json::from_str(&session.call_raw("invite", &text).await).unwrap();
    assert_eq!(out["error"]["code"], "TOOL_ARGS_INVALID", "{out}");
    assert_eq!(
        out["error"]["message"],
        format!("invalid arguments for `invite`: {BAD_EMAIL}")
    );
    let text = RawValue::from_string(r#"{"to":"ann@example.com"}"#.to_owned()).unwrap();
    let out: Value = serde_json::from_str(&session.call_raw("invite", &text).await).unwrap();
    assert_eq!(out["value"], "ann@example.com", "{out}");
}

#[tokio::test]
async fn json_handlers_get_the_same_check() {
    let session = session();
    session.on_tool_name(ToolName::Invite, |args: Value, _ctx| async move {
        Ok(args["to"].clone())
    });
    let bad = session.call("invite", json!({"to": "bob@"})).await;
    assert_eq!(
        bad.error().map(|e| e.message().to_owned()),
        Some(format!("invalid arguments for `invite`: {BAD_EMAIL}"))
    );
    let ok = session
        .call("invite", json!({"to": "ann@example.com"}))
        .await;
    assert_eq!(ok.value(), Some(&json!("ann@example.com")));
}
