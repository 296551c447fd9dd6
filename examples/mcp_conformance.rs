//! The fixture server of the official MCP conformance suite: the tools its server scenarios
//! call, by the names and with the behaviour the suite's source gives them, served over
//! streamable HTTP at `http://127.0.0.1:8080/mcp` (or the address given; port 0 picks a free
//! one, and the first line printed names it). `--stateful` keeps `Mcp-Session-Id` sessions
//! for clients of the revisions before 2026-07-28 (whose requests are served statelessly
//! otherwise); `cargo xtask conformance` builds it, starts it and runs the suite.
//!
//! Every tool is an ordinary pedelec tool: content blocks are `Content`, log messages
//! `ctx.log`, questions to the user `ctx.elicit`, to the client's model `ctx.sample`, the
//! client's roots `ctx.roots`; the tasks extension's tools declare `task = optional` or
//! `task = required`; titled choices are variants with `#[arg(title)]`.
//! `json_schema_2020_12_tool` is defined at run time: its schema (`$schema`, `$anchor`,
//! `allOf`/`anyOf`, `if`/`then`/`else`) is beyond the wire subset, so it is a raw schema
//! (`ToolArgsSchema::from_json_lenient`, feature `raw-schemas`), listed as written and
//! validated by a 2020-12 validator.

use std::time::Duration;

use pedelec::context::{Elicited, InputKind, LogLevel, SampleRequest};
use pedelec::output::Content;
use pedelec::{ToolArgs, ToolCallContext, ToolError, skills, tool};
use serde::{Deserialize, Serialize};

/// A 1×1 red PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0xDA, 0x63, 0xFC, 0xCF, 0xC0, 0xF0,
    0x1F, 0x00, 0x05, 0x05, 0x02, 0x00, 0x5F, 0xC8, 0xF1, 0xD2, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
];

/// A minimal WAV file.
const WAV: &[u8] = b"RIFF&\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00@\x1f\x00\x00\x80>\x00\x00\x02\x00\x10\x00data\x02\x00\x00\x00\x00\x00";

/// Returns a simple text.
#[tool]
async fn test_simple_text() -> Result<String, ToolError> {
    Ok("This is a simple text response for testing.".into())
}

/// Returns an image.
#[tool]
async fn test_image_content() -> Result<Content, ToolError> {
    Ok(Content::image(PNG, "image/png"))
}

/// Returns audio.
#[tool]
async fn test_audio_content() -> Result<Content, ToolError> {
    Ok(Content::audio(WAV, "audio/wav"))
}

/// Returns an embedded text resource.
#[tool]
async fn test_embedded_resource() -> Result<Content, ToolError> {
    Ok(Content::resource_text(
        "test://embedded-resource",
        "text/plain",
        "This is an embedded resource content.",
    ))
}

/// Returns text, an image and a resource.
#[tool]
async fn test_multiple_content_types() -> Result<Content, ToolError> {
    Ok(Content::text("Multiple content types test:")
        .and(Content::image(PNG, "image/png"))
        .and(Content::resource_text(
            "test://mixed-content-resource",
            "application/json",
            r#"{"test":"data","value":123}"#,
        )))
}

/// Logs three messages, 50 ms apart.
#[tool]
async fn test_tool_with_logging(ctx: ToolCallContext) -> Result<String, ToolError> {
    ctx.log(LogLevel::Info, "Tool execution started");
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LogLevel::Info, "Tool processing data");
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LogLevel::Info, "Tool execution completed");
    Ok("Tool with logging executed successfully".into())
}

/// Logs a message (which must not reach a 2026-07-28 client that set no log level).
#[tool]
async fn test_logging_tool(ctx: ToolCallContext) -> Result<String, ToolError> {
    ctx.log(LogLevel::Info, "A message for clients that asked for logs");
    Ok("Logging tool finished".into())
}

/// Always fails.
#[tool]
async fn test_error_handling() -> Result<(), ToolError> {
    Err(ToolError::new(
        "This tool intentionally returns an error for testing",
    ))
}

/// Reports progress 0/100, 50/100 and 100/100, 50 ms apart.
#[tool]
async fn test_tool_with_progress(ctx: ToolCallContext) -> Result<String, ToolError> {
    ctx.progress(0, Some(100), "started");
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.progress(50, Some(100), "halfway");
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.progress(100, Some(100), "done");
    Ok("Progress test completed".into())
}

