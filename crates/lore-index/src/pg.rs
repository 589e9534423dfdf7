//! A store's BM25 and vector indexes inside PostgreSQL, written in the catalog's own
//! transaction (so they can never disagree with it) and shared by every process on the
//! database.
//!
//! BM25 is computed from postings tables, not `tsvector`s: `ts_rank` has no inverse
//! document frequency, which is most of what BM25 is, and lore's code-aware tokens
//! (identifier parts, paths) are produced by lore's own analyzer anyway. `lex_postings`
//! holds one row per (term, field, chunk) with the term's frequency and the field's
//! length; `lex_docs` one row per chunk with its field lengths. Scores follow tantivy's
//! BM25 (k1 = 1.2, b = 0.75, the same idf and per-field boosts, `QueryPlan`), without its
//! length quantisation.
//!
//! Vectors are the catalog's `embedding` column (pgvector), scored by inner product as the
//! embedded snapshot scores them (the model's vectors are unit length).

use crate::catalog::Catalog;
use crate::fts::{BM25_B, BM25_K1, FIELDS, FieldBoosts, FtsHits, QueryPlan, TermPolicy};
use crate::sql::{Arg, Sql, args};
use crate::{IndexError, LexicalIndex, VectorIndex};
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// Documents and average field lengths of a store's BM25 index.
#[derive(Debug, Clone, Copy)]
struct Stats {
    docs: u64,
    avgdl: [f64; 4],
}

/// A store's BM25 index in PostgreSQL, for one catalog generation: its statistics are
/// read once, and each term's document frequencies once (a generation's postings do not
/// change; every index run starts another).
pub struct PgLexical {
    store_id: i64,
    stats: OnceLock<Stats>,
    /// Chunks holding a term, per field, for the terms searched so far.
    doc_freqs: Mutex<HashMap<String, [u64; FIELDS.len()]>>,
}

/// Terms whose document frequencies a `PgLexical` keeps; past it they are read again.
const DOC_FREQS_KEPT: usize = 100_000;

impl PgLexical {
    pub fn new(store_id: i64) -> PgLexical {
        PgLexical {
            store_id,
            stats: OnceLock::new(),
            doc_freqs: Mutex::new(HashMap::new()),
        }
    }

    fn stats(&self, db: &Sql) -> Result<Stats, IndexError> {
        if let Some(s) = self.stats.get() {
            return Ok(*s);
        }
        let stats = db
            .query_opt(
                "SELECT COUNT(*), AVG(len_content)::float8, AVG(len_symbol)::float8, \
                 AVG(len_headings)::float8, AVG(len_path)::float8 FROM lex_docs WHERE store_id = ?1",
                args![self.store_id],
                |r| {
                    let avg = |i| r.opt_real(i).map(|v| v.unwrap_or(0.0));
                    Ok(Stats {
                        docs: r.int(0)? as u64,
                        avgdl: [avg(1)?, avg(2)?, avg(3)?, avg(4)?],
                    })
                },
            )?
            .unwrap_or(Stats {
                docs: 0,
                avgdl: [0.0; 4],
            });
        Ok(*self.stats.get_or_init(|| stats))
    }

