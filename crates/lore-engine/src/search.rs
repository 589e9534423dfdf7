//! Hybrid search: BM25 and exact-cosine candidates per store, fused, deduplicated per file.

use crate::fusion::{Candidates, Fusion, Signals, fuse};
use crate::indexer::walk_options;
use crate::{Detail, Engine, EngineError, Intent, NoProgress};
use lore_index::{Fts, StoreRecord, StoredChunk, VectorSet};
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    #[default]
    Hybrid,
    Vector,
    Fts,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Hybrid => "hybrid",
            Mode::Vector => "vector",
            Mode::Fts => "fts",
        }
    }
    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "hybrid" => Some(Mode::Hybrid),
            "vector" => Some(Mode::Vector),
            "fts" => Some(Mode::Fts),
            _ => None,
        }
    }
    fn uses_bm25(self) -> bool {
        self != Mode::Vector
    }
    fn uses_vectors(self) -> bool {
        self != Mode::Fts
    }
}

#[derive(Debug, Clone)]
pub struct SearchRequest {
    pub query: String,
    /// Store names; empty means all stores.
    pub stores: Vec<String>,
    pub mode: Mode,
    pub limit: usize,
    /// Drop results whose fused score is below this (scores are comparable across queries).
    pub threshold: Option<f32>,
    /// Results kept per file (1 = best chunk per file).
    pub per_file: usize,
    /// Compute per-store freshness (a stat-only walk of each store).
    pub freshness: bool,
    /// What the searcher is after; `None` infers it from the query.
    pub intent: Option<Intent>,
    /// How much of each result to return.
    pub detail: Detail,
}

impl SearchRequest {
    pub fn new(query: impl Into<String>) -> SearchRequest {
        SearchRequest {
            query: query.into(),
            stores: Vec::new(),
            mode: Mode::Hybrid,
            limit: 10,
            threshold: None,
            per_file: 1,
            freshness: true,
            intent: None,
            detail: Detail::Minimal,
        }
    }
}

/// Where a unit is and what it is: the part every answer about a chunk shares.
#[derive(Debug, Clone, Serialize)]
pub struct UnitRef {
    /// Stable id of the chunk (hex), usable with `lore context`.
    pub id: String,
    pub store: String,
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    pub kind: String,
    pub language: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub headings: Vec<String>,
}