/// Reports progress, then answers (its stream must hold notifications and the answer only).
#[tool]
async fn test_streaming_elicitation(ctx: ToolCallContext) -> Result<String, ToolError> {
    ctx.progress(50, Some(100), "streaming");
    tokio::time::sleep(Duration::from_millis(20)).await;
    Ok("Streaming complete".into())
}

/// Answers after 100 ms: the suite watches its SSE stream for a priming event and a
/// reconnection (`server-sse-polling`).
#[tool]
async fn test_reconnection() -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_millis(100)).await;
    Ok("Reconnection test completed".into())
}

#[derive(Deserialize, ToolArgs)]
struct PromptArgs {
    /// The prompt to send to the LLM.
    prompt: String,
}

/// Asks the client's model to complete the prompt.
#[tool]
async fn test_sampling(args: PromptArgs, ctx: ToolCallContext) -> Result<String, ToolError> {
    let answer = ctx
        .sample("completion", SampleRequest::new(args.prompt, 100))
        .await?;
    Ok(format!("LLM response: {}", answer.text))
}

/// Asks for sampling, which a client that did not declare it cannot give (`-32021`).
#[tool]
async fn test_missing_capability(ctx: ToolCallContext) -> Result<String, ToolError> {
    ctx.sample("check", SampleRequest::new("Say ok", 5)).await?;
    Ok("Success".into())
}

#[derive(Deserialize, ToolArgs)]
struct MessageArgs {
    /// The message to show the user.
    message: String,
}

#[derive(Debug, Deserialize, Serialize, ToolArgs)]
struct UserInfo {
    /// User's response.
    username: String,
    /// User's email address.
    email: String,
}

fn shown<T: Serialize>(answer: &Elicited<T>) -> String {
    let content = match answer {
        Elicited::Accepted(value) => serde_json::to_string(value).unwrap_or_default(),
        Elicited::Declined | Elicited::Cancelled => "{}".into(),
    };
    format!("action={}, content={content}", answer.action())
}

/// Asks the user for their name and email.
#[tool]
async fn test_elicitation(args: MessageArgs, ctx: ToolCallContext) -> Result<String, ToolError> {
    let answer = ctx.elicit::<UserInfo>("response", args.message).await?;
    Ok(format!("User response: {}", shown(&answer)))
}

#[derive(Debug, Deserialize, Serialize, ToolArgs)]
#[serde(rename_all = "lowercase")]
enum Status {
    Active,
    Inactive,
    Pending,
}

#[derive(Debug, Deserialize, Serialize, ToolArgs)]
struct Defaults {
    /// User name
    #[serde(default)]
    #[arg(default = "John Doe")]
    name: Option<String>,
    /// User age
    #[serde(default)]
    #[arg(default = 30)]
    age: Option<i64>,
    /// User score
    #[serde(default)]
    #[arg(default = 95.5)]
    score: Option<f64>,
    /// User status
    #[serde(default)]
    #[arg(default = "active")]
    status: Option<Status>,
    /// Verification status
    #[serde(default)]
    #[arg(default = true)]
    verified: Option<bool>,
}

/// Asks for a form whose fields have defaults (SEP-1034).
#[tool]
async fn test_elicitation_sep1034_defaults(ctx: ToolCallContext) -> Result<String, ToolError> {
    let answer = ctx
        .elicit::<Defaults>(
            "form",
            "Please review and update the form fields with defaults",
        )
        .await?;
    Ok(format!("Elicitation completed: {}", shown(&answer)))
}

/// A choice without titles: the form lists the values (`enum`).
#[derive(Debug, Deserialize, Serialize, ToolArgs)]
#[serde(rename_all = "lowercase")]
enum Untitled {
    Option1,
    Option2,
    Option3,
}

/// A choice with titles: a single choice is a `oneOf` of `const`/`title`, a multiple one
/// an `items.anyOf` of them.
#[derive(Debug, Deserialize, Serialize, ToolArgs)]
#[serde(rename_all = "lowercase")]
enum Titled {
    #[arg(title = "First Option")]
    Value1,
    #[arg(title = "Second Option")]
    Value2,
    #[arg(title = "Third Option")]
    Value3,
}

/// Listed with the legacy `enumNames` (`#[arg(enum_names)]` on the field).
#[derive(Debug, Deserialize, Serialize, ToolArgs)]
#[serde(rename_all = "lowercase")]
enum Legacy {
    #[arg(title = "Option One")]
    Opt1,
    #[arg(title = "Option Two")]
    Opt2,
    #[arg(title = "Option Three")]
    Opt3,
}

