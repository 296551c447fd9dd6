//! The call adapters: one provider tool call in ([`Export::decode_call`]), the provider's
//! result message out ([`Export::encode_result`]), and both around a session call
//! ([`Session::call_provider`]).

#![allow(
    clippy::doc_markdown,
    reason = "provider and API names (OpenAI, OpenAPI) are prose here, not code"
)]

use serde_json::{Map, Value, json};

use super::facts::{branches, is_map, properties};
use super::{Export, ExportError, SearchCall, Target};
use crate::error::{ToolError, ToolResult};
use crate::schema::{AdditionalProperties, Literal, SchemaKind, SchemaNode};
use crate::session::{CallOptions, Session};

/// One tool call, decoded: the provider's call id, the tool's own name (not the provider
/// name) and its arguments, exactly as the argsSchema describes them.
#[derive(Clone, Debug, PartialEq)]
pub struct ProviderCall {
    /// The provider's id for the call (`call_…`, `toolu_…`; Gemini and MCP may have none),
    /// which the result message must carry.
    pub id: Option<String>,
    /// The tool's name (`nav.open_url`, not `nav_open_url`).
    pub name: String,
    /// The arguments (a JSON object).
    pub args: Value,
    /// Who made the call: the model, or a program it wrote (OpenAI Responses
    /// `caller: {"type": "program", "caller_id": …}`, Anthropic `caller: {"type":
    /// "code_execution_…", "tool_id": …}`). Every other target's calls are direct.
    pub caller: ProviderCaller,
}

/// Who made a provider tool call ([`ProviderCall::caller`]): the model directly, or a
/// program it wrote and the provider runs (programmatic tool calling; a tool allows it with
/// `#[tool(callers = [direct, program])]`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ProviderCaller {
    /// The model, in its answer (a call without a `caller`, or `{"type": "direct"}`).
    #[default]
    Direct,
    /// A program: `id` is the provider's id of the program's own item (OpenAI's
    /// `caller_id`, the call id of the program item; Anthropic's `tool_id`, the
    /// `srvtoolu_…` id of the code execution call).
    Program {
        /// The program's id.
        id: String,
    },
}

/// What a payload of each target looks like, for messages.
const fn expected_shape(target: Target) -> &'static str {
    match target {
        Target::OpenAiChat => {
            "one element of `message.tool_calls`, like `{\"id\": \"call_…\", \"type\": \
             \"function\", \"function\": {\"name\": \"…\", \"arguments\": \"{…}\"}}`"
        }
        Target::OpenAiResponses => {
            "one `function_call` output item, like `{\"type\": \"function_call\", \"call_id\": \
             \"call_…\", \"name\": \"…\", \"arguments\": \"{…}\"}`"
        }
        Target::Anthropic => {
            "one `tool_use` content block, like `{\"type\": \"tool_use\", \"id\": \"toolu_…\", \
             \"name\": \"…\", \"input\": {…}}`"
        }
        Target::Gemini | Target::GeminiOpenApi => {
            "one `functionCall` part, like `{\"functionCall\": {\"name\": \"…\", \"args\": {…}}}`"
        }
        Target::Mcp => {
            "the params of a `tools/call` request, like `{\"name\": \"…\", \"arguments\": {…}}`"
        }
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The parts of a payload: id, provider name, arguments (parsed), with the pointer of each.
struct Parts<'a> {
    id: Option<&'a str>,
    /// The provider name; an OpenAI Responses call of a function in a namespace is named
    /// by both (`billing` and `refund_invoice`), joined here as the export names it
    /// (`billing_refund_invoice`).
    name: std::borrow::Cow<'a, str>,
    args: Value,
    caller: ProviderCaller,
}

impl<N> Export<N> {
    fn malformed(&self, pointer: &str, message: String) -> ExportError {
        ExportError::payload(
            self.target,
            pointer,
            "payload",
            format!("{message}; expected {}", expected_shape(self.target)),
        )
    }

