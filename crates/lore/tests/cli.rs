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
