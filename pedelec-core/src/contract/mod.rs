//! Contracts: a skill set compared with a committed lock file (`tools.lock.json`), every
//! change sorted into breaking or compatible, and a breaking change refused unless the
//! tool's `version` went up.
//!
//! A test in the user's crate holds the contract:
//!
//! ```ignore
//! #[test]
//! fn the_tools_keep_their_contract() {
//!     pedelec::contract::check("tests/tools.lock.json", &ToolName::skills()).unwrap();
//! }
//! ```
//!
//! [`check`]`(path, &tools)`:
//!
//! - with no file at `path`, writes it and passes, except when `CI` is set (to anything but
//!   `""`, `0` or `false`): a CI run fails instead, so a lock file is never made where
//!   nobody commits it;
//! - with `PEDELEC_CONTRACT=update` in the environment, writes it and passes (the
//!   [`Report`] lists what the new file accepts);
//! - otherwise compares, and fails with a [`ContractError`] listing every change when one
//!   is breaking and its tool's `version` did not go up; compatible changes pass and are in
//!   the [`Report`].
//!
//! A lock entry ([`LockEntry`]) is the tool's manifest entry (what Core receives), its MCP
//! `outputSchema` and its `version`, keyed by wire name. Lock a skill set
//! (`&ToolName::skills()`) to have output schemas and versions; a manifest
//! (`&ToolName::manifest()`) carries neither.
//!
//! # What breaks
//!
//! Arguments are sent by callers: a change that refuses arguments a caller could send
//! before breaks. Results are read by consumers: a change that lets results hold what a
//! consumer could not see before breaks. Each [`ChangeKind`]:
//!
//! | change | in an argsSchema | in an outputSchema |
//! |---|---|---|
//! | tool removed, renamed; version lowered; output schema removed | breaking | |
//! | tool added; version raised; description, annotation, timeout changed; output schema added | compatible | |
//! | property added | breaking if required | compatible |
//! | property removed | breaking if the object is closed (`additionalProperties: false`) | breaking |
//! | property made required / optional | breaking / compatible | compatible / breaking |
//! | `type` changed | compatible only if widened (`integer` → `number`) | compatible only if narrowed |
//! | enum value removed / added | breaking / compatible | compatible / breaking |
//! | bound tightened / loosened (`minimum`, `maxLength`, `minItems`, `pattern` or `format` added, `multipleOf`, `uniqueItems`, `additionalProperties` closed, `items` or `enum` added, …) | breaking / compatible | compatible / breaking |
//! | `oneOf`/`anyOf` variant removed / added (compared by position) | breaking / compatible | compatible / breaking |
//! | `pattern` or `format` replaced, `$ref` changed, any other keyword changed | breaking | breaking |
//!
//! Schemas are walked structurally: properties, `required`, `items`, nested objects,
//! `additionalProperties` schemas, `oneOf`/`anyOf` variants and the `$defs` a `$ref` points
//! into, each change at its JSON pointer.
//!
//! # Example
//!
//! ```
//! use pedelec_core::contract::{self, ChangeKind, ContractError, Lock};
//! use pedelec_core::SkillsInput;
//! use serde_json::json;
//!
//! let skills = |max: u64, version: u32| {
//!     SkillsInput::from_json(&json!({"guidance": "Count.", "tools": [{
//!         "name": "update_counter",
//!         "description": "Update the counter by delta.",
//!         "argsSchema": {
//!             "type": "object",
//!             "properties": {"delta": {"type": "integer", "maximum": max}},
//!             "required": ["delta"]
//!         },
//!         "version": version
//!     }]}))
//! };
//! let dir = std::env::temp_dir().join(format!("pedelec-contract-doc-{}", std::process::id()));
//! let path = dir.join("tools.lock.json");
//! std::fs::create_dir_all(&dir)?;
//! // The committed lock file (`check` writes it when there is none).
//! std::fs::write(&path, Lock::from(&skills(100, 1)?).to_json_string())?;
//!
//! // A bound loosened: compatible, it passes and is reported.
//! let report = contract::check(&path, &skills(1000, 1)?)?;
//! assert!(matches!(report.changes()[0].kind, ChangeKind::BoundLoosened { .. }));
//!
//! // A bound tightened: breaking.
//! let error = contract::check(&path, &skills(10, 1)?).unwrap_err();
//! assert!(matches!(error, ContractError::Breaking { .. }));
//! assert!(error.to_string().contains(
//!     "`update_counter` at /argsSchema/properties/delta/maximum: bound tightened: \
//!      `maximum` 100 → 10 (breaking)"
//! ));
//!
//! // The same change with the tool's version raised: it passes.
//! let report = contract::check(&path, &skills(10, 2)?)?;
//! assert_eq!(report.changes().len(), 2); // the version, and the bound
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod change;
mod diff;
mod lock;
mod report;