    /// Decodes one tool call as the provider sends it: an OpenAI Chat `tool_calls[i]`
    /// (`arguments` is JSON text), a Responses `function_call` item, an Anthropic `tool_use`
    /// block, a Gemini `functionCall` part (or the `functionCall` object), the params of an
    /// MCP `tools/call` (or the whole request). The provider name is mapped back to the
    /// tool's, and the arguments restored to the instance the argsSchema describes (the
    /// `null` standing for an absent optional property, in strict OpenAI exports, is
    /// removed, and a map sent in a strict mode's entries form, `[{"key": "a", "value": 1}]`,
    /// becomes the object `{"a": 1}` again, its keys in the entries' order). The arguments
    /// are not validated here: the session does that.
    ///
    /// # Errors
    /// A payload that is not a tool call of this target, `arguments` that are not JSON text
    /// or not an object, an unknown tool name, a map's entries that repeat a key or are not
    /// `{"key": string, "value": …}` (rule `map-entries`, with the pointer of the entry):
    /// one problem, saying what is wrong.
    pub fn decode_call(&self, payload: &Value) -> Result<ProviderCall, ExportError> {
        let parts = self.parts(payload)?;
        let Some(index) = self.by_provider_name.get(&*parts.name).copied() else {
            let known: Vec<&str> = self.names.iter().map(|(_, p)| p.as_str()).collect();
            let hint = match known
                .iter()
                .map(|k| (strsim::jaro_winkler(&parts.name, k), *k))
                .filter(|(score, _)| *score > 0.8)
                .max_by(|a, b| a.0.total_cmp(&b.0))
            {
                Some((_, k)) => format!("; did you mean `{k}`?"),
                None => format!("; the tools are `{}`", known.join("`, `")),
            };
            return Err(ExportError::payload(
                self.target,
                "",
                "unknown-tool",
                format!("unknown tool `{}`{hint}", parts.name),
            ));
        };
        let mut args = parts.args;
        if !args.is_object() {
            return Err(ExportError::payload(
                self.target,
                self.args_pointer(),
                "arguments",
                format!(
                    "the arguments must be a JSON object, got {}",
                    kind_of(&args)
                ),
            ));
        }
        let nulls = super::transform::nulls_stand_for_absent(self.target.provider(), self.strict);
        let entries = self.entries[index];
        if nulls || entries {
            let root = self.schemas[index].node();
            let defs = root.definitions();
            let undo = Undo {
                nulls,
                entries,
                defs: &defs,
            };
            let mut pointer = String::new();
            if let Err((at, message)) = restore(&mut args, root, undo, &mut pointer, 0) {
                return Err(ExportError::payload(
                    self.target,
                    &format!("{}{at}", self.args_pointer()),
                    "map-entries",
                    message,
                ));
            }
        }
        Ok(ProviderCall {
            id: parts.id.map(str::to_owned),
            name: self.names[index].0.clone(),
            args,
            caller: parts.caller,
        })
    }

    /// The payload's `caller` (OpenAI Responses, Anthropic): none, `null` or `{"type":
    /// "direct"}` is the model; any other type with the program's id at `id_key`
    /// (`caller_id`, `tool_id`) is a program.
    fn caller(
        &self,
        object: &Map<String, Value>,
        id_key: &str,
    ) -> Result<ProviderCaller, ExportError> {
        let caller = match object.get("caller") {
            None | Some(Value::Null) => return Ok(ProviderCaller::Direct),
            Some(Value::Object(caller)) => caller,
            Some(other) => {
                return Err(self.malformed(
                    "/caller",
                    format!("`caller` must be an object, got {}", kind_of(other)),
                ));
            }
        };
        match (caller.get("type"), caller.get(id_key)) {
            (Some(Value::String(kind)), _) if kind == "direct" => Ok(ProviderCaller::Direct),
            (Some(Value::String(_)), Some(Value::String(id))) => {
                Ok(ProviderCaller::Program { id: id.clone() })
            }
            (Some(Value::String(kind)), _) => Err(self.malformed(
                &format!("/caller/{id_key}"),
                format!("the `{kind}` caller has no string `{id_key}`"),
            )),
            _ => Err(self.malformed("/caller/type", "`caller` has no string `type`".to_owned())),
        }
    }

