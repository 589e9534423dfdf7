//! End-to-end tests of the `lore` binary. Each test runs the real binary against its own
//! temp data dir. Tests that index need the embedding model (`LORE_MODEL_DIR`); without it
//! they print "skipping: no model" and pass, unless `CI` is set.

/// Whether `lore` keeps its catalog in PostgreSQL here (the `*_postgres` suites).
const ON_POSTGRES: bool = false;

mod common;

include!("cli/suite.rs");

/// `lore bench` measures the embedded backend only: not in the shared suite.
#[path = "cli/bench.rs"]
mod bench;

/// `lore mcp install`: no data dir involved, so not in the shared suite.
#[path = "cli/agents.rs"]
mod agents;

/// The README and docs/ checked against the binary and the tree.
#[path = "cli/docs.rs"]
mod docs;
