//! `McpHttp::oauth` against a real authorization server: `oidc-provider` from npm (installed
//! by `cargo xtask mcp-clients` into `target/mcp-clients/oidc`), started here with the
//! client credentials grant and resource indicators (RFC 8707), so that its access tokens
//! are JWTs whose `aud` is the resource asked for. The server discovers the issuer's keys
//! through its metadata, accepts a token issued for this resource, and refuses one issued
//! for another.
//!
//! Without the install, the test prints a notice and passes; with `CI` set, it fails.

use std::io::{BufRead, BufReader};
use std::net::{SocketAddr, TcpListener as StdListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use pedelec_core::bridge::{McpHttp, OAuth};
use pedelec_core::schema::{Property, SchemaNode};
use pedelec_core::{Session, SkillsInput, ToolArgsSchema, ToolCallContext, ToolDefinition};
use serde_json::{Value, json};
use tokio::net::TcpListener;

/// Where `cargo xtask mcp-clients` installs `oidc-provider`.
fn oidc_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(
            || Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"),
            PathBuf::from,
        )
        .join("mcp-clients/oidc")
}

/// The authorization server process, stopped when the test ends.
struct AuthorizationServer {
    child: Child,
    issuer: String,
}

impl Drop for AuthorizationServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    StdListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port()
}

/// `oidc-provider` on a free port, issuing tokens for `resources`; `None` (with a notice)
/// when it is not installed and `CI` is not set.
fn start_authorization_server(resources: &[&str]) -> Option<AuthorizationServer> {
    let dir = oidc_dir();
    let installed = dir.join("node_modules/oidc-provider/package.json").exists()
        && Command::new("node")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
    if !installed {
        let notice = format!(
            "oidc-provider is not installed in {} (or Node.js is missing): run `cargo xtask \
             mcp-clients`",
            dir.display()
        );
        assert!(
            std::env::var_os("CI").is_none(),
            "{notice} (required when CI is set)"
        );
        println!("skipped: {notice}");
        return None;
    }
    let port = free_port();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oauth_e2e/issuer.mjs");
    let mut child = Command::new("node")
        .arg(script)
        .arg(port.to_string())
        .args(resources)
        .env("OIDC_PROVIDER_NODE", &dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("node starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .expect("the authorization server says where it is");
    let ready: Value = serde_json::from_str(&line)
        .unwrap_or_else(|e| panic!("the authorization server did not start ({e}): {line:?}"));
    Some(AuthorizationServer {
        child,
        issuer: ready["issuer"].as_str().unwrap().to_owned(),
    })
}

/// `application/x-www-form-urlencoded` for a value.
fn form_value(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            b' ' => "+".to_owned(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// An access token from the authorization server's token endpoint (client credentials),
/// for `resource` with `scope`.
async fn token(issuer: &str, resource: &str, scope: &str) -> String {
    let body = format!(
        "grant_type=client_credentials&scope={}&resource={}",
        form_value(scope),
        form_value(resource)
    );
    let response = reqwest::Client::new()
        .post(format!("{issuer}/token"))
        .basic_auth("pedelec-test", Some("pedelec-secret"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await
        .unwrap();
    let status = response.status();
    let answer: Value = response.json().await.unwrap();
    assert_eq!(status, 200, "{answer}");
    answer["access_token"].as_str().unwrap().to_owned()
}

const NO_ARGS: SchemaNode = SchemaNode::object(const { &[] as &[Property] }).closed();

/// `whoami` (`counter:read`) and `reset` (`counter:write`): who called, with which scopes.
fn session() -> Session {
    let tool = |name: &str, scope: &str| {
        ToolDefinition::new(
            name.to_owned(),
            "Say who is calling.",
            ToolArgsSchema::from_node(NO_ARGS),
        )
        .with_scopes([scope.to_owned()])
    };
    let skills = SkillsInput::new(
        "",
        vec![
            tool("whoami", "counter:read"),
            tool("reset", "counter:write"),
        ],
    );
    let session = Session::builder(skills).create().unwrap();
    for name in ["whoami", "reset"] {
        session.on_tool_name(name, |_args: Value, ctx: ToolCallContext| async move {
            let caller = ctx.caller().expect("a caller");
            Ok::<_, pedelec_core::ToolError>(json!({
                "subject": caller.subject(),
                "clientId": caller.client_id(),
                "scopes": caller.scopes(),
            }))
        });
    }
    session
}

async fn post(addr: SocketAddr, token: &str, body: &Value) -> reqwest::Response {
    reqwest::Client::new()
        .post(format!("http://{addr}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .header("authorization", format!("Bearer {token}"))
        .body(body.to_string())
        .send()
        .await
        .unwrap()
}

fn call(name: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
           "params": {"name": name, "arguments": {}}})
}

#[tokio::test]
async fn tokens_from_oidc_provider_are_accepted_for_this_resource_only() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let resource = format!("http://{addr}/mcp");
    let other = "https://other.example.com/mcp";
    let Some(authorization_server) = start_authorization_server(&[&resource, other]) else {
        return;
    };
    let issuer = authorization_server.issuer.clone();
    let auth = OAuth::new(&resource).issuer(&issuer);
    tokio::spawn(session().serve(McpHttp::from_listener(listener).oauth(auth)));

    // A token issued for this resource: accepted (its keys found through the issuer's
    // metadata), the caller being the client (`sub`, `client_id`) with the scope granted.
    let mine = token(&issuer, &resource, "counter:read").await;
    let r = post(addr, &mine, &call("whoami")).await;
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.unwrap();
    assert_eq!(
        body["result"]["structuredContent"],
        json!({"subject": "pedelec-test", "clientId": "pedelec-test", "scopes": ["counter:read"]}),
        "{body}"
    );
    // Without `counter:write`: the step-up challenge.
    let r = post(addr, &mine, &call("reset")).await;
    assert_eq!(r.status(), 403);
    let challenge = r.headers()["www-authenticate"].to_str().unwrap();
    assert!(
        challenge.starts_with("Bearer error=\"insufficient_scope\"")
            && challenge.contains("scope=\"counter:write\""),
        "{challenge}"
    );
    // With it, after asking the authorization server for it.
    let more = token(&issuer, &resource, "counter:read counter:write").await;
    assert_eq!(post(addr, &more, &call("reset")).await.status(), 200);

    // A token the same issuer issued for another resource: refused.
    let theirs = token(&issuer, other, "counter:read").await;
    let r = post(addr, &theirs, &call("whoami")).await;
    assert_eq!(r.status(), 401);
    let challenge = r.headers()["www-authenticate"].to_str().unwrap();
    assert!(
        challenge.starts_with("Bearer error=\"invalid_token\"")
            && challenge.contains("not for this resource"),
        "{challenge}"
    );
    drop(authorization_server);
    tokio::time::sleep(Duration::from_millis(10)).await;
}