    /// Chunks holding each (term, field) of `terms` in this store: counted in the postings
    /// for the terms not searched before (the count reads every posting of the term, as
    /// much as scoring does).
    fn doc_freqs(
        &self,
        db: &Sql,
        terms: Vec<String>,
    ) -> Result<HashMap<String, [u64; FIELDS.len()]>, IndexError> {
        let mut known = HashMap::with_capacity(terms.len());
        let mut missing = Vec::new();
        if let Ok(kept) = self.doc_freqs.lock() {
            for t in terms {
                match kept.get(&t) {
                    Some(df) => {
                        known.insert(t, *df);
                    }
                    None => missing.push(t),
                }
            }
        } else {
            missing = terms;
        }
        if missing.is_empty() {
            return Ok(known);
        }
        let rows = db.query(
            "SELECT term, field, COUNT(*) FROM lex_postings WHERE store_id = ?1 AND term = ANY(?2) \
             GROUP BY term, field",
            &[self.store_id.into(), Arg::Texts(missing.clone())],
            |r| Ok((r.text(0)?, r.int(1)? as usize, r.int(2)? as u64)),
        )?;
        let mut found: HashMap<String, [u64; FIELDS.len()]> = missing
            .into_iter()
            .map(|t| (t, [0; FIELDS.len()]))
            .collect();
        for (term, field, n) in rows {
            if let Some(df) = found.get_mut(&term).and_then(|f| f.get_mut(field)) {
                *df = n;
            }
        }
        if let Ok(mut kept) = self.doc_freqs.lock() {
            if kept.len() + found.len() > DOC_FREQS_KEPT {
                kept.clear();
            }
            kept.extend(found.iter().map(|(t, df)| (t.clone(), *df)));
        }
        known.extend(found);
        Ok(known)
    }
}

impl LexicalIndex for PgLexical {
    fn search(
        &self,
        catalog: &Catalog,
        query: &str,
        limit: usize,
        boosts: &FieldBoosts,
        policy: TermPolicy,
    ) -> Result<FtsHits, IndexError> {
        let db = catalog.sql();
        let terms = QueryPlan::terms(query);
        if terms.is_empty() {
            return Ok(FtsHits::default());
        }
        let stats = self.stats(db)?;
        let df = self.doc_freqs(db, terms)?;
        let plan = QueryPlan::new(query, boosts, policy, stats.docs, |field, t| {
            df.get(t).and_then(|f| f.get(field)).copied().unwrap_or(0)
        });
        if plan.clauses.is_empty() {
            return Ok(FtsHits::default());
        }
        let mut terms = Vec::with_capacity(plan.clauses.len());
        let (mut fields, mut weights, mut avgdl) = (Vec::new(), Vec::new(), Vec::new());
        for c in &plan.clauses {
            terms.push(c.term.clone());
            fields.push(c.field as i64);
            weights.push(f64::from(c.boost * c.idf));
            avgdl.push(stats.avgdl[c.field].max(1e-9));
        }
        debug_assert_eq!(FIELDS.len(), stats.avgdl.len());
        let sql = format!(
            "SELECT p.chunk_id, \
             SUM(q.w * p.tf * {k1p1}::float8 / (p.tf + {k1}::float8 * ({one_b}::float8 + {b}::float8 * p.dl / q.avgdl))) AS score \
             FROM unnest(?2::text[], ?3::int[], ?4::float8[], ?5::float8[]) AS q(term, field, w, avgdl) \
             JOIN lex_postings p ON p.store_id = ?1 AND p.term = q.term AND p.field = q.field \
             GROUP BY p.chunk_id ORDER BY score DESC, p.chunk_id LIMIT ?6",
            k1p1 = BM25_K1 + 1.0,
            k1 = BM25_K1,
            one_b = 1.0 - BM25_B,
            b = BM25_B,
        );
        let hits = db.query(
            &sql,
            &[
                self.store_id.into(),
                Arg::Texts(terms),
                Arg::Ints(fields),
                Arg::Reals(weights),
                Arg::Reals(avgdl),
                limit.max(1).into(),
            ],
            |r| Ok((r.int(0)?, r.opt_real(1)?.unwrap_or(0.0) as f32)),
        )?;
        Ok(FtsHits {
            hits,
            max_score: plan.max_score,
        })
    }
}

/// Stores with at least this many vectors get an HNSW index (pgvector): below it the
/// exact scan answers in a few milliseconds (`lore bench --database` measures both).
pub const HNSW_MIN_VECTORS: u64 = 20_000;

/// Candidates an HNSW search keeps (`hnsw.ef_search`), at least the `k` asked for: chosen
/// from the recall@10 against exact search that `lore bench --database` reports.
pub const HNSW_EF_SEARCH: usize = 200;

