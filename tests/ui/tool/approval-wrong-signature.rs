use pedelec::{ToolArgs, tool};
use serde::Deserialize;

#[derive(Deserialize, ToolArgs)]
struct TransferArgs {
    /// Cents to move.
    cents: u64,
}

/// Takes the args by value and no caller.
fn large(args: TransferArgs) -> bool {
    args.cents > 100
}

/// Move money.
#[tool(approval = large)]
fn transfer(args: TransferArgs) -> u64 {
    args.cents
}

/// Answers a string.
fn maybe(_args: &TransferArgs, _caller: Option<&pedelec::context::Caller>) -> &'static str {
    "yes"
}

/// Move money again.
#[tool(approval = maybe)]
fn transfer_again(args: TransferArgs) -> u64 {
    args.cents
}

fn main() {}