#[derive(Debug, Deserialize, Serialize, ToolArgs)]
#[serde(rename_all = "camelCase")]
struct Choices {
    untitled_single: Option<Untitled>,
    titled_single: Option<Titled>,
    #[arg(enum_names)]
    legacy_enum: Option<Legacy>,
    untitled_multi: Option<Vec<Untitled>>,
    titled_multi: Option<Vec<Titled>>,
}

/// Asks for a form with every kind of choice (SEP-1330).
#[tool]
async fn test_elicitation_sep1330_enums(ctx: ToolCallContext) -> Result<String, ToolError> {
    let answer = ctx
        .elicit::<Choices>("choices", "Please choose from the options")
        .await?;
    Ok(format!("Elicitation completed: {}", shown(&answer)))
}

#[derive(Debug, Deserialize, ToolArgs)]
struct Name {
    name: String,
}

#[derive(Debug, Deserialize, ToolArgs)]
struct Color {
    color: String,
}

#[derive(Debug, Deserialize, ToolArgs)]
struct Ok {
    ok: bool,
}

#[derive(Debug, Deserialize, ToolArgs)]
#[allow(
    dead_code,
    reason = "the suite checks which requests were answered, not the answers"
)]
struct Value {
    value: String,
}

fn greeting(answer: Elicited<Name>) -> String {
    match answer {
        Elicited::Accepted(Name { name }) => format!("Hello, {name}!"),
        Elicited::Declined => "The user declined to give a name.".into(),
        Elicited::Cancelled => "The user cancelled.".into(),
    }
}

/// Asks the user's name (an input-required round on 2026-07-28).
#[tool]
async fn test_input_required_result_elicitation(ctx: ToolCallContext) -> Result<String, ToolError> {
    let answer = ctx
        .elicit::<Name>("user_name", "What is your name?")
        .await?;
    Ok(greeting(answer))
}

/// Asks the client's model a question.
#[tool]
async fn test_input_required_result_sampling(ctx: ToolCallContext) -> Result<String, ToolError> {
    let answer = ctx
        .sample(
            "capital_question",
            SampleRequest::new("What is the capital of France?", 100),
        )
        .await?;
    Ok(answer.text)
}

/// Lists the client's roots.
#[tool]
async fn test_input_required_result_list_roots(ctx: ToolCallContext) -> Result<String, ToolError> {
    let roots = ctx.roots("client_roots").await?;
    let uris: Vec<&str> = roots.iter().map(|r| r.uri.as_str()).collect();
    Ok(format!("Roots: {}", uris.join(", ")))
}

/// Asks for a confirmation; the answer comes back with the signed request state.
#[tool]
async fn test_input_required_result_request_state(
    ctx: ToolCallContext,
) -> Result<String, ToolError> {
    let answer = ctx.elicit::<Ok>("confirm", "Please confirm").await?;
    let ok = matches!(answer, Elicited::Accepted(Ok { ok: true }));
    Ok(format!("state-ok: confirmed={ok}"))
}

/// Asks for three inputs at once: one round.
#[tool]
async fn test_input_required_result_multiple_inputs(
    ctx: ToolCallContext,
) -> Result<String, ToolError> {
    let (name, greeting_text, roots) = tokio::join!(
        ctx.elicit::<Name>("user_name", "What is your name?"),
        ctx.sample("greeting", SampleRequest::new("Generate a greeting", 50)),
        ctx.roots("client_roots"),
    );
    let name = greeting(name?);
    let text = greeting_text?.text;
    let roots = roots?.len();
    Ok(format!("{name} {text} ({roots} roots)"))
}

/// Asks twice, one question per round.
#[tool]
async fn test_input_required_result_multi_round(ctx: ToolCallContext) -> Result<String, ToolError> {
    let name = ctx
        .elicit::<Name>("step1", "Step 1: What is your name?")
        .await?;
    let color = ctx
        .elicit::<Color>("step2", "Step 2: What is your favorite color?")
        .await?;
    let name = name
        .accepted()
        .map_or_else(|| "stranger".into(), |n| n.name);
    let color = color
        .accepted()
        .map_or_else(|| "unknown".into(), |c| c.color);
    Ok(format!("Hello, {name}! Your favorite color is {color}."))
}

