//! A replica's read copy of a PostgreSQL store: its BM25 index (tantivy) and its vector
//! snapshot, built from the catalog into the replica's own data dir and labelled with the
//! store's generation. PostgreSQL stays the truth: a copy answers only while its
//! generation is the store's (every commit that changes a store's chunks bumps it), so a
//! search never sees an older store than the database holds.
//!
//! Vectors are added within a generation (background embedding), so the snapshot is
//! written only when every chunk has its vector: then nothing can be added until the
//! generation moves.

use crate::{Catalog, Fts, FtsBuild, IndexError, VectorSet};
use std::path::{Path, PathBuf};

/// The copy's folder inside a store's folder.
pub const REPLICA_DIR: &str = "replica";

/// What a store's copy holds for one generation.
pub struct ReplicaCopy {
    pub lexical: Option<Fts>,
    pub vectors: Option<VectorSet>,
}

/// What a build wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplicaBuilt {
    pub generation: i64,
    pub chunks: u64,
    /// Vectors copied; `None` when some chunks had none yet (the database answers those).
    pub vectors: Option<u64>,
}

fn paths(store_dir: &Path) -> (PathBuf, PathBuf) {
    let dir = store_dir.join(REPLICA_DIR);
    (dir.join("fts"), dir.join("vectors.bin"))
}

/// The parts of the copy in `store_dir` that are current at `generation`.
pub fn open_replica(store_dir: &Path, generation: i64) -> ReplicaCopy {
    let (fts, vectors) = paths(store_dir);
    let lexical = (!Fts::is_missing(&fts))
        .then(|| Fts::open(&fts).ok())
        .flatten()
        .filter(|f| f.generation() == Some(generation));
    let vectors = VectorSet::load(&vectors)
        .ok()
        .flatten()
        .filter(|v| v.generation() == generation);
    ReplicaCopy { lexical, vectors }
}

/// Writes the copy of `store_id` at its current generation into `store_dir`, each part
/// only when it is not current already. `None` when the store changed while it was read
/// (the copy would mix generations; nothing is swapped in), or when another process is
/// building this copy now.
pub fn build_replica(
    catalog: &Catalog,
    store_id: i64,
    store_dir: &Path,
) -> Result<Option<ReplicaBuilt>, IndexError> {
    let generation = |c: &Catalog| -> Result<i64, IndexError> {
        c.store_by_id(store_id)?
            .map(|s| s.generation)
            .ok_or_else(|| IndexError::StoreNotFound(format!("#{store_id}")))
    };
    let at = generation(catalog)?;
    let (fts_dir, vectors_path) = paths(store_dir);
    let io = |p: &Path| {
        let p = p.display().to_string();
        move |e| IndexError::Io(p, e)
    };
    std::fs::create_dir_all(&fts_dir).map_err(io(&fts_dir))?;
    // One build of a data dir's copy at a time (`lore mcp` processes share a data dir):
    // another process building it now leaves it to that one.
    let lock_path = store_dir.join(REPLICA_DIR).join("build.lock");
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(false)
        .open(&lock_path)
        .map_err(io(&lock_path))?;
    match lock.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => return Ok(None),
        Err(std::fs::TryLockError::Error(e)) => return Err(io(&lock_path)(e)),
    }
    let have = open_replica(store_dir, at);
    let (chunks, left) = catalog.embedding_progress(store_id)?;
    // Read before the BM25 copy (a generation still `at` after both reads means neither
    // saw a commit), and written to the snapshot's place only after that check.
    let snapshot = if have.vectors.is_none() && left == 0 && chunks > 0 {
        crate::vectors::stream_rows(catalog, store_id, &vectors_path, at)?
    } else {
        None
    };
    let build = match have.lexical {
        Some(_) => None,
        None => {
            crate::fts::clean(&fts_dir)?;
            let mut build = FtsBuild::start(&fts_dir)?;
            catalog.for_each_chunk(store_id, |c| build.writer().add_stored(&c))?;
            Some(build)
        }
    };
    if generation(catalog)? != at {
        return Ok(None);
    }
    if let Some(build) = build {
        build.swap_in(Some(at))?;
    }
    let vectors = match (have.vectors, snapshot) {
        (Some(v), _) => Some(v.len() as u64),
        (None, Some(writer)) => Some(writer.finish()?),
        (None, None) => None,
    };
    Ok(Some(ReplicaBuilt {
        generation: at,
        chunks,
        vectors,
    }))
}