/// The HNSW index of one store: a partial index on its rows, over the embedding cast to
/// its dimension (the column holds vectors of any dimension, an HNSW index one).
fn hnsw_name(store_id: i64) -> String {
    format!("chunks_hnsw_{store_id}")
}

/// How PostgreSQL's buffer cache compares with the indexes lore searches.
#[derive(Debug, Clone, Copy)]
pub struct CacheFit {
    /// `shared_buffers`, in bytes.
    pub shared_buffers: u64,
    /// The BM25 postings key (what BM25 reads), in bytes.
    pub postings: u64,
    /// Every store's HNSW index, in bytes.
    pub hnsw: u64,
}

impl CacheFit {
    /// Whether the searched indexes fit in the buffer cache.
    pub fn fits(&self) -> bool {
        self.postings + self.hnsw <= self.shared_buffers
    }
}

impl Catalog {
    /// The buffer cache against the searched indexes (PostgreSQL only): a search whose
    /// index is not in `shared_buffers` reads it page by page from the OS.
    pub fn cache_fit(&self) -> Result<Option<CacheFit>, IndexError> {
        if !self.holds_indexes() {
            return Ok(None);
        }
        self.sql().query_opt(
            "SELECT (SELECT setting::int8 * current_setting('block_size')::int8 FROM pg_settings \
             WHERE name = 'shared_buffers'), \
             COALESCE((SELECT pg_relation_size(oid) FROM pg_class WHERE relname = 'lex_postings_pkey'), 0)::int8, \
             COALESCE((SELECT SUM(pg_relation_size(oid)) FROM pg_class \
             WHERE relname LIKE 'chunks\\_hnsw\\_%' AND relkind = 'i'), 0)::int8",
            &[],
            |r| {
                Ok(CacheFit {
                    shared_buffers: r.int(0)? as u64,
                    postings: r.int(1)? as u64,
                    hnsw: r.int(2)? as u64,
                })
            },
        )
    }

    /// Builds the store's HNSW index when it has `min_vectors` (the product passes
    /// [`HNSW_MIN_VECTORS`]) vectors of one dimension and none yet (PostgreSQL only; a
    /// no-op otherwise). Returns whether it built one. Run after an index run's vectors
    /// are committed, outside a transaction.
    pub fn ensure_vector_index(&self, store_id: i64, min_vectors: u64) -> Result<bool, IndexError> {
        if !self.holds_indexes() || self.vector_index_dim(store_id)?.is_some() {
            return Ok(false);
        }
        let (embedded, _) = self.embedding_progress(store_id)?;
        if embedded < min_vectors {
            return Ok(false);
        }
        let dims = self.sql().query(
            "SELECT DISTINCT vector_dims(embedding)::int8 FROM chunks \
             WHERE store_id = ?1 AND embedding IS NOT NULL",
            args![store_id],
            |r| r.int(0),
        )?;
        let [dim] = dims[..] else {
            return Ok(false);
        };
        // The graph is built in memory when it fits (much faster than on disk). Its build
        // takes minutes at 100k+ vectors on 2 cores, past the statement limit searches
        // keep: the limit is lifted for it and put back whatever the build did.
        let limit = self.sql().query_opt(
            "SELECT current_setting('statement_timeout')",
            args![],
            |r| r.text(0),
        )?;
        let built = self.sql().batch(&format!(
            "SET statement_timeout = 0; SET maintenance_work_mem = '1GB'; \
             CREATE INDEX IF NOT EXISTS {} ON chunks USING hnsw \
             ((embedding::vector({dim})) vector_ip_ops) WHERE store_id = {store_id}",
            hnsw_name(store_id)
        ));
        let reset = self.sql().batch(&format!(
            "RESET maintenance_work_mem; SET statement_timeout = '{}'",
            limit.unwrap_or_default().replace('\'', "")
        ));
        built?;
        reset?;
        Ok(true)
    }

