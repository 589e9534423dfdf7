//! Candidates of a query over its stores: each store's open readers (BM25 and vectors, per
//! catalog generation), BM25 and the vector search run side by side, and their fusion per
//! mode. `search` and `locate` rank what this retrieves.

use crate::mode::Mode;
use crate::query::fusion::{Candidates, Fusion, Signals, fuse};
use crate::{Engine, EngineError, NoProgress};
use lore_index::{FtsHits, LexicalIndex, StoreRecord, TermPolicy, VectorIndex};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

/// Open readers of one store, valid for one catalog generation. The vectors are opened on
/// first use, so BM25-only searches never depend on them.
pub(crate) struct StoreReaders {
    generation: i64,
    store_id: i64,
    dir: std::path::PathBuf,
    lexical: Box<dyn LexicalIndex>,
    /// The BM25 index was missing when opened (it answers nothing).
    pub(crate) lexical_missing: bool,
    /// The dimension of the store's vectors.
    dim: usize,
    vectors: OnceLock<Arc<dyn VectorIndex>>,
    /// When these readers are to be opened again though the generation holds (a read copy
    /// still waiting for vectors, see `replica`).
    reopen_at: Option<Instant>,
}

impl StoreReaders {
    fn vectors(&self, catalog: &lore_index::Catalog) -> Result<Arc<dyn VectorIndex>, EngineError> {
        if let Some(v) = self.vectors.get() {
            return Ok(v.clone());
        }
        let loaded = lore_index::open_vectors(catalog, self.store_id, &self.dir, self.dim)?;
        Ok(self.vectors.get_or_init(|| loaded).clone())
    }

    /// The files that may match a grep pattern (`None`: every file).
    pub(crate) fn grep_files(
        &self,
        query: &lore_index::GramQuery,
    ) -> Result<Option<Vec<String>>, EngineError> {
        Ok(self.lexical.grep_files(query)?)
    }

    fn current(&self, store: &StoreRecord) -> bool {
        self.generation == store.generation && self.reopen_at.is_none_or(|t| Instant::now() < t)
    }
}

#[derive(Default)]
pub(crate) struct ReaderCache(Mutex<HashMap<i64, Arc<StoreReaders>>>);

impl ReaderCache {
    pub(crate) fn forget(&self, store_id: i64) {
        if let Ok(mut m) = self.0.lock() {
            m.remove(&store_id);
        }
    }
}

/// Candidates of one query over several stores, before fusion.
pub struct Retrieved {
    pub candidates: Candidates,
    /// Which store each candidate id belongs to.
    pub owner: HashMap<i64, i64>,
}

impl Engine {
    /// This engine's side connection to the catalog (see `Engine::side`), taken until
    /// given back with `put_side_catalog`.
    fn side_catalog(&self) -> Result<lore_index::Catalog, EngineError> {
        let idle = self.side.lock().ok().and_then(|mut s| s.take());
        match idle {
            Some(side) => Ok(side),
            None => crate::open_catalog(&self.data),
        }
    }

    fn put_side_catalog(&self, side: lore_index::Catalog) {
        if let Ok(mut s) = self.side.lock() {
            *s = Some(side);
        }
    }

    pub(crate) fn forget_readers(&self, store_id: i64) {
        self.readers.forget(store_id);
    }

    pub(crate) fn readers(&self, store: &StoreRecord) -> Result<Arc<StoreReaders>, EngineError> {
        if let Ok(m) = self.readers.0.lock()
            && let Some(r) = m.get(&store.id)
            && r.current(store)
        {
            return Ok(r.clone());
        }
        let dir = self.data.store_dir(store.id);
        let lexical_missing = lore_index::lexical_missing(&self.catalog, &dir);
        let vectors = OnceLock::new();
        let mut reopen_at = None;
        let read_copy = self.config.read_copy;
        let lexical = if self.catalog.holds_indexes() && read_copy != crate::ReadCopy::Ignore {
            // PostgreSQL: this server's read copy where it is current, else the database.
            let copy = lore_index::open_replica(&dir, store.generation);
            let vectors_wanted = !crate::record::lexical_only(store);
            let behind = copy.lexical.is_none() || (vectors_wanted && copy.vectors.is_none());
            if behind && read_copy == crate::ReadCopy::Keep {
                let readers = self.readers.clone();
                let store_id = store.id;
                self.replicas
                    .refresh(&self.data, store, move || readers.forget(store_id));
                reopen_at = Some(Instant::now() + crate::stores::replica::VECTORS_RETRY);
            }
            if let Some(v) = copy.vectors {
                let _ = vectors.set(Arc::new(v) as Arc<dyn VectorIndex>);
            }
            match copy.lexical {
                Some(fts) => Box::new(fts) as Box<dyn LexicalIndex>,
                None => lore_index::open_lexical(&self.catalog, store.id, &dir)?,
            }
        } else {
            lore_index::open_lexical(&self.catalog, store.id, &dir)?
        };
        let r = Arc::new(StoreReaders {
            generation: store.generation,
            store_id: store.id,
            dir,
            lexical,
            lexical_missing,
            dim: crate::record::store_dim(store),
            vectors,
            reopen_at,
        });
        if let Ok(mut m) = self.readers.0.lock() {
            m.insert(store.id, r.clone());
        }
        Ok(r)
    }

