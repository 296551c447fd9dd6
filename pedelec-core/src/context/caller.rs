//! [`Caller`]: who makes a call, and which OAuth scopes they hold.

use std::fmt;

use serde_json::{Map, Value};

/// Who makes a call: the subject of the access token (or whatever identity the bridge
/// established), the OAuth scopes granted, the client, and the token's claims.
///
/// A bridge sets it for every call it makes (`McpHttp` from the access token, `JsonLines`
/// from [`JsonLines::caller`](crate::bridge::JsonLines::caller)); an in-process caller gives
/// it with [`CallOptions::caller`](crate::CallOptions::caller). A handler reads it with
/// [`ToolCallContext::caller`](super::ToolCallContext::caller). A tool declared with
/// `#[tool(scopes = [...])]` is answered `TOOL_FORBIDDEN`, before its args are validated,
/// when the caller does not hold every one of them.
///
/// ```
/// use pedelec_core::context::Caller;
///
/// let alice = Caller::new("alice").with_scopes(["counter:read"]);
/// assert!(alice.holds("counter:read"));
/// assert_eq!(alice.missing(&["counter:read", "counter:write"]), ["counter:write"]);
/// ```
#[derive(Clone, PartialEq)]
pub struct Caller {
    subject: String,
    scopes: Vec<String>,
    client_id: Option<String>,
    claims: Map<String, Value>,
    every_scope: bool,
}

impl Caller {
    /// A caller identified by `subject` (the token's `sub`), holding no scope yet.
    #[must_use]
    pub fn new(subject: impl Into<String>) -> Self {
        Caller {
            subject: subject.into(),
            scopes: Vec::new(),
            client_id: None,
            claims: Map::new(),
            every_scope: false,
        }
    }

    /// The scopes granted (replacing earlier ones); duplicates are kept once.
    #[must_use]
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes.clear();
        for scope in scopes {
            let scope = scope.into();
            if !self.scopes.contains(&scope) {
                self.scopes.push(scope);
            }
        }
        self
    }

    /// A caller trusted with every scope (a static bearer token, a local Core): every
    /// [`holds`](Self::holds) is `true`, while [`scopes`](Self::scopes) lists only those
    /// granted by name.
    #[must_use]
    pub fn with_every_scope(mut self) -> Self {
        self.every_scope = true;
        self
    }

    /// The OAuth client the token was issued to (RFC 9068 `client_id`).
    #[must_use]
    pub fn with_client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// The token's claims, as JSON.
    #[must_use]
    pub fn with_claims(mut self, claims: Map<String, Value>) -> Self {
        self.claims = claims;
        self
    }

    /// The subject: who the token speaks for.
    #[must_use]
    pub fn subject(&self) -> &str {
        &self.subject
    }

    /// The scopes granted by name.
    #[must_use]
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// The OAuth client, when known.
    #[must_use]
    pub fn client_id(&self) -> Option<&str> {
        self.client_id.as_deref()
    }

    /// The token's claims (empty when the caller did not come from a token).
    #[must_use]
    pub fn claims(&self) -> &Map<String, Value> {
        &self.claims
    }

    /// Whether the caller holds `scope`.
    #[must_use]
    pub fn holds(&self, scope: &str) -> bool {
        self.every_scope || self.scopes.iter().any(|s| s == scope)
    }

    /// Whether the caller holds every scope of `required`.
    #[must_use]
    pub fn holds_all<S: AsRef<str>>(&self, required: &[S]) -> bool {
        required.iter().all(|s| self.holds(s.as_ref()))
    }

    /// Whether `caller` (`None`: anonymous) may call a tool requiring `scopes`: a tool
    /// without scopes is open to every caller, one with scopes to a caller holding them all
    /// (an anonymous caller holds none). What `tools/list` and searches show follows it.
    #[must_use]
    pub fn may_call<S: AsRef<str>>(caller: Option<&Caller>, scopes: &[S]) -> bool {
        scopes.is_empty() || caller.is_some_and(|c| c.holds_all(scopes))
    }

    /// The scopes of `required` the caller does not hold, in their order.
    #[must_use]
    pub fn missing<'a, S: AsRef<str>>(&self, required: &'a [S]) -> Vec<&'a str> {
        required
            .iter()
            .map(AsRef::as_ref)
            .filter(|s| !self.holds(s))
            .collect()
    }
}

impl fmt::Debug for Caller {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The claims may hold personal data: only their names are shown.
        f.debug_struct("Caller")
            .field("subject", &self.subject)
            .field("scopes", &self.scopes)
            .field("every_scope", &self.every_scope)
            .field("client_id", &self.client_id)
            .field("claims", &self.claims.keys().collect::<Vec<_>>())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_are_held_by_name_or_all_at_once() {
        let c = Caller::new("alice")
            .with_scopes(["a", "b", "a"])
            .with_client_id("app");
        assert_eq!(c.scopes(), ["a", "b"]);
        assert!(c.holds("a") && !c.holds("c"));
        assert!(c.holds_all(&["a", "b"]) && !c.holds_all(&["a", "c"]));
        assert_eq!(c.missing(&["c", "a", "d"]), ["c", "d"]);
        assert_eq!(c.client_id(), Some("app"));
        let trusted = Caller::new("bearer").with_every_scope();
        assert!(trusted.holds("anything") && trusted.scopes().is_empty());
        assert!(trusted.missing(&["x"]).is_empty());
        let mut claims = Map::new();
        claims.insert("email".into(), "a@example.com".into());
        let shown = format!("{:?}", c.with_claims(claims));
        assert!(
            shown.contains("\"email\"") && !shown.contains("a@example.com"),
            "{shown}"
        );
    }
}
