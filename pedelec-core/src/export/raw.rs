//! Provider calls as JSON text in and JSON text out ([`Session::call_provider_raw`]): for a
//! payload with nothing to restore, the fields are read in place from the text, the
//! arguments go to the session as text, and the result message is written around the
//! result's text, with no `Value` built on either side. Anything else takes the `Value`
//! route of [`Session::call_provider`], so both answer the same message.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::{Export, Target};
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::session::{CallOptions, JsonText, Session};

/// OpenAI Chat Completions: one element of `message.tool_calls`.
#[derive(Deserialize)]
struct ChatCall<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    function: Function<'a>,
}

/// OpenAI Chat's `function`.
#[derive(Deserialize)]
struct Function<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    /// JSON text inside a JSON string: unescaped here (an allocation when it has quotes).
    #[serde(borrow)]
    arguments: Cow<'a, str>,
}

/// OpenAI Responses: one `function_call` output item.
#[derive(Deserialize)]
struct ResponsesCall<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    call_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow)]
    arguments: Cow<'a, str>,
    /// Set for a function in a namespace: the `Value` route joins it to `name`.
    #[serde(borrow, default)]
    namespace: Option<Cow<'a, str>>,
}

/// Anthropic Messages: one `tool_use` content block.
#[derive(Deserialize)]
struct ToolUse<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    name: Cow<'a, str>,
    /// The arguments' object, as it stands in the payload.
    #[serde(borrow)]
    input: &'a RawValue,
}

/// A call read from the text: its id, the tool's own name, the arguments' JSON text.
struct TextCall<'a> {
    id: Option<Cow<'a, str>>,
    tool: &'a str,
    args: Cow<'a, str>,
}

impl<N> Export<N> {
    /// Reads `payload` when the text route can serve it: a target whose result message is
    /// text (OpenAI Chat and Responses, Anthropic), a well-formed call of a known tool, and
    /// arguments that are an object with nothing to restore. `None` sends the payload the
    /// `Value` route, which answers everything else (including every malformed payload).
    fn text_call<'a>(&'a self, payload: &'a str) -> Option<TextCall<'a>> {
        let (id, name, args) = match self.target {
            Target::OpenAiChat => {
                let call: ChatCall<'_> = serde_json::from_str(payload).ok()?;
                if call.kind.is_some_and(|kind| kind != "function") {
                    return None;
                }
                (call.id, call.function.name, call.function.arguments)
            }
            Target::OpenAiResponses => {
                let call: ResponsesCall<'_> = serde_json::from_str(payload).ok()?;
                if call.kind != "function_call" || call.namespace.is_some() {
                    return None;
                }
                (call.call_id, call.name, call.arguments)
            }
            Target::Anthropic => {
                let call: ToolUse<'_> = serde_json::from_str(payload).ok()?;
                if call.kind.is_some_and(|kind| kind != "tool_use") {
                    return None;
                }
                (call.id, call.name, Cow::Borrowed(call.input.get()))
            }
            Target::Gemini | Target::GeminiOpenApi | Target::Mcp => return None,
        };
        if !self.takes_text_args(&args) {
            return None;
        }
        Some(TextCall {
            id,
            tool: self.quick_tool(&name)?,
            args,
        })
    }

    /// The result message around `content` (a result's JSON text, `{"ok":…}`) as JSON
    /// text, the same message [`text_message`](Self::text_message) builds as a `Value`.
    fn text_message_raw(&self, id: Option<&str>, content: &str) -> String {
        let (head, content_key) = match self.target {
            Target::OpenAiResponses => (
                r#"{"type":"function_call_output","call_id":"#,
                r#","output":"#,
            ),
            Target::Anthropic => (r#"{"type":"tool_result","tool_use_id":"#, r#","content":"#),
            _ => (r#"{"role":"tool","tool_call_id":"#, r#","content":"#),
        };
        let mut out = Vec::with_capacity(head.len() + content.len() + 64);
        out.extend_from_slice(head.as_bytes());
        // Writing a string or `null` into a `Vec` cannot fail.
        let _ = serde_json::to_writer(&mut out, &id);
        out.extend_from_slice(content_key.as_bytes());
        let _ = serde_json::to_writer(&mut out, content);
        if self.target == Target::Anthropic && content.starts_with(r#"{"ok":false"#) {
            out.extend_from_slice(br#","is_error":true"#);
        }
        out.push(b'}');
        // Every piece is UTF-8 (ASCII, or written by serde_json).
        String::from_utf8(out).unwrap_or_default()
    }
}

impl<N> Session<N> {
    /// [`call_provider`](Self::call_provider) on JSON text: the provider's tool call as it
    /// came over the wire, the result message as the text to send back. For OpenAI and
    /// Anthropic calls with nothing to restore (no `null` standing for an absent optional
    /// argument), no `Value` is built on either side; every other payload, malformed ones
    /// included, is answered exactly as `call_provider` answers it.
    pub async fn call_provider_raw<M>(
        &self,
        export: &Export<M>,
        payload: &(impl JsonText + ?Sized),
    ) -> String {
        self.call_provider_raw_with(export, payload, CallOptions::default())
            .await
    }

    /// [`call_provider_raw`](Self::call_provider_raw) with options: the caller whose scopes
    /// and limits apply, the call's id, its progress sink.
    pub async fn call_provider_raw_with<M>(
        &self,
        export: &Export<M>,
        payload: &(impl JsonText + ?Sized),
        options: CallOptions,
    ) -> String {
        let payload = payload.json_text();
        if let Some(call) = export.text_call(payload) {
            let content = self.call_raw_with(call.tool, &*call.args, options).await;
            return export.text_message_raw(call.id.as_deref(), &content);
        }
        let message = match serde_json::from_str::<Value>(payload) {
            Ok(payload) => self.call_provider_with(export, &payload, options).await,
            Err(error) => {
                let call = export.undecodable(&Value::Null);
                let result = ToolResult::Err(ToolError::with_code(
                    ErrorCode::InvalidInput,
                    format!("the payload is not JSON: {error}"),
                ));
                export.encode_result(&call, &result)
            }
        };
        serde_json::to_string(&message).unwrap_or_default()
    }
}
