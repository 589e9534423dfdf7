//! The end-to-end CLI suite of `cli.rs` again, with every `lore` run keeping its catalog,
//! BM25 and vectors in a fresh PostgreSQL database (`LORE_TEST_DATABASE_URL`, started by
//! `.ci/postgres`): the same commands must give the same answers on both backends.
//! Without a server (and outside CI) the worlds are not created and the tests skip.

const ON_POSTGRES: bool = true;

#[path = "cli.rs"]
#[allow(dead_code)]
mod suite;
