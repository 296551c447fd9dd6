//! A request's `_meta` (2026-07-28 carries the protocol version, the client's capabilities
//! and its log level in every request; every revision may carry a progress token and a W3C
//! trace context), and the protocol revisions the server speaks.

use std::fmt;

use rmcp::model::{ClientCapabilities, ErrorData, ProtocolVersion};
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::context::LogLevel;

/// The revisions served, oldest first: every one rmcp knows.
pub(crate) fn supported_versions() -> &'static [ProtocolVersion] {
    ProtocolVersion::KNOWN_VERSIONS
}

/// The first revision without `initialize`: requests stand alone, with `_meta`.
pub(crate) const CURRENT: &str = "2026-07-28";
/// The newest revision with `initialize` (what an `initialize` for a newer one gets).
pub(crate) const LATEST_WITH_INITIALIZE: &str = "2025-11-25";
/// The revision of a stateless HTTP request that names none (the transport's rule).
pub(crate) const DEFAULT_HTTP: &str = "2025-03-26";

/// A revision served (one of [`supported_versions`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Revision(&'static str);

impl Revision {
    pub(crate) const CURRENT: Revision = Revision(CURRENT);

    /// The supported revision named `name`.
    pub(crate) fn of(name: &str) -> Option<Revision> {
        supported_versions()
            .iter()
            .find(|v| v.as_str() == name)
            .map(|v| Revision(leak_static(v)))
    }

    pub(crate) const fn as_str(self) -> &'static str {
        self.0
    }

    /// 2026-07-28 or later: `resultType`, caching hints, input-required results.
    pub(crate) fn is_current(self) -> bool {
        self.0 >= CURRENT
    }
}

/// The `&'static str` of a known version (they are all `Cow::Borrowed` constants).
fn leak_static(version: &'static ProtocolVersion) -> &'static str {
    version.as_str()
}

/// The parsed `_meta` of a request. Every field is optional; a malformed one is kept as
/// such so that the revision rules can say whether it matters.
#[derive(Default)]
pub(crate) struct Meta {
    /// `io.modelcontextprotocol/protocolVersion`: `Some(Err(()))` when not a string.
    pub(crate) protocol_version: Option<Result<String, ()>>,
    /// `io.modelcontextprotocol/clientCapabilities`: `Some(Err(()))` when not an object of
    /// capabilities.
    pub(crate) client_capabilities: Option<Result<ClientCapabilities, ()>>,
    /// `io.modelcontextprotocol/logLevel`.
    pub(crate) log_level: Option<LogLevel>,
    /// `progressToken`, as its JSON text.
    pub(crate) progress_token: Option<Box<RawValue>>,
    /// `traceparent`, when it is a valid W3C trace parent.
    pub(crate) traceparent: Option<TraceParent>,
    /// `dev.pedelec/idempotencyKey`, when a string (`#[tool(exactly_once)]`).
    pub(crate) idempotency_key: Option<String>,
}

#[derive(Deserialize)]
struct RawMeta<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow)]
    protocol_version: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities", borrow)]
    client_capabilities: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/logLevel", borrow)]
    log_level: Option<&'a RawValue>,
    #[serde(rename = "progressToken", borrow)]
    progress_token: Option<&'a RawValue>,
    #[serde(borrow)]
    traceparent: Option<&'a RawValue>,
    #[serde(borrow)]
    tracestate: Option<&'a RawValue>,
    #[serde(rename = "dev.pedelec/idempotencyKey", borrow)]
    idempotency_key: Option<&'a RawValue>,
}

impl Meta {
    /// Reads `_meta` (its JSON text). `Err` when it is not an object.
    pub(crate) fn parse(raw: Option<&str>) -> Result<Meta, ()> {
        let Some(raw) = raw else {
            return Ok(Meta::default());
        };
        let read: RawMeta<'_> = serde_json::from_str(raw).map_err(|_| ())?;
        let string = |v: Option<&RawValue>| {
            v.filter(|v| v.get() != "null")
                .map(|v| serde_json::from_str::<String>(v.get()).map_err(|_| ()))
        };
        let tracestate = string(read.tracestate).and_then(Result::ok);
        Ok(Meta {
            protocol_version: string(read.protocol_version),
            client_capabilities: read
                .client_capabilities
                .filter(|v| v.get() != "null")
                .map(|v| {
                    if v.get().trim_start().starts_with('{') {
                        serde_json::from_str::<ClientCapabilities>(v.get()).map_err(|_| ())
                    } else {
                        Err(())
                    }
                }),
            log_level: string(read.log_level)
                .and_then(Result::ok)
                .and_then(|l| LogLevel::from_name(&l)),
            progress_token: read
                .progress_token
                .filter(|t| matches!(t.get().as_bytes().first(), Some(b'"' | b'-' | b'0'..=b'9')))
                .map(RawValue::to_owned),
            traceparent: string(read.traceparent)
                .and_then(Result::ok)
                .and_then(|t| TraceParent::parse(&t, tracestate)),
            idempotency_key: string(read.idempotency_key)
                .and_then(Result::ok)
                .filter(|k| !k.is_empty()),
        })
    }

    /// The protocol version it names, when it names one as a string.
    pub(crate) fn version(&self) -> Option<&str> {
        match &self.protocol_version {
            Some(Ok(v)) => Some(v),
            _ => None,
        }
    }

