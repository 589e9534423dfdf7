//! On PostgreSQL, each server keeps a read copy of the stores it searches (BM25 and vectors,
//! `lore_index::replica`) in its own data dir, so a search costs what it costs on the
//! embedded backend. The database stays the truth: a copy answers only while it is at the
//! store's generation; until a new one is built (on a thread of its own, after a search
//! found the copy behind), searches read the database as before.

use crate::{Engine, EngineError};
use lore_core::DataDir;
use lore_index::{ReplicaBuilt, StoreRecord};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a copy without vectors (some chunks were not embedded yet) waits before it
/// looks again: vectors are added without a new generation.
pub(crate) const VECTORS_RETRY: Duration = Duration::from_secs(60);

/// The copies this process is building, and when each store's last build ended (shared
/// by an engine's clones). One build runs at a time: a first search over many stores
/// queues theirs rather than building all at once.
#[derive(Clone, Default)]
pub(crate) struct Replicas {
    attempts: Arc<Mutex<HashMap<i64, Attempt>>>,
    one_at_a_time: Arc<Mutex<()>>,
}

#[derive(Clone, Copy)]
struct Attempt {
    generation: i64,
    running: bool,
    ended: Option<Instant>,
}

impl Replicas {
    /// Claims the build of `store`'s copy at `generation`, unless one is running or one
    /// for this generation ended less than [`VECTORS_RETRY`] ago.
    fn claim(&self, store_id: i64, generation: i64) -> bool {
        let Ok(mut map) = self.attempts.lock() else {
            return false;
        };
        let attempt = map.entry(store_id).or_insert(Attempt {
            generation,
            running: false,
            ended: None,
        });
        let recent = attempt.generation == generation
            && attempt.ended.is_some_and(|e| e.elapsed() < VECTORS_RETRY);
        if attempt.running || recent {
            return false;
        }
        *attempt = Attempt {
            generation,
            running: true,
            ended: None,
        };
        true
    }

    fn release(&self, store_id: i64) {
        if let Ok(mut map) = self.attempts.lock()
            && let Some(a) = map.get_mut(&store_id)
        {
            a.running = false;
            a.ended = Some(Instant::now());
        }
    }

    /// Builds `store`'s copy on a thread of its own, unless `claim` refuses; `on_built` runs
    /// when the build ends without an error (the store's readers are to be opened again:
    /// with the new copy, or to ask for one at the store's new generation).
    pub(crate) fn refresh(
        &self,
        data: &DataDir,
        store: &StoreRecord,
        on_built: impl FnOnce() + Send + 'static,
    ) {
        if !self.claim(store.id, store.generation) {
            return;
        }
        let (this, data, store_id) = (self.clone(), data.clone(), store.id);
        let spawned = std::thread::Builder::new()
            .name("lore-replica".into())
            .spawn(move || {
                let _turn = this.one_at_a_time.lock();
                let started = Instant::now();
                let outcome = build(&data, store_id);
                this.release(store_id);
                match outcome {
                    Ok(Some(built)) => tracing::info!(
                        "store #{store_id}: read copy at generation {} ({} chunks, {}) in {:.1} s",
                        built.generation,
                        built.chunks,
                        built
                            .vectors
                            .map_or("vectors still read from the database".into(), |v| {
                                format!("{v} vectors")
                            }),
                        started.elapsed().as_secs_f64()
                    ),
                    // The store changed while it was read: the next search asks again.
                    Ok(None) => {}
                    Err(e) => {
                        tracing::warn!("store #{store_id}: read copy not built: {e}");
                        return;
                    }
                }
                on_built();
            });
        if spawned.is_err() {
            self.release(store_id);
        }
    }
}

fn build(data: &DataDir, store_id: i64) -> Result<Option<ReplicaBuilt>, EngineError> {
    let catalog = crate::open_catalog(data)?;
    Ok(lore_index::build_replica(
        &catalog,
        store_id,
        &data.store_dir(store_id),
    )?)
}

impl Engine {
    /// Removes the read copies of stores the database no longer has (removed through
    /// another server); returns how many. Servers on PostgreSQL do it at start.
    pub fn prune_read_copies(&self) -> Result<usize, EngineError> {
        if !self.catalog.holds_indexes() {
            return Ok(0);
        }
        let live: std::collections::HashSet<i64> =
            self.catalog.stores()?.iter().map(|s| s.id).collect();
        let root = self.data.root().join("stores");
        let Ok(dirs) = std::fs::read_dir(&root) else {
            return Ok(0);
        };
        let mut removed = 0;
        for dir in dirs.flatten() {
            let id = dir.file_name().to_string_lossy().parse::<i64>();
            let copy = dir.path().join(lore_index::REPLICA_DIR);
            if id.is_ok_and(|id| !live.contains(&id)) && copy.is_dir() {
                std::fs::remove_dir_all(&copy)
                    .map_err(|e| EngineError::io(copy.display().to_string(), e))?;
                removed += 1;
            }
        }
        Ok(removed)
    }

    /// Builds the read copy of a store kept in PostgreSQL now, on this thread (`lore
    /// bench` waits for it; servers build copies in the background). `None` when the store
    /// changed while it was read, or on an embedded catalog, which has no copy.
    pub fn build_replica(&self, store: &str) -> Result<Option<ReplicaBuilt>, EngineError> {
        let store = self.require_store(store)?;
        if !self.catalog.holds_indexes() {
            return Ok(None);
        }
        let built = build(&self.data, store.id)?;
        self.forget_readers(store.id);
        Ok(built)
    }
}
