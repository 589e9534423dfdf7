//! The end-to-end suite of `cli.rs` again, with every `lore` run keeping its catalog,
//! BM25 and vectors in a fresh PostgreSQL database (`LORE_TEST_DATABASE_URL`, started by
//! `.ci/postgres`): the same commands must give the same answers on both backends.
//! Without a server (outside CI) the tests that need the model skip.

const ON_POSTGRES: bool = true;

mod common;

include!("cli/suite.rs");