    /// BM25 and vector candidates of `query` over `stores` (`n` from each signal).
    pub fn retrieve(
        &self,
        query: &str,
        stores: &[StoreRecord],
        mode: Mode,
        n: usize,
    ) -> Result<Retrieved, EngineError> {
        self.retrieve_with(query, stores, mode, n, TermPolicy::SEARCH, || ())
            .map(|(r, ())| r)
    }

    /// `retrieve` with a choice of how the query's terms count for BM25, running
    /// `meanwhile` on this thread while the query is embedded on another (after BM25): work
    /// that does not wait for the candidates costs a vector search nothing.
    pub(crate) fn retrieve_with<T>(
        &self,
        query: &str,
        stores: &[StoreRecord],
        mode: Mode,
        n: usize,
        terms: TermPolicy,
        meanwhile: impl FnOnce() -> T,
    ) -> Result<(Retrieved, T), EngineError> {
        // Stores kept without vectors need no query vector (nor a model).
        let vectors_wanted =
            mode.uses_vectors() && stores.iter().any(|s| !crate::record::lexical_only(s));
        let embedder = if vectors_wanted {
            let embedder = self.embedder(false, &NoProgress)?;
            for store in stores {
                self.check_embedder(store, &embedder, false)?;
            }
            Some(embedder)
        } else {
            None
        };
        let mut c = Candidates::default();
        let mut owner = HashMap::new();
        let readers = stores
            .iter()
            .map(|s| self.readers(s))
            .collect::<Result<Vec<_>, _>>()?;
        let vectors = match embedder {
            Some(_) => readers
                .iter()
                .map(|r| r.vectors(&self.catalog))
                .collect::<Result<Vec<_>, _>>()?,
            None => Vec::new(),
        };
        let side = embedder.as_ref().map(|_| self.side_catalog()).transpose()?;
        // The vector half (embed the query, then search each store's vectors on the side
        // connection) runs while BM25 runs here (in tantivy, or in the database): neither
        // waits for the other.
        let (lexical, vector, done) = std::thread::scope(|scope| {
            let vector = embedder.as_ref().zip(side).map(|(e, side)| {
                let vectors = &vectors;
                scope.spawn(move || {
                    let found = e
                        .embed_query(query)
                        .map_err(EngineError::from)
                        .and_then(|q| {
                            let hits = vectors
                                .iter()
                                .map(|v| v.search(&side, &q, n))
                                .collect::<Result<Vec<_>, _>>()?;
                            Ok((q, hits))
                        });
                    (found, side)
                })
            });
            let lexical = readers
                .iter()
                .map(|r| {
                    if !mode.uses_bm25() {
                        return Ok(FtsHits::default());
                    }
                    r.lexical
                        .search(&self.catalog, query, n, &self.config.boosts, terms)
                })
                .collect::<Result<Vec<_>, _>>();
            let done = meanwhile();
            let vector = vector.map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
            (lexical, vector, done)
        });
        let vector = match vector {
            Some((found, side)) => {
                // A side connection that failed is dropped (the next search opens another).
                if found.is_ok() {
                    self.put_side_catalog(side);
                }
                Some(found?)
            }
            None => None,
        };
        // Each store's BM25 over the query's maximum in that store (its own term
        // statistics): a store's scores are the same whatever other stores are searched.
        for (i, (store, hits)) in stores.iter().zip(lexical?).enumerate() {
            if hits.max_score > 0.0 {
                c.bm25_max = 1.0;
            }
            for &(id, _) in &hits.hits {
                owner.insert(id, store.id);
            }
            let lexical: Vec<i64> = hits.hits.iter().map(|h| h.0).collect();
            let scale = if hits.max_score > 0.0 {
                1.0 / hits.max_score
            } else {
                1.0
            };
            c.bm25
                .extend(hits.hits.into_iter().map(|(id, score)| (id, score * scale)));
            if let Some((q, found)) = &vector {
                for &(id, _) in &found[i] {
                    owner.insert(id, store.id);
                }
                c.vector.extend(found[i].iter().copied());
                // Exact cosine for this store's BM25 candidates; those it has no vector for
                // are not embedded yet.
                let cosines = vectors[i].scores(&self.catalog, &lexical, q)?;
                c.unembedded
                    .extend(lexical.iter().filter(|id| !cosines.contains_key(id)));
                c.extra_cosine.extend(cosines);
            }
        }
        // Every store's own `n` best of each signal stay candidates (no cut across
        // stores): a store's best unit for a query is found whatever else is searched.
        let desc = |a: &(i64, f32), b: &(i64, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        c.bm25.sort_by(desc);
        c.vector.sort_by(desc);
        if mode == Mode::Hybrid {
            let ids: Vec<i64> = c.bm25.iter().chain(&c.vector).map(|h| h.0).collect();
            c.prose = self.catalog.prose_ids(&ids)?;
        }
        Ok((
            Retrieved {
                candidates: c,
                owner,
            },
            done,
        ))
    }

    /// Fused ranking of retrieved candidates for a mode: a single signal ranks by itself.
    pub fn rank(retrieved: &Retrieved, mode: Mode, fusion: Fusion) -> Vec<(i64, f32, Signals)> {
        let c = &retrieved.candidates;
        match mode {
            Mode::Hybrid => fuse_per_store(retrieved, fusion),
            Mode::Fts => fuse(
                &Candidates {
                    bm25: c.bm25.clone(),
                    bm25_max: c.bm25_max,
                    ..Default::default()
                },
                Fusion::convex(0.0),
            ),
            Mode::Vector => fuse(
                &Candidates {
                    vector: c.vector.clone(),
                    ..Default::default()
                },
                Fusion::convex(1.0),
            ),
        }
    }
}

/// Hybrid fusion store by store: the weight of the cosine (from the share of code among
/// the top candidates) and the cosine a not-yet-embedded chunk stands in with are each
/// store's own, so a unit's fused score does not depend on what other stores are searched.
/// The stores' fused lists are then merged by score.
fn fuse_per_store(retrieved: &Retrieved, fusion: Fusion) -> Vec<(i64, f32, Signals)> {
    let c = &retrieved.candidates;
    let mut by_store: HashMap<i64, Candidates> = HashMap::new();
    let store_of = |id: &i64| retrieved.owner.get(id).copied().unwrap_or(-1);
    for &(id, score) in &c.bm25 {
        by_store
            .entry(store_of(&id))
            .or_default()
            .bm25
            .push((id, score));
    }
    for &(id, score) in &c.vector {
        by_store
            .entry(store_of(&id))
            .or_default()
            .vector
            .push((id, score));
    }
    let mut out = Vec::new();
    for part in by_store.values_mut() {
        part.bm25_max = c.bm25_max;
        let ids: Vec<i64> = part.bm25.iter().chain(&part.vector).map(|h| h.0).collect();
        for id in ids {
            if let Some(&cos) = c.extra_cosine.get(&id) {
                part.extra_cosine.insert(id, cos);
            }
            if c.unembedded.contains(&id) {
                part.unembedded.insert(id);
            }
            if c.prose.contains(&id) {
                part.prose.insert(id);
            }
        }
        out.extend(fuse(part, fusion));
    }
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 54's invariant for hybrid search: a unit's fused score is the same whether its
    /// store is searched alone or with others, so the store's best unit holds its place
    /// among them. Generated stores of BM25 and cosine candidates, prose and code, some not
    /// embedded yet.
    #[test]
    fn hybrid_scores_do_not_depend_on_the_other_stores() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for case in 0..200 {
            let stores = 2 + (next() % 3) as i64;
            let mut all = Retrieved {
                candidates: Candidates {
                    bm25_max: 1.0,
                    ..Candidates::default()
                },
                owner: HashMap::new(),
            };
            for store in 0..stores {
                let size = 1 + next() % 40;
                for i in 0..size {
                    let id = store * 1000 + i as i64;
                    all.owner.insert(id, store);
                    let c = &mut all.candidates;
                    match next() % 4 {
                        0 => c.vector.push((id, (next() % 1000) as f32 / 1000.0)),
                        1 => {
                            c.bm25.push((id, (next() % 1000) as f32 / 1000.0));
                            c.unembedded.insert(id);
                        }
                        _ => {
                            c.bm25.push((id, (next() % 1000) as f32 / 1000.0));
                            c.extra_cosine.insert(id, (next() % 1000) as f32 / 1000.0);
                        }
                    }
                    if next() % 3 == 0 {
                        c.prose.insert(id);
                    }
                }
            }
            let desc = |a: &(i64, f32), b: &(i64, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
            all.candidates.bm25.sort_by(desc);
            all.candidates.vector.sort_by(desc);
            let together: HashMap<i64, f32> = Engine::rank(&all, Mode::Hybrid, Fusion::default())
                .into_iter()
                .map(|(id, score, _)| (id, score))
                .collect();
            for store in 0..stores {
                let keep = |id: &i64| all.owner.get(id) == Some(&store);
                let c = &all.candidates;
                let alone = Retrieved {
                    candidates: Candidates {
                        bm25: c.bm25.iter().copied().filter(|h| keep(&h.0)).collect(),
                        vector: c.vector.iter().copied().filter(|h| keep(&h.0)).collect(),
                        bm25_max: c.bm25_max,
                        extra_cosine: c.extra_cosine.clone(),
                        unembedded: c.unembedded.clone(),
                        prose: c.prose.clone(),
                    },
                    owner: all.owner.clone(),
                };
                for (id, score, _) in Engine::rank(&alone, Mode::Hybrid, Fusion::default()) {
                    assert_eq!(
                        together.get(&id),
                        Some(&score),
                        "case {case}, store {store}"
                    );
                }
            }
        }
    }
}