/// Asks once; a tampered request state is refused.
#[tool]
async fn test_input_required_result_tampered_state(
    ctx: ToolCallContext,
) -> Result<String, ToolError> {
    let answer = ctx.elicit::<Ok>("confirm", "Please confirm").await?;
    Ok(format!("state-ok: {}", answer.action()))
}

/// Asks only for what the client declared it can give.
#[tool]
async fn test_input_required_result_capabilities(
    ctx: ToolCallContext,
) -> Result<String, ToolError> {
    let elicit = ctx.client_supports(InputKind::Elicitation);
    let sample = ctx.client_supports(InputKind::Sampling);
    if !elicit && !sample {
        return Ok("No supported capabilities declared".into());
    }
    let (elicited, sampled) = tokio::join!(
        async {
            if elicit {
                ctx.elicit::<Value>("elicit_input", "Elicitation input")
                    .await
                    .map(|_| Some("elicit_input"))
            } else {
                Result::<_, ToolError>::Ok(None)
            }
        },
        async {
            if sample {
                ctx.sample("sample_input", SampleRequest::new("Sample request", 50))
                    .await
                    .map(|_| Some("sample_input"))
            } else {
                Result::<_, ToolError>::Ok(None)
            }
        },
    );
    let received: Vec<&str> = [elicited?, sampled?].into_iter().flatten().collect();
    Ok(format!("capabilities-ok: received {}", received.join(",")))
}

#[derive(Deserialize, ToolArgs)]
struct GreetArgs {
    /// Who to greet.
    name: String,
}

/// Greets by name (the tasks extension's synchronous tool).
#[tool]
async fn greet(args: GreetArgs) -> Result<String, ToolError> {
    Ok(format!("Hello, {}!", args.name))
}

#[derive(Deserialize, ToolArgs)]
struct RoutedArgs {
    /// The region a load balancer routes on, mirrored into `Mcp-Param-Region`.
    #[arg(mcp_header = "Region")]
    region: String,
    /// How urgent the query is, mirrored into `Mcp-Param-Priority`.
    #[arg(mcp_header = "Priority")]
    #[serde(default)]
    priority: Option<i64>,
    /// The query (not mirrored).
    query: String,
}

/// Answers a query in a region: its arguments carry `x-mcp-header`, so a client mirrors
/// them into `Mcp-Param-*` headers and the server checks that they agree with the body.
#[tool]
async fn test_custom_header(args: RoutedArgs) -> String {
    let priority = args
        .priority
        .map_or(String::new(), |p| format!(" at priority {p}"));
    format!("{} in {}{priority}", args.query, args.region)
}

#[derive(Deserialize, ToolArgs)]
struct ComputeArgs {
    /// How long to compute, in seconds.
    seconds: f64,
    /// A label for the result.
    #[serde(default)]
    label: Option<String>,
}

/// Computes for `seconds` seconds, as a task.
#[tool(task = optional, timeout_ms = 600_000)]
async fn slow_compute(args: ComputeArgs) -> Result<String, ToolError> {
    let seconds = args.seconds.clamp(0.0, 300.0);
    if seconds > 0.0 {
        tokio::time::sleep(Duration::from_secs_f64(seconds)).await;
    }
    let label = args.label.unwrap_or_else(|| "compute".into());
    Ok(format!("{label}: done after {seconds} s"))
}

/// Fails after about a second (a tool error: its task ends `completed` with `isError`).
#[tool(task = required)]
async fn failing_job() -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err(ToolError::new("the job failed, as it always does"))
}

/// Panics after a moment (a protocol error: its task ends `failed`).
#[tool(task = optional)]
async fn protocol_error_job() -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_millis(200)).await;
    panic!("protocol_error_job panics, as it always does");
}

#[derive(Deserialize, ToolArgs)]
struct DeleteArgs {
    /// The file to delete.
    filename: String,
}

#[derive(Debug, Deserialize, ToolArgs)]
struct Confirm {
    confirm: bool,
}

/// Asks before deleting the file, at once: called by a client that declared tasks, it
/// becomes a task waiting in `input_required` while its handler keeps running.
#[tool(task = optional)]
async fn confirm_delete(args: DeleteArgs, ctx: ToolCallContext) -> Result<String, ToolError> {
    let message = format!("Delete {}?", args.filename);
    match ctx.elicit::<Confirm>("confirm", message).await? {
        Elicited::Accepted(Confirm { confirm: true }) => Ok(format!("Deleted {}", args.filename)),
        _ => Ok(format!("Kept {}", args.filename)),
    }
}

