//! Gateways (placeholder until written).
