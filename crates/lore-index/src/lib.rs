//! lore's storage layer, on one of two backends.
//!
//! - [`Catalog`]: stores, the file manifest, chunk metadata and embeddings, the code graph
//!   and jobs — the source of truth. Its queries are written once over [`Sql`]: SQLite (WAL,
//!   the embedded default) or PostgreSQL.
//! - [`LexicalIndex`] and [`VectorIndex`]: a store's BM25 and vector search, opened for a
//!   catalog by [`open_lexical`] and [`open_vectors`]. Embedded: [`Fts`] (tantivy, with a
//!   code-aware tokenizer) and [`VectorSet`] (an exact snapshot), files beside the catalog.
//!   PostgreSQL: `PgLexical` (postings tables) and `PgVectors` (pgvector), inside it; a
//!   replica may keep a read copy of a store in its own data dir (`replica`), current
//!   while its generation is the store's.
//! - [`WriterLock`]: one writer per data dir (embedded).
//!
//! Commit order (crash safety, embedded): BM25 first, then the catalog. A crash between the
//! two leaves the manifest behind, so the next run re-does those files; re-doing is
//! idempotent because BM25 documents are replaced by path. In PostgreSQL both indexes are
//! written in the catalog's own transaction.

mod batches;
mod brain;
mod catalog;
mod copy;
mod embeddings;
mod feedback;
mod fts;
mod grams;
mod graph;
mod graph_write;
mod jobs;
mod lock;
mod pack;
mod patterns;
mod pg;
mod places;
mod postings;
mod replica;
mod schema;
mod sql;
pub mod tokenizer;
mod vectors;

pub use batches::{BATCH_ATTEMPTS, Batch, BatchDone, HolderShare, RunProgress};
pub use catalog::{
    Catalog, CatalogTx, ChunkRow, FileRecord, NewStore, StoreRecord, StoreStats, StoredChunk,
};
pub use copy::{CopyReport, copy_store};
pub use feedback::{FeedbackRow, MAX_ROWS_PER_STORE};
pub use fts::{
    FIELDS, FieldBoosts, Fts, FtsBuild, FtsHits, FtsState, FtsWriter, QueryPlan, TermPolicy,
    clean as clean_fts,
};
pub use grams::{GramQuery, Grams, trigrams};
pub use graph::{Edge, ImportRow, RefRow, RefTarget, ResolvedRef, SymbolRow, SymbolsBy};
pub use jobs::{JOB_EXPIRY_SECS, JobProgress, JobRecord, JobStatus, Lease, is_job_id, new_job_id};
pub use lock::{WriterLock, is_held as writer_lock_held};
pub use patterns::{PatternMember, PatternRow, UnitReference};
pub use pg::{CacheFit, HNSW_EF_SEARCH, HNSW_MIN_VECTORS, PgLexical, PgVectors};
pub use places::ChunkSpan;
pub use replica::{REPLICA_DIR, ReplicaBuilt, ReplicaCopy, build_replica, open_replica};
pub use schema::postgres::{SchemaStatus, migrate as migrate_postgres, status as postgres_status};
pub use sql::{Arg, Dialect, PgOptions, Sql, SqlError, blob_to_embedding, redact as redact_url};
pub use tokenizer::field_texts;
pub use vectors::{SnapshotWriter, VectorSet, dot, stream_snapshot};

