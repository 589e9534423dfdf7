//! The MCP and REST end-to-end suite of `serve.rs` again, on PostgreSQL (see
//! `cli_postgres.rs`).

const ON_POSTGRES: bool = true;

#[path = "serve.rs"]
#[allow(dead_code)]
mod suite;
