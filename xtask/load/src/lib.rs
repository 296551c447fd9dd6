//! The servers and the load generator behind `cargo xtask load` (`xtask/src/load.rs`).
//!
//! - [`stats`]: latency percentiles from a sorted sample;
//! - [`procfs`]: a process's memory and CPU time from `/proc`;
//! - [`wire`]: the MCP requests the generator sends (pre-encoded) and how it checks answers;
//! - [`catalog`]: the TM Dev Lab v2 benchmark's HTTP dependency (its product catalog);
//! - [`tmdevlab`]: the benchmark's three tools, one implementation that both servers call.

pub mod catalog;
pub mod procfs;
pub mod stats;
pub mod tmdevlab;
pub mod wire;