#[derive(Debug, Deserialize, ToolArgs)]
struct Answer {
    name: String,
    confirm: bool,
}

/// Asks two questions at once, before any other work: called as a task, it becomes one
/// waiting in `input_required` while its handler keeps running.
#[tool(task = optional)]
async fn multi_input(ctx: ToolCallContext) -> Result<String, ToolError> {
    let (first, second) = tokio::join!(
        ctx.elicit::<Answer>("first", "First question"),
        ctx.elicit::<Answer>("second", "Second question"),
    );
    let names: Vec<String> = [first?, second?]
        .into_iter()
        .filter_map(Elicited::accepted)
        .map(|a| format!("{} ({})", a.name, a.confirm))
        .collect();
    Ok(format!("Answers: {}", names.join(", ")))
}

/// Asks the user's name (an input-required round), then works on as a task.
#[tool(task = required)]
async fn test_tool_with_task(ctx: ToolCallContext) -> Result<String, ToolError> {
    let answer = ctx
        .elicit::<Name>("user_name", "What is your name?")
        .await?;
    tokio::time::sleep(Duration::from_millis(100)).await;
    Ok(greeting(answer))
}

skills![
    guidance = "Tools of the MCP conformance suite.",
    tools = [
        test_simple_text,
        test_image_content,
        test_audio_content,
        test_embedded_resource,
        test_multiple_content_types,
        test_tool_with_logging,
        test_logging_tool,
        test_error_handling,
        test_tool_with_progress,
        test_streaming_elicitation,
        test_reconnection,
        test_sampling,
        test_missing_capability,
        test_elicitation,
        test_elicitation_sep1034_defaults,
        test_elicitation_sep1330_enums,
        test_input_required_result_elicitation,
        test_input_required_result_sampling,
        test_input_required_result_list_roots,
        test_input_required_result_request_state,
        test_input_required_result_multiple_inputs,
        test_input_required_result_multi_round,
        test_input_required_result_tampered_state,
        test_input_required_result_capabilities,
        test_custom_header,
        greet,
        slow_compute,
        failing_job,
        protocol_error_job,
        confirm_delete,
        multi_input,
        test_tool_with_task
    ],
];

/// The suite's `json_schema_2020_12_tool`: a contact whose schema uses 2020-12 keywords
/// beyond the wire subset. It answers the arguments it was given.
fn json_schema_2020_12_tool() -> Result<pedelec::ToolDefinition, pedelec::Error> {
    // The suite's schema, verbatim (`tests/raw_schemas.rs` reads it too).
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../tests/data/contact.json"))
            .map_err(|e| pedelec::Error::config(e.to_string()))?;
    let (schema, _warnings) = pedelec::ToolArgsSchema::from_json_lenient(&schema)
        .map_err(|e| pedelec::Error::config(e.to_string()))?;
    Ok(pedelec::ToolDefinition::new(
        "json_schema_2020_12_tool",
        "Records a contact: a phone number or an email address, as the contact method says.",
        schema,
    )
    .with_handler(pedelec::call::ToolHandler::json(
        |args: serde_json::Value, _ctx| async move { Ok::<_, ToolError>(args) },
    )))
}

#[tokio::main]
async fn main() -> Result<(), pedelec::Error> {
    let mut addr = "127.0.0.1:8080".to_owned();
    let mut stateful = false;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--stateful" => stateful = true,
            _ => addr = arg,
        }
    }
    // Bound here so that port 0 works: the line below names the port it got
    // (`cargo xtask conformance` reads it).
    let listener = tokio::net::TcpListener::bind(&addr)
        .await
        .map_err(|e| pedelec::Error::io(format!("cannot listen on `{addr}`"), e))?;
    let bound = listener.local_addr().map_or(addr, |a| a.to_string());
    let mode = if stateful { "stateful" } else { "stateless" };
    eprintln!("serving the conformance tools at http://{bound}/mcp ({mode}; Ctrl-C to stop)");
    let mut skills = ToolName::skills().untyped();
    skills.tools_mut().push(json_schema_2020_12_tool()?);
    pedelec::Session::builder(skills)
        .create()?
        .serve(pedelec::bridge::McpHttp::from_listener(listener).stateful(stateful))
        .await
}