    const fn args_pointer(&self) -> &'static str {
        match self.target {
            Target::OpenAiChat => "/function/arguments",
            Target::OpenAiResponses | Target::Mcp => "/arguments",
            Target::Anthropic => "/input",
            Target::Gemini | Target::GeminiOpenApi => "/functionCall/args",
        }
    }

    fn parts<'a>(&self, payload: &'a Value) -> Result<Parts<'a>, ExportError> {
        let Some(object) = payload.as_object() else {
            return Err(self.malformed("", format!("the payload is {}", kind_of(payload))));
        };
        let string = |o: &'a Map<String, Value>, key: &str, pointer: &str| match o.get(key) {
            Some(Value::String(s)) => Ok(s.as_str()),
            Some(other) => Err(self.malformed(
                pointer,
                format!("`{key}` must be a string, got {}", kind_of(other)),
            )),
            None => Err(self.malformed(pointer, format!("`{key}` is missing"))),
        };
        let optional_id =
            |o: &'a Map<String, Value>, key: &str| -> Result<Option<&'a str>, ExportError> {
                match o.get(key) {
                    None | Some(Value::Null) => Ok(None),
                    Some(Value::String(s)) => Ok(Some(s.as_str())),
                    Some(other) => Err(self.malformed(
                        &format!("/{key}"),
                        format!("`{key}` must be a string, got {}", kind_of(other)),
                    )),
                }
            };
        let check_type = |expected: &str| match object.get("type") {
            Some(Value::String(t)) if t == expected => Ok(()),
            Some(other) => Err(self.malformed(
                "/type",
                format!("this is not a `{expected}` (its `type` is {other})"),
            )),
            None => Err(self.malformed(
                "/type",
                format!("`type` is missing (expected `{expected}`)"),
            )),
        };
        let json_text = |text: &'a Value, pointer: &str| -> Result<Value, ExportError> {
            match text {
                Value::String(s) => serde_json::from_str(s).map_err(|e| {
                    ExportError::payload(
                        self.target,
                        pointer,
                        "arguments",
                        format!("`arguments` is not valid JSON text: {e}"),
                    )
                }),
                other => Err(ExportError::payload(
                    self.target,
                    pointer,
                    "arguments",
                    format!(
                        "`arguments` must be JSON text (a string holding an object), got {}",
                        kind_of(other)
                    ),
                )),
            }
        };
        match self.target {
            Target::OpenAiChat => {
                if object.contains_key("type") {
                    check_type("function")?;
                }
                let Some(Value::Object(function)) = object.get("function") else {
                    return Err(self
                        .malformed("/function", "`function` is missing or not an object".into()));
                };
                let name = string(function, "name", "/function/name")?;
                let args = match function.get("arguments") {
                    Some(text) => json_text(text, "/function/arguments")?,
                    None => {
                        return Err(
                            self.malformed("/function/arguments", "`arguments` is missing".into())
                        );
                    }
                };
                Ok(Parts {
                    id: optional_id(object, "id")?,
                    name: name.into(),
                    args,
                    caller: ProviderCaller::Direct,
                })
            }
            Target::OpenAiResponses => {
                check_type("function_call")?;
                let name = string(object, "name", "/name")?;
                let name = match object.get("namespace") {
                    None | Some(Value::Null) => name.into(),
                    Some(_) => {
                        super::names::namespaced(string(object, "namespace", "/namespace")?, name)
                            .into()
                    }
                };
                let args = match object.get("arguments") {
                    Some(text) => json_text(text, "/arguments")?,
                    None => {
                        return Err(self.malformed("/arguments", "`arguments` is missing".into()));
                    }
                };
                Ok(Parts {
                    id: optional_id(object, "call_id")?,
                    name,
                    args,
                    caller: self.caller(object, "caller_id")?,
                })
            }
            Target::Anthropic => {
                check_type("tool_use")?;
                let name = string(object, "name", "/name")?;
                let args = object.get("input").cloned().unwrap_or_else(|| json!({}));
                Ok(Parts {
                    id: optional_id(object, "id")?,
                    name: name.into(),
                    args,
                    caller: self.caller(object, "tool_id")?,
                })
            }
            Target::Gemini | Target::GeminiOpenApi => {
                let call = match object.get("functionCall") {
                    Some(Value::Object(call)) => call,
                    Some(other) => {
                        return Err(self.malformed(
                            "/functionCall",
                            format!("`functionCall` must be an object, got {}", kind_of(other)),
                        ));
                    }
                    None if object.contains_key("name") => object,
                    None => return Err(self.malformed("", "there is no `functionCall`".into())),
                };
                let name = string(call, "name", "/functionCall/name")?;
                let args = call.get("args").cloned().unwrap_or_else(|| json!({}));
                Ok(Parts {
                    id: optional_id(call, "id")?,
                    name: name.into(),
                    args,
                    caller: ProviderCaller::Direct,
                })
            }
            Target::Mcp => {
                // A whole JSON-RPC request is accepted too: its id answers it.
                let (params, id) = match object.get("params") {
                    Some(Value::Object(params)) => (params, None),
                    _ => (object, None::<&str>),
                };
                let name = string(params, "name", "/name")?;
                let args = params
                    .get("arguments")
                    .cloned()
                    .unwrap_or_else(|| json!({}));
                Ok(Parts {
                    id,
                    name: name.into(),
                    args,
                    caller: ProviderCaller::Direct,
                })
            }
        }
    }

    /// The provider's message answering `call` with `result`: the OpenAI `role: "tool"`
    /// message or `function_call_output` item, the Anthropic `tool_result` block
    /// (`is_error` on failure), the Gemini `functionResponse` part, the MCP
    /// `CallToolResult`. Its content is the pedelec result object (`{"ok": …}`) as JSON.
    #[must_use]
    pub fn encode_result(&self, call: &ProviderCall, result: &ToolResult) -> Value {
        let id = call.id.as_deref();
        let text = || serde_json::to_string(result).unwrap_or_default();
        match self.target {
            Target::OpenAiChat => json!({
                "role": "tool",
                "tool_call_id": id,
                "content": text(),
            }),
            Target::OpenAiResponses => json!({
                "type": "function_call_output",
                "call_id": id,
                "output": text(),
            }),
            Target::Anthropic => {
                let mut block = json!({
                    "type": "tool_result",
                    "tool_use_id": id,
                    "content": text(),
                });
                if !result.is_ok() {
                    block["is_error"] = Value::Bool(true);
                }
                block
            }
            Target::Gemini | Target::GeminiOpenApi => {
                let name = self.provider_name(&call.name).unwrap_or(&call.name);
                let mut response = Map::new();
                if let Some(id) = id {
                    response.insert("id".into(), id.into());
                }
                response.insert("name".into(), name.into());
                response.insert(
                    "response".into(),
                    serde_json::to_value(result).unwrap_or(Value::Null),
                );
                json!({ "functionResponse": response })
            }
            Target::Mcp => {
                let mut message = json!({
                    "content": [{"type": "text", "text": text()}],
                    "isError": !result.is_ok(),
                });
                // A tool listed with an `outputSchema` answers `structuredContent` by it.
                if let ToolResult::Ok(value) = result
                    && let Some(output) = self.output_of(&call.name)
                {
                    message["structuredContent"] = output.structured_content(value.clone());
                }
                message
            }
        }
    }

    /// The output schema a tool's MCP export lists (none for MCP content blocks).
    fn output_of(&self, tool_name: &str) -> Option<&crate::output::OutputSchema> {
        let index = self.names.iter().position(|(t, _)| t == tool_name)?;
        self.outputs[index].as_ref().filter(|o| !o.is_content())
    }

    /// The call a payload that failed to decode is answered as: whatever id and name can
    /// be read from it.
    pub(super) fn undecodable(&self, payload: &Value) -> ProviderCall {
        let pick = |pointers: &[&str]| {
            pointers
                .iter()
                .find_map(|p| payload.pointer(p).and_then(Value::as_str))
                .map(str::to_owned)
        };
        let (id, name) = match self.target {
            Target::OpenAiChat => (pick(&["/id"]), pick(&["/function/name"])),
            Target::OpenAiResponses => (
                pick(&["/call_id"]),
                match (pick(&["/namespace"]), pick(&["/name"])) {
                    (Some(space), Some(name)) => Some(super::names::namespaced(&space, &name)),
                    (_, name) => name,
                },
            ),
            Target::Anthropic => (pick(&["/id"]), pick(&["/name"])),
            Target::Gemini | Target::GeminiOpenApi => (
                pick(&["/functionCall/id", "/id"]),
                pick(&["/functionCall/name", "/name"]),
            ),
            Target::Mcp => (None, pick(&["/params/name", "/name"])),
        };
        let name = name
            .and_then(|n| self.tool_name(&n).map(str::to_owned).or(Some(n)))
            .unwrap_or_default();
        ProviderCall {
            id,
            name,
            args: Value::Null,
            caller: ProviderCaller::Direct,
        }
    }
}

