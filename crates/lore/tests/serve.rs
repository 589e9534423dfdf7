//! End-to-end tests of lore serving agents and tools: real MCP clients (the official Python
//! SDK over stdio and streamable HTTP, and the Inspector CLI when present), REST through a
//! real HTTP client, jobs, the single writer, and freshness under a watcher (folder stores
//! and the brain; ignored paths schedule nothing).
//!
//! Tests that index need the embedding model (`LORE_MODEL_DIR`); MCP client tests need the
//! Python `mcp` package. Without them they skip locally and fail under CI.

/// Whether `lore` keeps its catalog in PostgreSQL here (the `*_postgres` suites).
const ON_POSTGRES: bool = false;

mod common;

include!("serve/suite.rs");
