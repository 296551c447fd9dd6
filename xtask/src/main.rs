//! `cargo xtask <task>`: project chores.

fn main() {
    eprintln!("usage: cargo xtask <ci|bless|expand|manifest|bench>");
    std::process::exit(2);
}
