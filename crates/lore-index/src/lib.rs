//! lore's storage layer.
//!
//! - [`Catalog`]: SQLite (WAL) — stores, the file manifest, chunk metadata and embeddings.
//!   The source of truth.
//! - [`Fts`]: a tantivy BM25 index per store, with a code-aware tokenizer.
//! - [`VectorSet`]: an exact-cosine snapshot of a store's embeddings.
//! - [`WriterLock`]: one writer per data dir.
//!
//! Commit order (crash safety): BM25 first, then the catalog. A crash between the two leaves
//! the manifest behind, so the next run re-does those files; re-doing is idempotent because
//! BM25 documents are replaced by path.

mod catalog;
mod fts;
mod graph;
mod jobs;
mod lock;
mod schema;
pub mod tokenizer;
mod vectors;

pub use catalog::{
    Catalog, CatalogTx, ChunkRow, FileRecord, NewStore, StoreRecord, StoreStats, StoredChunk,
    blob_to_embedding,
};
pub use fts::{
    FieldBoosts, Fts, FtsBuild, FtsHits, FtsState, FtsWriter, TermPolicy, clean as clean_fts,
};
pub use graph::{Edge, ImportRow, RefRow, RefTarget, ResolvedRef, SymbolRow};
pub use jobs::{JobProgress, JobRecord, JobStatus, is_job_id, new_job_id};
pub use lock::WriterLock;
pub use vectors::{VectorSet, dot};

use xxhash_rust::xxh3::{xxh3_64, xxh3_128};

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("catalog {0}: {1}")]
    Catalog(String, #[source] rusqlite::Error),
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