impl UnitRef {
    pub(crate) fn new(sc: &StoredChunk, store: &str) -> UnitRef {
        let c = &sc.chunk;
        UnitRef {
            id: format!("{:016x}", sc.id),
            store: store.to_string(),
            path: sc.path.clone(),
            start_line: c.start_line,
            end_line: c.end_line,
            kind: c.kind.as_str().to_string(),
            language: c.language.as_str().to_string(),
            symbol: c.symbol.clone(),
            signature: c.signature.clone(),
            headings: c.headings.clone(),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct SearchHit {
    #[serde(flatten)]
    pub unit: UnitRef,
    pub score: f32,
    pub snippet: String,
    pub signals: Signals,
}

/// How current a store's index is.
#[derive(Debug, Clone, Serialize)]
pub struct Freshness {
    pub store: String,
    /// Unix seconds of the last completed index run.
    pub indexed_at: Option<i64>,
    /// Files added, changed or deleted on disk since then.
    pub changed_files: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct SearchResponse {
    pub query: String,
    pub mode: Mode,
    pub results: Vec<SearchHit>,
    pub elapsed_ms: f64,
    pub stores: Vec<Freshness>,
}

/// Open readers of one store, valid for one catalog generation. The vector snapshot is
/// loaded on first use, so BM25-only searches never depend on it.
pub(crate) struct StoreReaders {
    generation: i64,
    dir: std::path::PathBuf,
    fts: Fts,
    vectors: OnceLock<Arc<VectorSet>>,
}

impl StoreReaders {
    fn vectors(&self) -> Result<Arc<VectorSet>, EngineError> {
        if let Some(v) = self.vectors.get() {
            return Ok(v.clone());
        }
        let loaded = VectorSet::load(&self.dir.join("vectors.bin"))?
            .unwrap_or_else(|| VectorSet::empty(lore_embed::DIM));
        Ok(self.vectors.get_or_init(|| Arc::new(loaded)).clone())
    }
}

#[derive(Default)]
pub(crate) struct ReaderCache(Mutex<HashMap<i64, Arc<StoreReaders>>>);

/// Candidates of one query over several stores, before fusion.
pub struct Retrieved {
    pub candidates: Candidates,
    /// Which store each candidate id belongs to.
    pub owner: HashMap<i64, i64>,
}

impl Engine {
    pub(crate) fn forget_readers(&self, store_id: i64) {
        if let Ok(mut m) = self.readers.0.lock() {
            m.remove(&store_id);
        }
    }

    fn readers(&self, store: &StoreRecord) -> Result<Arc<StoreReaders>, EngineError> {
        if let Ok(m) = self.readers.0.lock()
            && let Some(r) = m.get(&store.id)
            && r.generation == store.generation
        {
            return Ok(r.clone());
        }
        let dir = self.data.store_dir(store.id);
        let fts = Fts::open(&dir.join("fts"))?;
        let r = Arc::new(StoreReaders {
            generation: store.generation,
            dir,
            fts,
            vectors: OnceLock::new(),
        });
        if let Ok(mut m) = self.readers.0.lock() {
            m.insert(store.id, r.clone());
        }
        Ok(r)
    }

    /// Checks a request and resolves its stores.
    fn validate(&self, req: &SearchRequest) -> Result<Vec<StoreRecord>, EngineError> {
        if req.query.trim().is_empty() {
            return Err(EngineError::Input(
                "the query is empty; give some words to search for".into(),
            ));
        }
        if req.limit == 0 {
            return Err(EngineError::Input("--limit must be at least 1".into()));
        }
        if req.per_file == 0 {
            return Err(EngineError::Input("--per-file must be at least 1".into()));
        }
        let stores = self.select_stores(&req.stores)?;
        if stores.is_empty() {
            return Err(EngineError::Input(
                "there are no stores yet; add one with `lore store add NAME PATH`".into(),
            ));
        }
        Ok(stores)
    }

    /// BM25 and vector candidates of `query` over `stores` (`n` from each signal).
    pub fn retrieve(
        &self,
        query: &str,
        stores: &[StoreRecord],
        mode: Mode,
        n: usize,
    ) -> Result<Retrieved, EngineError> {
        let query_vec = if mode.uses_vectors() {
            Some(self.embedder(false, &NoProgress)?.embed_query(query)?)
        } else {
            None
        };
        let mut c = Candidates::default();
        let mut owner = HashMap::new();
        for store in stores {
            let r = self.readers(store)?;
            if mode.uses_bm25() {
                let hits = r.fts.search(query, n, &self.config.boosts)?;
                c.bm25_max = c.bm25_max.max(hits.max_score);
                for &(id, _) in &hits.hits {
                    owner.insert(id, store.id);
                }
                c.bm25.extend(hits.hits);
            }
            if let Some(q) = &query_vec {
                let vectors = r.vectors()?;
                let hits = vectors.search(q, n);
                for &(id, _) in &hits {
                    owner.insert(id, store.id);
                }
                c.vector.extend(hits);
                // Exact cosine for BM25 candidates the vector list missed.
                for &(id, _) in &c.bm25 {
                    if let Some(s) = vectors.score(id, q) {
                        c.extra_cosine.insert(id, s);
                    }
                }
            }
        }
        let desc = |a: &(i64, f32), b: &(i64, f32)| b.1.total_cmp(&a.1);
        c.bm25.sort_by(desc);
        c.bm25.truncate(n);
        c.vector.sort_by(desc);
        c.vector.truncate(n);
        Ok(Retrieved {
            candidates: c,
            owner,
        })
    }

    /// Fused ranking of retrieved candidates for a mode: a single signal ranks by itself.
    pub fn rank(retrieved: &Retrieved, mode: Mode, fusion: Fusion) -> Vec<(i64, f32, Signals)> {
        let c = &retrieved.candidates;
        match mode {
            Mode::Hybrid => fuse(c, fusion),
            Mode::Fts => fuse(
                &Candidates {
                    bm25: c.bm25.clone(),
                    bm25_max: c.bm25_max,
                    ..Default::default()
                },
                Fusion::Convex { alpha: 0.0 },
            ),
            Mode::Vector => fuse(
                &Candidates {
                    vector: c.vector.clone(),
                    ..Default::default()
                },
                Fusion::Convex { alpha: 1.0 },
            ),
        }
    }

    pub fn search(&self, req: &SearchRequest) -> Result<SearchResponse, EngineError> {
        let started = Instant::now();
        let stores = self.validate(req)?;
        let n = self.config.candidates.max(req.limit * 3);
        let retrieved = self.retrieve(&req.query, &stores, req.mode, n)?;
        let ranked = Self::rank(&retrieved, req.mode, self.config.fusion);
        let by_id: HashMap<i64, &StoreRecord> = stores.iter().map(|s| (s.id, s)).collect();

        let mut results = Vec::new();
        let mut per_file: HashMap<(i64, String), usize> = HashMap::new();
        let words = query_words(&req.query);
        for chunk_ids in ranked.chunks(32) {
            let ids: Vec<i64> = chunk_ids.iter().map(|c| c.0).collect();
            let found: HashMap<i64, StoredChunk> = self
                .catalog
                .chunks(&ids)?
                .into_iter()
                .map(|c| (c.id, c))
                .collect();
            for &(id, score, signals) in chunk_ids {
                if req.threshold.is_some_and(|t| score < t) {
                    continue;
                }
                let Some(sc) = found.get(&id) else { continue };
                let Some(store) = by_id.get(&sc.store_id) else {
                    continue;
                };
                let seen = per_file.entry((sc.store_id, sc.path.clone())).or_default();
                if *seen >= req.per_file {
                    continue;
                }
                *seen += 1;
                results.push(hit(sc, store, score, signals, &words));
                if results.len() >= req.limit {
                    break;
                }
            }
            if results.len() >= req.limit {
                break;
            }
        }
        let stores = if req.freshness {
            stores
                .iter()
                .map(|s| self.freshness(s))
                .collect::<Result<Vec<_>, _>>()?
        } else {
            Vec::new()
        };
        Ok(SearchResponse {
            query: req.query.clone(),
            mode: req.mode,
            results,
            elapsed_ms: started.elapsed().as_secs_f64() * 1000.0,
            stores,
        })
    }

    /// Counts files added, changed (size or mtime) or deleted since the last index run.
    pub fn freshness(&self, store: &StoreRecord) -> Result<Freshness, EngineError> {
        let manifest = self.catalog.manifest(store.id)?;
        let walk = lore_source::walk(&store.root, &walk_options(store));
        let changed_files = match walk {
            Ok(w) => {
                let mut seen = HashSet::new();
                let mut changed = 0;
                for f in &w.files {
                    seen.insert(f.rel.as_str());
                    match manifest.get(&f.rel) {
                        Some(m) if m.size == f.size && m.mtime_ns == f.mtime_ns => {}
                        _ => changed += 1,
                    }
                }
                changed
                    + manifest
                        .keys()
                        .filter(|p| !seen.contains(p.as_str()))
                        .count()
            }
            // The folder is gone: everything indexed is stale.
            Err(_) => manifest.len(),
        };
        Ok(Freshness {
            store: store.name.clone(),
            indexed_at: store.indexed_at,
            changed_files,
        })
    }

    /// Relative path of every chunk of a store, by id (evaluation maps chunks to documents).
    pub fn chunk_paths(&self, store: &str) -> Result<HashMap<i64, String>, EngineError> {
        let s = self.require_store(store)?;
        Ok(self.catalog.chunk_paths(s.id)?)
    }

    pub fn store_record(&self, name: &str) -> Result<StoreRecord, EngineError> {
        self.require_store(name)
    }
}

fn query_words(q: &str) -> Vec<String> {
    q.split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| w.chars().count() >= 3)
        .map(str::to_lowercase)
        .collect()
}

/// The most telling lines of a chunk: the line with the most query words, and the next two.
fn snippet(content: &str, words: &[String]) -> String {
    let lines: Vec<&str> = content.lines().collect();
    let score = |l: &str| {
        let l = l.to_lowercase();
        words.iter().filter(|w| l.contains(w.as_str())).count()
    };
    let best = (0..lines.len())
        .max_by_key(|&i| (score(lines[i]), std::cmp::Reverse(i)))
        .unwrap_or(0);
    let start = if score(lines.get(best).copied().unwrap_or("")) == 0 {
        lines.iter().position(|l| !l.trim().is_empty()).unwrap_or(0)
    } else {
        best
    };
    let text = lines
        .iter()
        .skip(start)
        .take(3)
        .map(|l| l.trim_end())
        .collect::<Vec<_>>()
        .join("\n");
    truncate_chars(&text, 300)
}

fn truncate_chars(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

fn hit(
    sc: &StoredChunk,
    store: &StoreRecord,
    score: f32,
    signals: Signals,
    words: &[String],
) -> SearchHit {
    SearchHit {
        unit: UnitRef::new(sc, &store.name),
        score,
        snippet: snippet(&sc.chunk.content, words),
        signals,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippet_picks_the_matching_line() {
        let content = "fn a() {\n    let x = 1;\n    parse_json(body)\n}\n";
        let s = snippet(content, &query_words("parse json"));
        assert!(s.starts_with("    parse_json(body)"), "{s}");
        let s = snippet("\n\nhello\nworld", &query_words("zzz"));
        assert!(s.starts_with("hello"));
        assert_eq!(truncate_chars("ééé", 2), "éé…");
    }
}