use xxhash_rust::xxh3::{xxh3_64, xxh3_128};

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("catalog {0}: {1}")]
    Catalog(String, #[source] SqlError),
    #[error("search index {0}: {1} (run `lore index` to rebuild it)")]
    Fts(String, #[source] tantivy::TantivyError),
    #[error("{0}: {1}")]
    Io(String, #[source] std::io::Error),
    #[error("{0} is corrupt; run `lore index` to rebuild it")]
    Corrupt(String),
    #[error("store {0:?} already exists (see `lore store list`)")]
    StoreExists(String),
    #[error("no store named {0:?} (see `lore store list`)")]
    StoreNotFound(String),
    #[error("{0}")]
    Locked(String),
    /// A catalog from another version of lore, opened read-only (nothing can migrate it).
    #[error("{0}")]
    Outdated(String),
    /// The database cannot hold a catalog as it is (e.g. PostgreSQL without pgvector).
    #[error("{0}")]
    Setup(String),
}

impl IndexError {
    /// SQLite's own words when it found the catalog file damaged.
    pub fn damage(&self) -> Option<String> {
        match self {
            IndexError::Catalog(_, e) => e.damage(),
            _ => None,
        }
    }
    /// Whether the catalog's database server could not be reached (a retry may succeed).
    pub fn is_unreachable(&self) -> bool {
        matches!(self, IndexError::Catalog(_, e) if e.is_unreachable())
    }
}

/// A store's BM25 search, wherever its index lives. `catalog` is the connection to search
/// through when the index lives in the database (PostgreSQL); a tantivy index ignores it.
pub trait LexicalIndex: Send + Sync {
    /// BM25 top `limit` chunk ids with scores, best first, and the query's maximum
    /// attainable score (see [`QueryPlan`]).
    fn search(
        &self,
        catalog: &Catalog,
        query: &str,
        limit: usize,
        boosts: &FieldBoosts,
        policy: TermPolicy,
    ) -> Result<FtsHits, IndexError>;

    /// The files that may hold a match of a grep pattern (see [`GramQuery`]), sorted;
    /// `None` when this index cannot tell (every file is a candidate).
    fn grep_files(&self, _query: &GramQuery) -> Result<Option<Vec<String>>, IndexError> {
        Ok(None)
    }
}

/// A store's vector search (inner product of unit vectors, i.e. cosine).
pub trait VectorIndex: Send + Sync {
    /// The `k` nearest chunks, best first.
    fn search(
        &self,
        catalog: &Catalog,
        query: &[f32],
        k: usize,
    ) -> Result<Vec<(i64, f32)>, IndexError>;
    /// The scores of the given chunks (those that have a vector).
    fn scores(
        &self,
        catalog: &Catalog,
        ids: &[i64],
        query: &[f32],
    ) -> Result<std::collections::HashMap<i64, f32>, IndexError>;
}

impl LexicalIndex for Fts {
    fn search(
        &self,
        _: &Catalog,
        query: &str,
        limit: usize,
        boosts: &FieldBoosts,
        policy: TermPolicy,
    ) -> Result<FtsHits, IndexError> {
        self.search_with(query, limit, boosts, policy)
    }

    fn grep_files(&self, query: &GramQuery) -> Result<Option<Vec<String>>, IndexError> {
        match self.grams() {
            Some(g) => g.files(query),
            None => Ok(None),
        }
    }
}

impl VectorIndex for VectorSet {
    fn search(&self, _: &Catalog, query: &[f32], k: usize) -> Result<Vec<(i64, f32)>, IndexError> {
        Ok(VectorSet::search(self, query, k))
    }

    fn scores(
        &self,
        _: &Catalog,
        ids: &[i64],
        query: &[f32],
    ) -> Result<std::collections::HashMap<i64, f32>, IndexError> {
        Ok(ids
            .iter()
            .filter_map(|&id| Some((id, self.score(id, query)?)))
            .collect())
    }
}

/// Whether a store's BM25 index is missing (`dir` is the store's folder): its tantivy
/// folder was never written or was deleted. An index in PostgreSQL is never missing.
pub fn lexical_missing(catalog: &Catalog, dir: &std::path::Path) -> bool {
    catalog.dialect() == Dialect::Sqlite && Fts::is_missing(&dir.join("fts"))
}

/// A store's BM25 index for this catalog: tantivy in `dir` (the store's folder) for an
/// embedded catalog, the postings tables for PostgreSQL. A missing tantivy index opens
/// empty (see `lexical_missing`).
pub fn open_lexical(
    catalog: &Catalog,
    store_id: i64,
    dir: &std::path::Path,
) -> Result<Box<dyn LexicalIndex>, IndexError> {
    Ok(match catalog.dialect() {
        Dialect::Sqlite => Box::new(Fts::open(&dir.join("fts"))?),
        Dialect::Postgres => Box::new(PgLexical::new(store_id)),
    })
}

/// A store's vectors for this catalog: the snapshot in `dir` (empty of `dim` when there
/// is none yet) for an embedded catalog, the `embedding` column for PostgreSQL.
pub fn open_vectors(
    catalog: &Catalog,
    store_id: i64,
    dir: &std::path::Path,
    dim: usize,
) -> Result<std::sync::Arc<dyn VectorIndex>, IndexError> {
    Ok(match catalog.dialect() {
        Dialect::Sqlite => std::sync::Arc::new(
            VectorSet::load(&dir.join("vectors.bin"))?.unwrap_or_else(|| VectorSet::empty(dim)),
        ),
        Dialect::Postgres => {
            std::sync::Arc::new(PgVectors::open(catalog, store_id, pg::HNSW_EF_SEARCH)?)
        }
    })
}

/// Hex content hash of a file's bytes (change detection, not security).
pub fn content_hash(bytes: &[u8]) -> String {
    format!("{:032x}", xxh3_128(bytes))
}

/// Stable chunk id: a positive 63-bit hash of (store, path, byte range, content).
pub fn chunk_id(store_id: i64, path: &str, start: usize, end: usize, content: &str) -> i64 {
    let mut key = Vec::with_capacity(path.len() + content.len() + 32);
    key.extend_from_slice(&store_id.to_le_bytes());
    key.extend_from_slice(path.as_bytes());
    key.push(0);
    key.extend_from_slice(&(start as u64).to_le_bytes());
    key.extend_from_slice(&(end as u64).to_le_bytes());
    key.extend_from_slice(&xxh3_64(content.as_bytes()).to_le_bytes());
    (xxh3_64(&key) & (i64::MAX as u64)) as i64
}
