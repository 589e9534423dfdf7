//! Copying a store between two catalogs — SQLite to PostgreSQL (`lore db import`) or back
//! (`lore db export`) — with its vectors, so nothing is embedded again, its code graph and
//! what agents taught about it. Store, symbol, import and reference ids are kept, so chunk
//! ids (which hash the store id) and resolved references stay valid; a store whose name or
//! id the target already has is refused.

use crate::IndexError;
use crate::catalog::{Catalog, ChunkRow, StoreRecord};
use crate::sql::{Dialect, Row, SqlError, args};

/// What one store's copy moved.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct CopyReport {
    pub files: u64,
    pub chunks: u64,
    pub vectors: u64,
    pub symbols: u64,
    pub references: u64,
    /// What agents taught about it (`feedback`).
    pub signals: u64,
}

/// The code-graph tables, copied row for row with their ids.
const FACT_TABLES: &[(&str, &str)] = &[
    (
        "symbols",
        "id, store_id, path, name, qualified, kind, container, signature, doc, exported, \
         is_async, is_test, start_line, end_line, start_byte, end_byte, returns, params, decorators",
    ),
    (
        "imports",
        "id, store_id, path, module, names, alias, wildcard, type_only, line, targets",
    ),
    (
        "refs",
        "id, store_id, path, kind, caller, name, receiver, line, target, confidence, how",
    ),
    ("bindings", "store_id, path, owner, name, value"),
    ("analyzer_state", "store_id, version"),
    ("graph_state", "store_id, resolved_generation"),
    (
        "feedback",
        "store_id, chunk_id, terms, weight, kind, client, at, shown_rank",
    ),
];

/// Files per transaction.
const BATCH: usize = 200;

/// Copies `store` from `from` into `to`; `progress(done, total)` after each batch of files.
pub fn copy_store(
    from: &Catalog,
    to: &mut Catalog,
    store: &StoreRecord,
    mut progress: impl FnMut(u64, u64),
) -> Result<CopyReport, IndexError> {
    if to.store(&store.name)?.is_some() {
        return Err(IndexError::StoreExists(store.name.clone()));
    }
    if to.store_by_id(store.id)?.is_some() {
        return Err(IndexError::Setup(format!(
            "store id {} is taken in {} (by another store): copy into a catalog without it",
            store.id,
            to.label()
        )));
    }
    let mut report = CopyReport::default();
    let manifest = from.manifest(store.id)?;
    let mut paths: Vec<&String> = manifest.keys().collect();
    paths.sort();
    let total = paths.len() as u64;
    let mut done = 0;
    {
        let tx = to.begin()?;
        tx.db.execute(
            "INSERT INTO stores (id, name, kind, source, root, branch, includes, excludes, \
             description, max_file_bytes, created_at, indexed_at, generation, web, embedder, host, \
             feedback, no_ignore) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)",
            args![
                store.id,
                &store.name,
                store.kind.as_str(),
                &store.source,
                store.root.to_string_lossy().into_owned(),
                &store.branch,
                serde_json::to_string(&store.includes).unwrap_or_else(|_| "[]".into()),
                serde_json::to_string(&store.excludes).unwrap_or_else(|_| "[]".into()),
                &store.description,
                store.max_file_bytes,
                store.created_at,
                store.indexed_at,
                store.generation,
                store
                    .web
                    .as_ref()
                    .and_then(|w| serde_json::to_string(w).ok()),
                &store.embedder,
                &store.host,
                i64::from(store.feedback),
                i64::from(store.no_ignore)
            ],
        )?;
        tx.commit()?;
    }
    for batch in paths.chunks(BATCH) {
        let tx = to.begin()?;
        for path in batch {
            let file = &manifest[*path];
            let chunks = from.file_chunks(store.id, path)?;
            let ids: Vec<i64> = chunks.iter().map(|c| c.id).collect();
            let vectors = from.embeddings(&ids)?;
            let rows: Vec<ChunkRow> = chunks
                .iter()
                .map(|c| ChunkRow {
                    id: c.id,
                    chunk: &c.chunk,
                    embedding: vectors.get(&c.id).map(Vec::as_slice),
                })
                .collect();
            tx.replace_file(store.id, file, &rows)?;
            report.files += u64::from(file.skipped.is_none());
            report.chunks += rows.len() as u64;
            report.vectors += vectors.len() as u64;
        }
        tx.commit()?;
        done += batch.len() as u64;
        progress(done, total);
    }
    let tx = to.begin()?;
    for (table, cols) in FACT_TABLES {
        let n = cols.split(", ").count();
        let insert = format!(
            "INSERT INTO {table} ({cols}) VALUES ({})",
            crate::sql::placeholders(n, 1)
        );
        let rows = from.db.query(
            &format!("SELECT {cols} FROM {table} WHERE store_id = ?1"),
            args![store.id],
            |r| Ok::<Row, SqlError>(std::mem::take(r)),
        )?;
        for row in rows {
            tx.db.execute(&insert, &row.into_args())?;
            match *table {
                "symbols" => report.symbols += 1,
                "refs" => report.references += 1,
                "feedback" => report.signals += 1,
                _ => {}
            }
        }
    }
    if tx.db.dialect() == Dialect::Postgres {
        // Explicit ids leave the identity sequences behind: move them past the rows.
        for table in ["stores", "symbols", "imports", "refs"] {
            tx.db.batch(&format!(
                "SELECT setval(pg_get_serial_sequence('{table}', 'id'), \
                 GREATEST((SELECT MAX(id) FROM {table}), 1))"
            ))?;
        }
    }
    tx.commit()?;
    Ok(report)
}