    /// Drops the store's HNSW index, if any (its store is going, or re-embedding).
    pub fn drop_vector_index(&self, store_id: i64) -> Result<(), IndexError> {
        if self.holds_indexes() {
            self.sql()
                .batch(&format!("DROP INDEX IF EXISTS {}", hnsw_name(store_id)))?;
        }
        Ok(())
    }

    /// The dimension of the store's HNSW index, when it has one.
    pub fn vector_index_dim(&self, store_id: i64) -> Result<Option<usize>, IndexError> {
        let def = self.sql().query_opt(
            "SELECT indexdef FROM pg_indexes WHERE indexname = ?1",
            args![hnsw_name(store_id)],
            |r| r.text(0),
        )?;
        Ok(def.and_then(|d| {
            let at = d.find("::vector(")? + "::vector(".len();
            d[at..].split(')').next()?.parse().ok()
        }))
    }
}

/// A store's vectors in PostgreSQL, scored by inner product: through the store's HNSW
/// index when it has one (approximate, `ef_search` candidates), else an exact scan.
pub struct PgVectors {
    store_id: i64,
    /// The HNSW index's dimension, and the candidates a search keeps.
    hnsw: Option<(usize, usize)>,
}

impl PgVectors {
    /// Exact search over the store's rows.
    pub fn new(store_id: i64) -> PgVectors {
        PgVectors {
            store_id,
            hnsw: None,
        }
    }

    /// Through the store's HNSW index when it has one, keeping `ef_search` candidates.
    pub fn open(
        catalog: &Catalog,
        store_id: i64,
        ef_search: usize,
    ) -> Result<PgVectors, IndexError> {
        Ok(PgVectors {
            store_id,
            hnsw: catalog
                .vector_index_dim(store_id)?
                .map(|dim| (dim, ef_search)),
        })
    }

    pub fn uses_hnsw(&self) -> bool {
        self.hnsw.is_some()
    }
}

impl VectorIndex for PgVectors {
    fn search(
        &self,
        catalog: &Catalog,
        query: &[f32],
        k: usize,
    ) -> Result<Vec<(i64, f32)>, IndexError> {
        let parse = |r: &mut crate::sql::Row| Ok((r.int(0)?, r.opt_real(1)?.unwrap_or(0.0) as f32));
        match self.hnsw {
            // The planner uses the partial index only for the literal store id and the
            // index's own expression.
            Some((dim, ef)) if dim == query.len() => {
                catalog
                    .sql()
                    .batch(&format!("SET hnsw.ef_search = {}", ef.max(k).min(1000)))?;
                catalog.sql().query(
                    &format!(
                        "SELECT id, ((embedding::vector({dim}) <#> ?1) * -1)::float8 FROM chunks \
                         WHERE store_id = {} ORDER BY embedding::vector({dim}) <#> ?1 LIMIT ?2",
                        self.store_id
                    ),
                    args![query, k],
                    parse,
                )
            }
            _ => catalog.sql().query(
                "SELECT id, ((embedding <#> ?2) * -1)::float8 FROM chunks \
                 WHERE store_id = ?1 AND embedding IS NOT NULL ORDER BY embedding <#> ?2, id LIMIT ?3",
                args![self.store_id, query, k],
                parse,
            ),
        }
    }

    fn scores(
        &self,
        catalog: &Catalog,
        ids: &[i64],
        query: &[f32],
    ) -> Result<HashMap<i64, f32>, IndexError> {
        if ids.is_empty() {
            return Ok(HashMap::new());
        }
        let rows = catalog.sql().query(
            "SELECT id, ((embedding <#> ?1) * -1)::float8 FROM chunks \
             WHERE id = ANY(?2) AND store_id = ?3 AND embedding IS NOT NULL",
            &[query.into(), Arg::Ints(ids.to_vec()), self.store_id.into()],
            |r| Ok((r.int(0)?, r.opt_real(1)?.unwrap_or(0.0) as f32)),
        )?;
        Ok(rows.into_iter().collect())
    }
}