/// What [`restore`] undoes: the `null`s standing for absent optional properties (OpenAI
/// strict), the entries form of maps (every strict mode).
#[derive(Clone, Copy)]
struct Undo<'a> {
    nulls: bool,
    entries: bool,
    /// The argsSchema's `$defs` entries, which its `$ref`s name.
    defs: &'a [&'a crate::schema::Def],
}

/// Deeper than this, [`restore`] leaves the instance as it is: the session's validation
/// bounds the depth of an instance anyway, and this keeps a hostile one from exhausting the
/// stack here.
const MAX_RESTORE_DEPTH: usize = 512;

/// Restores, in place, the instance the argsSchema describes from its provider form,
/// wherever the schema has objects: nested, in arrays, in map values and in union branches
/// (the branch is the one whose tags the value carries). Removes the `null` of every
/// optional property (the provider form of "absent") and turns a map's entries
/// (`[{"key": "a", "value": 1}]`) back into the object (`{"a": 1}`), in their order.
///
/// `pointer` is where `value` is in the arguments; an error names the pointer of the
/// entry at fault.
fn restore(
    value: &mut Value,
    node: &SchemaNode,
    undo: Undo<'_>,
    pointer: &mut String,
    depth: usize,
) -> Result<(), (String, String)> {
    if depth > MAX_RESTORE_DEPTH {
        return Ok(());
    }
    if let Some(name) = node.reference_name()
        && let Some(def) = undo.defs.iter().find(|d| d.name() == name)
    {
        restore(value, def.schema(), undo, pointer, depth + 1)?;
    }
    if undo.entries && is_map(node) && value.is_array() {
        *value = from_entries(std::mem::take(value), pointer)?;
    }
    match value {
        Value::Object(map) => {
            if node.one_of.is_some() {
                if let Some(branch) = branches(node).iter().find(|b| shallow_match(map, b)) {
                    restore(value, branch, undo, pointer, depth + 1)?;
                }
                return Ok(());
            }
            let props = properties(node);
            for prop in props {
                let name = prop.name();
                match map.get_mut(name) {
                    Some(Value::Null) if undo.nulls && !prop.is_required() => {
                        map.shift_remove(name);
                    }
                    Some(v) => {
                        let len = push_segment(pointer, name);
                        restore(v, prop.schema(), undo, pointer, depth + 1)?;
                        pointer.truncate(len);
                    }
                    None => {}
                }
            }
            if let Some(AdditionalProperties::Schema(values)) = &node.additional_properties {
                for (key, v) in map.iter_mut() {
                    if !props.iter().any(|p| p.name() == key) {
                        let len = push_segment(pointer, key);
                        restore(v, values, undo, pointer, depth + 1)?;
                        pointer.truncate(len);
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(item) = &node.items {
                for (i, v) in items.iter_mut().enumerate() {
                    let len = push_segment(pointer, &i.to_string());
                    restore(v, item, undo, pointer, depth + 1)?;
                    pointer.truncate(len);
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// Appends `/segment` (escaped) to a JSON pointer, returning its length before.
fn push_segment(pointer: &mut String, segment: &str) -> usize {
    let len = pointer.len();
    pointer.push('/');
    for c in segment.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
    len
}

/// A map's entries (`[{"key": "a", "value": 1}, …]`) as the object (`{"a": 1, …}`), in
/// their order. A repeated key, or an entry that is not `{"key": string, "value": …}`, is
/// an error (pointer, message).
fn from_entries(entries: Value, pointer: &str) -> Result<Value, (String, String)> {
    let Value::Array(entries) = entries else {
        return Ok(entries);
    };
    let mut out = Map::with_capacity(entries.len());
    for (i, entry) in entries.into_iter().enumerate() {
        let at = format!("{pointer}/{i}");
        let Value::Object(mut entry) = entry else {
            return Err((
                at,
                format!(
                    "each entry of a map must be an object `{{\"key\": \"…\", \"value\": …}}`, got {}",
                    kind_of(&entry)
                ),
            ));
        };
        let (Some(Value::String(key)), Some(value), 2) = (
            entry.shift_remove("key"),
            entry.shift_remove("value"),
            entry.len() + 2,
        ) else {
            return Err((
                at,
                "each entry of a map must be an object with exactly a string `key` and a \
                 `value`"
                    .to_owned(),
            ));
        };
        if out.contains_key(&key) {
            return Err((
                format!("{at}/key"),
                format!(
                    "duplicate key {}: each key of a map may appear in one entry only",
                    Value::String(key)
                ),
            ));
        }
        out.insert(key, value);
    }
    Ok(Value::Object(out))
}

/// Whether an object carries a branch's tags: every required property with an `enum`
/// present with one of its values, and, for a closed branch, no undeclared property. The
/// branches of an exported `oneOf` are disjoint by exactly these (see
/// `branches_disjoint`), so at most one branch matches a valid value.
fn shallow_match(map: &Map<String, Value>, branch: &SchemaNode) -> bool {
    if !branch.is_kind(SchemaKind::Object) {
        return false;
    }
    let props = properties(branch);
    for prop in props {
        let Some(v) = map.get(prop.name()) else {
            if prop.is_required() {
                return false;
            }
            continue;
        };
        if prop.is_required()
            && let Some(values) = prop.schema().enum_values()
            && !values.iter().any(|l| l == &Literal::from_value(v))
        {
            return false;
        }
    }
    !super::facts::is_closed(branch) || map.keys().all(|k| props.iter().any(|p| p.name() == k))
}

impl<N> Export<N> {
    /// A provider call that needs no decoding beyond reading its parts: OpenAI's arguments
    /// text or Anthropic's `input`, with no `null` to restore (`restore`) and a known tool.
    /// Reads the payload's few keys in one pass each, without hashing them (`serde_json`'s
    /// map hashes with SipHash); `None` means the full decoding decides.
    fn quick_call<'a>(&'a self, payload: &'a Value) -> Option<QuickCall<'a>> {
        /// The value of each of `keys` in the object (`None` when a key is absent), in
        /// one scan of its entries.
        fn fields<'v, const K: usize>(
            object: &'v Map<String, Value>,
            keys: [&str; K],
        ) -> [Option<&'v Value>; K] {
            let mut found = [None; K];
            for (key, value) in object {
                if let Some(i) = keys.iter().position(|k| k == key) {
                    found[i] = Some(value);
                }
            }
            found
        }
        /// `Some(None)` for no id, `None` for an id that is not a string.
        #[allow(clippy::option_option, reason = "absent and malformed differ here")]
        fn id(value: Option<&Value>) -> Option<Option<&str>> {
            match value {
                None => Some(None),
                Some(Value::String(id)) => Some(Some(id.as_str())),
                Some(_) => None,
            }
        }
        let object = payload.as_object()?;
        let (id, name, args) = match self.target {
            Target::OpenAiChat => {
                let [kind, id_, function] = fields(object, ["type", "id", "function"]);
                if kind.is_some_and(|t| t != "function") {
                    return None;
                }
                let [name, arguments] = fields(function?.as_object()?, ["name", "arguments"]);
                let text = arguments?.as_str()?;
                (id(id_)?, name?.as_str()?, QuickArgs::Text(text))
            }
            Target::OpenAiResponses => {
                let [kind, id_, name, arguments, namespace] = fields(
                    object,
                    ["type", "call_id", "name", "arguments", "namespace"],
                );
                // A namespaced function is named by two fields: `decode_call` joins them.
                if kind? != "function_call" || namespace.is_some() {
                    return None;
                }
                (
                    id(id_)?,
                    name?.as_str()?,
                    QuickArgs::Text(arguments?.as_str()?),
                )
            }
            Target::Anthropic => {
                let [kind, id_, name, input] = fields(object, ["type", "id", "name", "input"]);
                if kind.is_some_and(|t| t != "tool_use") {
                    return None;
                }
                let input = input?;
                (id(id_)?, name?.as_str()?, QuickArgs::Value(input))
            }
            _ => return None,
        };
        let takes = match args {
            QuickArgs::Text(text) => self.takes_text_args(text),
            QuickArgs::Value(value) => {
                value.is_object() && !(self.restores_nulls() && has_null(value))
            }
        };
        if !takes {
            return None;
        }
        Some(QuickCall {
            id,
            tool: self.quick_tool(name)?,
            args,
        })
    }

    /// Whether a `null` in this export's calls may stand for an absent optional property.
    fn restores_nulls(&self) -> bool {
        super::transform::nulls_stand_for_absent(self.target.provider(), self.strict)
    }

    /// Whether arguments as JSON text can go to the session as they are: an object, with
    /// no `null` that may stand for an absent property.
    pub(super) fn takes_text_args(&self, text: &str) -> bool {
        text.trim_start().starts_with('{') && !(self.restores_nulls() && text.contains("null"))
    }

    /// The tool's own name for a quick route: a known provider name, and no map sent as
    /// entries in its arguments (`decode_call` restores those).
    pub(super) fn quick_tool(&self, provider_name: &str) -> Option<&str> {
        let index = *self.by_provider_name.get(provider_name)?;
        (!self.entries[index]).then(|| self.names[index].0.as_str())
    }

    /// The result message around a result already encoded as JSON text (`{"ok":…}`), for
    /// the targets [`quick_call`](Self::quick_call) serves.
    fn text_message(&self, id: Option<&str>, content: String) -> Value {
        let id = id.map_or(Value::Null, |id| Value::String(id.to_owned()));
        match self.target {
            Target::OpenAiResponses => json!({
                "type": "function_call_output",
                "call_id": id,
                "output": content,
            }),
            Target::Anthropic => {
                let failed = content.starts_with(r#"{"ok":false"#);
                let mut block = json!({
                    "type": "tool_result",
                    "tool_use_id": id,
                    "content": content,
                });
                if failed {
                    block["is_error"] = Value::Bool(true);
                }
                block
            }
            _ => json!({
                "role": "tool",
                "tool_call_id": id,
                "content": content,
            }),
        }
    }
}

/// A provider call read by [`Export::quick_call`].
struct QuickCall<'a> {
    id: Option<&'a str>,
    /// The tool's own name.
    tool: &'a str,
    args: QuickArgs<'a>,
}

/// The arguments as the provider sends them: JSON text (OpenAI), or an object (Anthropic).
enum QuickArgs<'a> {
    Text(&'a str),
    Value(&'a Value),
}

/// Whether a `null` is anywhere in `value`.
fn has_null(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Array(items) => items.iter().any(has_null),
        Value::Object(map) => map.values().any(has_null),
        _ => false,
    }
}

impl<N> Session<N> {
    /// Decodes one provider tool call (see [`Export::decode_call`]), runs it
    /// ([`call`](Session::call)), and answers with the provider's result message (see
    /// [`Export::encode_result`]). A payload that cannot be decoded is answered too, with
    /// an error result that says what is wrong (`INVALID_INPUT`, `TOOL_ARGS_INVALID` or
    /// `TOOL_HANDLER_NOT_FOUND`), carrying the call's id when one can be read.
    pub async fn call_provider<M>(&self, export: &Export<M>, payload: &Value) -> Value {
        self.call_provider_with(export, payload, CallOptions::default())
            .await
    }

    /// [`call_provider`](Self::call_provider) with options: the caller whose scopes and
    /// limits apply, the call's id, its progress sink.
    pub async fn call_provider_with<M>(
        &self,
        export: &Export<M>,
        payload: &Value,
        options: CallOptions,
    ) -> Value {
        if let Some(search) = export.search_call(payload) {
            return self.answer_search(export, search, options).await;
        }
        // When there is nothing to restore, the arguments go to the session as JSON text
        // (OpenAI's as sent, Anthropic's object written once), validated on the fast path,
        // and the result text comes back as the message's content: no `Value` of the args
        // or of the result in between.
        if let Some(call) = export.quick_call(payload) {
            let written;
            let text = match call.args {
                QuickArgs::Text(text) => text,
                QuickArgs::Value(value) => {
                    written = serde_json::to_string(value).unwrap_or_default();
                    &written
                }
            };
            let content = self.call_raw_with(call.tool, text, options).await;
            return export.text_message(call.id, content);
        }
        self.call_provider_decoded(export, payload, options).await
    }

    /// A search of an export's client search (or MCP's `call_tool`): the deferred tools
    /// that match, among those the caller may call, loaded in the target's form.
    async fn answer_search<M>(
        &self,
        export: &Export<M>,
        search: SearchCall,
        options: CallOptions,
    ) -> Value {
        use crate::search::tools::{read_call, read_query};
        if search.call_tool {
            let (call, result) = match read_call(&search.args) {
                Ok((name, args)) => {
                    let args = match args {
                        Some(raw) => serde_json::from_str(raw.get()).unwrap_or(Value::Null),
                        None => json!({}),
                    };
                    let result = self.call_with(&name, args, options).await;
                    (name, result)
                }
                Err(message) => (
                    crate::search::tools::CALL_TOOL.to_owned(),
                    ToolResult::Err(ToolError::with_code(
                        crate::error::ErrorCode::ToolArgsInvalid,
                        message,
                    )),
                ),
            };
            let call = ProviderCall {
                id: search.id,
                name: call,
                args: Value::Null,
                caller: ProviderCaller::Direct,
            };
            return export.encode_result(&call, &result);
        }
        let found = read_query(&search.args).map(|query| {
            export.find(&query.query, query.limit, |name| {
                self.may_call(name, options.caller_ref())
            })
        });
        export.search_answer(
            search.id.as_deref(),
            found.as_deref().map_err(String::as_str),
        )
    }

    /// The full route of [`call_provider`](Self::call_provider): decode (restoring what the
    /// provider form changed), call, encode.
    async fn call_provider_decoded<M>(
        &self,
        export: &Export<M>,
        payload: &Value,
        options: CallOptions,
    ) -> Value {
        match export.decode_call(payload) {
            Ok(mut call) => {
                let args = std::mem::take(&mut call.args);
                let result = self.call_with(&call.name, args, options).await;
                export.encode_result(&call, &result)
            }
            Err(error) => {
                let call = export.undecodable(payload);
                // The model reads this: the problem alone, without the target's name.
                let message = match error.problems().first() {
                    Some(p) if p.place.is_empty() => p.message.clone(),
                    Some(p) => format!("{}: {}", p.place, p.message),
                    None => error.to_string(),
                };
                let result = ToolResult::Err(ToolError::with_code(error.code(), message));
                export.encode_result(&call, &result)
            }
        }
    }
}
