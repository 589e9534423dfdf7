//! Phase 5b (`lore bench --database URL`): the query store of phase 5, vectors included,
//! copied into PostgreSQL by `db import` and timed with the same queries, side by side with
//! the embedded backend in one run, first reading the database, then the read copy a
//! server keeps of it; then removed from the database.

use crate::corpus::Scratch;
use crate::queries;
use crate::report::{HnswReport, HnswRun, PostgresReport};
use crate::stats::summarize;
use crate::{DATA, STORE, status};
use anyhow::{Context, bail};
use lore_engine::{Engine, Progress};
use lore_index::VectorIndex;
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
    let vectors = copied.iter().map(|c| c.copied.vectors).sum();
    let timed = queries::latency(pg, repeats);
    let hnsw = hnsw_recall(pg, url);
    status("building the server's read copy of the store, then the same queries");
    let started = Instant::now();
    let copied_store = pg.build_replica(STORE);
    let copy_secs = started.elapsed().as_secs_f64();
    let copy_timed = copied_store.map(|_| queries::latency(pg, repeats));
    let removed = pg.remove_store(STORE);
    let modes = timed?;
    let hnsw = hnsw?;
    let copy_modes = copy_timed.context("building the read copy")??;
    removed.context("removing the bench store from PostgreSQL")?;
    Ok(PostgresReport {
        database: lore_index::redact_url(url),
        import_secs,
        chunks,
        vectors,
        modes,
        copy_secs,
        copy_modes,
        hnsw,
    })
}

/// `hnsw.ef_search` values tried against exact search.
const EF_SEARCH: [usize; 4] = [40, 100, 200, 400];

/// With an HNSW index on the store: the raw vector search (no hydration) at each
/// `ef_search` against the exact scan, recall@10 and latency over the bench's queries.
fn hnsw_recall(pg: &Engine, url: &str) -> anyhow::Result<Option<HnswReport>> {
    let store = pg.store_record(STORE)?.id;
    let catalog = lore_index::Catalog::connect(url, &lore_index::PgOptions::default())?;
    if catalog.vector_index_dim(store)?.is_none() {
        return Ok(None);
    }
    let Ok(embedder) = pg.embedder(false, &lore_engine::NoProgress) else {
        return Ok(None);
    };
    status("HNSW recall@10 against the exact scan");
    let exact = lore_index::PgVectors::new(store);
    let mut queries = Vec::new();
    let mut exact_ms = Vec::new();
    for q in queries::QUERIES {
        let v = embedder.embed_query(q)?;
        let started = Instant::now();
        let top: Vec<i64> = exact
            .search(&catalog, &v, 10)?
            .into_iter()
            .map(|h| h.0)
            .collect();
        exact_ms.push(started.elapsed().as_secs_f64() * 1000.0);
        queries.push((v, top));
    }
    let mut runs = Vec::new();
    for ef in EF_SEARCH {
        let hnsw = lore_index::PgVectors::open(&catalog, store, ef)?;
        let (mut found, mut ms) = (0usize, Vec::new());
        for (v, top) in &queries {
            let started = Instant::now();
            let got = hnsw.search(&catalog, v, 10)?;
            ms.push(started.elapsed().as_secs_f64() * 1000.0);
            found += got.iter().filter(|h| top.contains(&h.0)).count();
        }
        runs.push(HnswRun {
            ef_search: ef,
            recall_at_10: found as f64 / (queries.len() * 10).max(1) as f64,
            latency: summarize(ms),
        });
    }
    Ok(Some(HnswReport {
        note: "the bench's vectors are random (no neighbourhoods), so this recall is a floor: \
               embeddings cluster, and HNSW finds far more of their exact top 10",
        min_vectors: lore_index::HNSW_MIN_VECTORS,
        ef_search_default: lore_index::HNSW_EF_SEARCH,
        exact: summarize(exact_ms),
        runs,
    }))
}