    /// The client's capabilities, when given and well-formed.
    pub(crate) fn capabilities(&self) -> Option<&ClientCapabilities> {
        match &self.client_capabilities {
            Some(Ok(c)) => Some(c),
            _ => None,
        }
    }

    /// The fields 2026-07-28 requires that are missing or malformed.
    pub(crate) fn missing_required(&self) -> Vec<&'static str> {
        let mut missing = Vec::new();
        if !matches!(self.protocol_version, Some(Ok(_))) {
            missing.push("io.modelcontextprotocol/protocolVersion");
        }
        if !matches!(self.client_capabilities, Some(Ok(_))) {
            missing.push("io.modelcontextprotocol/clientCapabilities");
        }
        missing
    }
}

/// The error of a request whose `_meta` lacks what its revision requires (`-32602`, HTTP
/// 400).
pub(crate) fn missing_meta_error(missing: &[&str]) -> ErrorData {
    ErrorData::invalid_params(
        format!(
            "Invalid params: request _meta is missing or has malformed required fields: {}",
            missing.join(", ")
        ),
        None,
    )
}

/// A W3C trace context parent (`traceparent`, <https://www.w3.org/TR/trace-context/>) a
/// request carried in its `_meta`: the call's span is made a child of the span it names.
///
/// The call's `tools/call` span keeps it (the fields `trace_id`, `parent_span_id` and
/// `traceparent`; with the feature `otel`, as the span's OpenTelemetry parent), and the MCP
/// bridges give it to a [`trace_span`](super::Mcp::trace_span) hook (on [`Mcp`](super::Mcp)
/// and [`McpHttp`](crate::bridge::McpHttp)) to make a span around the call.
#[derive(Clone, PartialEq, Eq)]
pub struct TraceParent {
    text: String,
    tracestate: Option<String>,
}

impl TraceParent {
    /// Reads a `traceparent` value (`00-<trace-id>-<parent-id>-<flags>`, lower-case hex,
    /// neither id all zeros); `None` when it is not one. Later versions' extra fields are
    /// ignored, as the W3C recommendation asks.
    #[must_use]
    pub fn parse(text: &str, tracestate: Option<String>) -> Option<TraceParent> {
        let hex = |s: &str, len: usize| {
            s.len() == len
                && s.bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        };
        let mut parts = text.split('-');
        let version = parts.next()?;
        let trace_id = parts.next()?;
        let parent_id = parts.next()?;
        let flags = parts.next()?;
        let rest_ok = version != "00" || parts.next().is_none();
        let valid = hex(version, 2)
            && version != "ff"
            && hex(trace_id, 32)
            && trace_id.bytes().any(|b| b != b'0')
            && hex(parent_id, 16)
            && parent_id.bytes().any(|b| b != b'0')
            && hex(flags, 2)
            && rest_ok;
        valid.then(|| TraceParent {
            text: text.to_owned(),
            tracestate,
        })
    }

    /// The whole value, as sent.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The trace's id: 32 hex digits.
    #[must_use]
    pub fn trace_id(&self) -> &str {
        &self.text[3..35]
    }

    /// The id of the caller's span, the parent of the call's: 16 hex digits.
    #[must_use]
    pub fn parent_id(&self) -> &str {
        &self.text[36..52]
    }

    /// Whether the caller sampled the trace (flag `01`).
    #[must_use]
    pub fn sampled(&self) -> bool {
        u8::from_str_radix(&self.text[53..55], 16).is_ok_and(|f| f & 1 == 1)
    }

    /// The `tracestate` sent with it, if any.
    #[must_use]
    pub fn tracestate(&self) -> Option<&str> {
        self.tracestate.as_deref()
    }
}

impl fmt::Debug for TraceParent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("TraceParent").field(&self.text).finish()
    }
}

impl fmt::Display for TraceParent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trace_parents_are_read_as_the_w3c_says() {
        let t = TraceParent::parse(
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            None,
        )
        .unwrap();
        assert_eq!(t.trace_id(), "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(t.parent_id(), "00f067aa0ba902b7");
        assert!(t.sampled());
        for bad in [
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
        ] {
            assert!(TraceParent::parse(bad, None).is_none(), "{bad}");
        }
        assert!(
            TraceParent::parse(
                "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00-later",
                None
            )
            .is_some()
        );
    }

    #[test]
    fn meta_fields_are_read_and_judged() {
        let m = Meta::parse(Some(r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/logLevel":"debug","progressToken":5}"#)).unwrap();
        assert_eq!(m.version(), Some("2026-07-28"));
        assert!(m.capabilities().unwrap().elicitation.is_some());
        assert_eq!(m.log_level, Some(LogLevel::Debug));
        assert_eq!(m.progress_token.as_ref().unwrap().get(), "5");
        assert!(m.missing_required().is_empty());
        let bad = Meta::parse(Some(r#"{"io.modelcontextprotocol/protocolVersion":7,"io.modelcontextprotocol/clientCapabilities":[]}"#)).unwrap();
        assert_eq!(bad.missing_required().len(), 2);
        assert!(Meta::parse(Some("[]")).is_err());
        assert!(Meta::parse(None).unwrap().missing_required().len() == 2);
    }
}
