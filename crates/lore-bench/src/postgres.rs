//! Phase 5b (`lore bench --database URL`): the query store of phase 5, vectors included,
//! copied into PostgreSQL by `db import` and timed with the same queries, side by side with
//! the embedded backend in one run; then removed from the database.

use crate::corpus::Scratch;
use crate::queries;
use crate::report::PostgresReport;
use crate::{DATA, STORE, status};
use anyhow::{Context, bail};
use lore_engine::{Engine, Progress};
use std::time::Instant;

/// The scratch data dir of the PostgreSQL engine (its brain and models only).
const PG_DATA: &str = "pg";

/// Opens an engine on `url` with `engine`'s config and model (embeddings off: the store's
/// vectors are copied), refusing a database that already has the bench's store.
pub(crate) fn open(engine: &Engine, scratch: &Scratch, url: &str) -> anyhow::Result<Engine> {
    let pg = scratch.open_on(engine, PG_DATA, false, Some(url))?;
    if pg.stores()?.iter().any(|s| s.store.name == STORE) {
        bail!(
            "{} already has a store named {STORE}; bench with a database that has none \
             (it adds {STORE}, measures it and removes it)",
            lore_index::redact_url(url)
        );
    }
    Ok(pg)
}

pub(crate) fn measure(
    pg: &mut Engine,
    url: &str,
    scratch: &Scratch,
    repeats: usize,
    progress: &dyn Progress,
) -> anyhow::Result<PostgresReport> {
    status("copying the query store into PostgreSQL (db import)");
    let started = Instant::now();
    let copied = pg
        .db_import(&scratch.data_dir(DATA), progress)
        .context("copying the query store into PostgreSQL")?;
    let import_secs = started.elapsed().as_secs_f64();
    let chunks = copied.iter().map(|c| c.copied.chunks).sum();
    let timed = queries::latency(pg, repeats);
    let removed = pg.remove_store(STORE);
    let modes = timed?;
    removed.context("removing the bench store from PostgreSQL")?;
    Ok(PostgresReport {
        database: lore_index::redact_url(url),
        import_secs,
        chunks,
        modes,
    })
}
