//! `cargo xtask mcp-clients`: installs the official MCP clients that `tests/mcp_clients.rs`
//! drives, pinned, into `target/mcp-clients/` (or `$CARGO_TARGET_DIR/mcp-clients/`):
//!
//! - `py/`: a Python virtual environment with the `mcp` package from `PyPI`;
//! - `node/`: `@modelcontextprotocol/sdk` (v1 of the TypeScript SDK, MCP 2025-11-25) from
//!   the npm registry;
//! - `node-v2/`: `@modelcontextprotocol/client` (v2, MCP 2026-07-28) and the tasks
//!   extension's client `@modelcontextprotocol/ext-tasks`, from the npm registry;
//! - `oidc/`: `oidc-provider` from the npm registry, the `OpenID` Connect / OAuth 2.0
//!   authorization server `pedelec-core/tests/oauth_e2e.rs` starts (`oauth_e2e/issuer.mjs`)
//!   to issue real access tokens;
//! - `everything/`: `@modelcontextprotocol/server-everything`, the reference MCP server
//!   the gateway tests mount behind a session (`pedelec-core/tests/gateway.rs`,
//!   `tests/mcp_clients.rs`).
//!
//! Each is skipped when the pinned version is already there, so CI runs it before every
//! test run at the cost of a few version checks.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The Python SDK (`mcp` on `PyPI`).
pub const PYTHON_SDK: (&str, &str) = ("mcp", "2.3.0");
/// The TypeScript SDK (npm `@modelcontextprotocol/sdk`).
pub const NODE_SDK: (&str, &str) = ("@modelcontextprotocol/sdk", "1.32.2");
/// v2 of the TypeScript SDK's client (npm `@modelcontextprotocol/client`): MCP 2026-07-28.
pub const NODE_SDK_V2: (&str, &str) = ("@modelcontextprotocol/client", "2.4.0");
/// The tasks extension's client, on top of [`NODE_SDK_V2`].
pub const NODE_TASKS: (&str, &str) = ("@modelcontextprotocol/ext-tasks", "0.2.2");
/// The authorization server of the OAuth end-to-end test (npm `oidc-provider`).
pub const OIDC_PROVIDER: (&str, &str) = ("oidc-provider", "9.13.3");

/// The TypeScript compiler (npm `typescript`): code mode's declarations are checked with it.
pub const TYPESCRIPT: (&str, &str) = ("typescript", "7.0.2");

/// The reference MCP server the gateway tests mount (npm
/// `@modelcontextprotocol/server-everything`; its entry is `dist/index.js`).
pub const EVERYTHING_SERVER: (&str, &str) =
    ("@modelcontextprotocol/server-everything", "2026.8.31");

/// Where the clients live: `<target dir>/mcp-clients`.
pub fn clients_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| root.join("target"), PathBuf::from)
        .join("mcp-clients")
}

/// Installs both clients unless already present.
pub fn install(root: &Path) -> Result<(), String> {
    let dir = clients_dir(root);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    install_python(&dir.join("py"))?;
    install_npm(&dir.join("node"), NODE_SDK)?;
    install_npm(&dir.join("node-v2"), NODE_SDK_V2)?;
    install_npm(&dir.join("node-v2"), NODE_TASKS)?;
    install_npm(&dir.join("oidc"), OIDC_PROVIDER)?;
    install_npm(&dir.join("everything"), EVERYTHING_SERVER)?;
    install_npm(&dir.join("tsc"), TYPESCRIPT)?;
    Ok(())
}

fn install_python(venv: &Path) -> Result<(), String> {
    let (package, version) = PYTHON_SDK;
    let python = venv.join("bin/python");
    let installed = || {
        output(Command::new(&python).args([
            "-c",
            &format!("import importlib.metadata as m; print(m.version({package:?}))"),
        ]))
        .ok()
        .is_some_and(|out| out.trim() == version)
    };
    if python.exists() && installed() {
        println!(
            "mcp-clients: Python `{package}` {version} already in {}",
            venv.display()
        );
        return Ok(());
    }
    println!(
        "mcp-clients: installing Python `{package}` {version} into {}",
        venv.display()
    );
    output(Command::new("python3").args(["-m", "venv"]).arg(venv)).map_err(|e| {
        format!("cannot create a Python virtual environment (python3 with venv is needed; on Debian `apt-get install python3-venv`): {e}")
    })?;
    output(
        Command::new(venv.join("bin/pip"))
            .args(["install", "--disable-pip-version-check", "--quiet"])
            .arg(format!("{package}=={version}")),
    )
    .map_err(|e| {
        format!("cannot install `{package}=={version}` from PyPI (is the registry reachable?): {e}")
    })?;
    if !installed() {
        return Err(format!(
            "pip finished but `{package}` {version} is not importable from {}",
            python.display()
        ));
    }
    Ok(())
}

fn install_npm(dir: &Path, (package, version): (&str, &str)) -> Result<(), String> {
    let manifest = dir.join("node_modules").join(package).join("package.json");
    let installed = || {
        std::fs::read_to_string(&manifest)
            .is_ok_and(|text| text.contains(&format!("\"version\": \"{version}\"")))
    };
    if installed() {
        println!(
            "mcp-clients: npm `{package}` {version} already in {}",
            dir.display()
        );
        return Ok(());
    }
    println!(
        "mcp-clients: installing npm `{package}` {version} into {}",
        dir.display()
    );
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let package_json = dir.join("package.json");
    if !package_json.exists() {
        std::fs::write(
            &package_json,
            "{\"name\": \"pedelec-mcp-clients\", \"version\": \"0.0.0\", \"private\": true}\n",
        )
        .map_err(|e| format!("cannot write {}: {e}", package_json.display()))?;
    }
    output(
        Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--save-exact", "--loglevel=error"])
            .arg(format!("{package}@{version}"))
            .current_dir(dir),
    )
    .map_err(|e| {
        format!("cannot install `{package}@{version}` from the npm registry (is it reachable? is Node.js with npm installed?): {e}")
    })?;
    if !installed() {
        return Err(format!(
            "npm finished but {} does not name version {version}",
            manifest.display()
        ));
    }
    Ok(())
}

/// Runs a command; its standard output, or an error with the end of what it printed.
fn output(command: &mut Command) -> Result<String, String> {
    let Output {
        status,
        stdout,
        stderr,
    } = command
        .output()
        .map_err(|e| format!("cannot run {}: {e}", command.get_program().display()))?;
    if status.success() {
        return Ok(String::from_utf8_lossy(&stdout).into_owned());
    }
    let stderr = String::from_utf8_lossy(&stderr);
    let tail: Vec<&str> = stderr.lines().rev().take(12).collect();
    let tail: Vec<&str> = tail.into_iter().rev().collect();
    Err(format!(
        "{} failed ({status}):\n{}",
        command.get_program().display(),
        tail.join("\n")
    ))
}