use std::io;
use std::path::Path;
use std::sync::Arc;

pub use change::{Change, ChangeKind};
pub use lock::{Lock, LockEntry};
pub use report::{ContractError, Report};

/// Checks `tools` (a skill set, `&ToolName::skills()`, or a manifest) against the lock file
/// at `path` (relative to the current directory: a crate's root under `cargo test`); see
/// the [module](self) for when it writes the file and what breaks.
///
/// # Errors
/// [`ContractError::Breaking`] for a breaking change of a tool whose `version` did not go
/// up, [`ContractError::Missing`] for a missing file under `CI`, and
/// [`ContractError::Io`] or [`ContractError::Malformed`] when the file cannot be read,
/// parsed or written.
pub fn check(path: impl AsRef<Path>, tools: impl Into<Lock>) -> Result<Report, ContractError> {
    check_in(path.as_ref(), &tools.into(), Env::of_process())
}

/// What the environment asks of a check.
#[derive(Clone, Copy, Debug, Default)]
struct Env {
    /// `PEDELEC_CONTRACT=update`: write the lock file whatever it holds.
    update: bool,
    /// `CI` is set: never make a missing lock file.
    ci: bool,
}

impl Env {
    fn of_process() -> Self {
        Env {
            update: std::env::var("PEDELEC_CONTRACT").is_ok_and(|v| v == "update"),
            ci: std::env::var("CI").is_ok_and(|v| !matches!(v.as_str(), "" | "0" | "false")),
        }
    }
}

/// [`check`] with the environment given.
fn check_in(path: &Path, current: &Lock, env: Env) -> Result<Report, ContractError> {
    let io_error = |source: io::Error| ContractError::Io {
        path: path.to_owned(),
        source: Arc::new(source),
    };
    let locked = match std::fs::read_to_string(path) {
        Ok(text) => match Lock::from_json_str(&text) {
            Ok(lock) => Some(lock),
            // Being replaced: what it held does not matter.
            Err(_) if env.update => None,
            Err(message) => {
                return Err(ContractError::Malformed {
                    path: path.to_owned(),
                    message,
                });
            }
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(io_error(e)),
    };
    let write = || -> Result<(), ContractError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io_error)?;
        }
        std::fs::write(path, current.to_json_string()).map_err(io_error)
    };
    let report = |changes, written| Report {
        path: path.to_owned(),
        changes,
        written,
    };
    match locked {
        Some(locked) if !env.update => {
            let changes = diff::diff(&locked, current);
            if report::fails(&changes) {
                Err(ContractError::Breaking {
                    path: path.to_owned(),
                    changes,
                })
            } else {
                Ok(report(changes, false))
            }
        }
        Some(locked) => {
            write()?;
            Ok(report(diff::diff(&locked, current), true))
        }
        None if env.ci && !env.update => Err(ContractError::Missing {
            path: path.to_owned(),
        }),
        None => {
            write()?;
            Ok(report(Vec::new(), true))
        }
    }
}

#[cfg(test)]
mod tests;
