//! The BM25 side: one tantivy index per store, analyzed with the code-aware tokenizer.

use crate::IndexError;
use crate::tokenizer::{analyze, code_analyzer};
use lore_core::Chunk;
use std::collections::HashSet;
use std::path::Path;
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, TermQuery};
use tantivy::schema::{
    FAST, Field, IndexRecordOption, STRING, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

const ANALYZER: &str = "lore_code";
/// Queries longer than this many distinct terms keep only the rarest ones (stack traces,
/// pasted code): the common terms add latency, not ranking signal.
const MAX_QUERY_TERMS: usize = 64;

#[derive(Clone, Copy)]
struct Fields {
    id: Field,
    path_key: Field,
    path: Field,
    symbol: Field,
    headings: Field,
    content: Field,
}

/// Per-field weights of the BM25 query (BM25F-style sum of field scores).
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct FieldBoosts {
    pub content: f32,
    pub symbol: f32,
    pub headings: f32,
    pub path: f32,
}

/// Chosen on the labeled sets (ARCHITECTURE.md, "Fusion"): a unit's name and a section's
/// heading are already in its content, so weighting those fields again mostly rewards
/// short-field matches on common words; a little symbol weight still helps code.
impl Default for FieldBoosts {
    fn default() -> Self {
        FieldBoosts {
            content: 1.0,
            symbol: 0.25,
            headings: 0.0,
            path: 0.5,
        }
    }
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let text = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(ANALYZER)
            .set_index_option(IndexRecordOption::WithFreqs),
    );
    let fields = Fields {
        id: b.add_i64_field("id", FAST),
        path_key: b.add_text_field("path_key", STRING),
        path: b.add_text_field("path", text.clone()),
        symbol: b.add_text_field("symbol", text.clone()),
        headings: b.add_text_field("headings", text.clone()),
        content: b.add_text_field("content", text),
    };
    (b.build(), fields)
}

/// A store's BM25 index, opened for reading (and for writing through `writer`).
pub struct Fts {
    index: Index,
    reader: IndexReader,
    fields: Fields,
}

/// Buffered changes to a store's BM25 index; invisible to readers until `commit`.
pub struct FtsWriter {
    writer: IndexWriter,
    fields: Fields,
}

fn fts_err(dir: &Path) -> impl Fn(tantivy::TantivyError) -> IndexError + '_ {
    move |e| IndexError::Fts(dir.display().to_string(), e)
}

impl Fts {
    /// Opens the index in `dir`, creating it when absent.
    pub fn open(dir: &Path) -> Result<Fts, IndexError> {
        let err = fts_err(dir);
        let (schema, fields) = schema();
        let index = if dir.join("meta.json").exists() {
            Index::open_in_dir(dir).map_err(&err)?
        } else {
            std::fs::create_dir_all(dir)
                .map_err(|e| IndexError::Io(dir.display().to_string(), e))?;
            Index::create_in_dir(dir, schema).map_err(&err)?
        };
        index.tokenizers().register(ANALYZER, code_analyzer());
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(&err)?;
        Ok(Fts {
            index,
            reader,
            fields,
        })
    }

    pub fn writer(&self) -> Result<FtsWriter, IndexError> {
        let writer = self
            .index
            .writer_with_num_threads(1, 64 * 1024 * 1024)
            .map_err(|e| IndexError::Fts("writer".into(), e))?;
        Ok(FtsWriter {
            writer,
            fields: self.fields,
        })
    }

    /// Makes the latest commit visible to `search`.
    pub fn reload(&self) -> Result<(), IndexError> {
        self.reader
            .reload()
            .map_err(|e| IndexError::Fts("reload".into(), e))
    }

    pub fn num_docs(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// BM25 top `limit` chunk ids with scores, best first, and the query's maximum
    /// attainable score (every term at saturation in every field it occurs in), which
    /// gives BM25 scores a scale that means the same across queries.
    pub fn search(
        &self,
        query: &str,
        limit: usize,
        boosts: &FieldBoosts,
    ) -> Result<FtsHits, IndexError> {
        let err = |e| IndexError::Fts("search".into(), e);
        let searcher = self.reader.searcher();
        let terms = self.query_terms(query, &searcher);
        if terms.is_empty() {
            return Ok(FtsHits::default());
        }
        let n = searcher.num_docs() as f32;
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        let mut max_score = 0.0;
        for t in &terms {
            for (field, boost) in self.weighted_fields(boosts) {
                let term = Term::from_field_text(field, t);
                let df = searcher.doc_freq(&term).map_err(err)? as f32;
                if boost <= 0.0 || df == 0.0 {
                    continue;
                }
                let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                max_score += boost * idf * (BM25_K1 + 1.0);
                let tq = TermQuery::new(term, IndexRecordOption::WithFreqs);
                clauses.push((
                    Occur::Should,
                    Box::new(BoostQuery::new(Box::new(tq), boost)),
                ));
            }
        }
        if clauses.is_empty() {
            return Ok(FtsHits::default());
        }
        let top = searcher
            .search(
                &BooleanQuery::new(clauses),
                &TopDocs::with_limit(limit.max(1)).order_by_score(),
            )
            .map_err(err)?;
        let mut hits = Vec::with_capacity(top.len());
        for (score, addr) in top {
            let col = searcher
                .segment_reader(addr.segment_ord)
                .fast_fields()
                .i64("id")
                .map_err(err)?;
            if let Some(id) = col.first(addr.doc_id) {
                hits.push((id, score));
            }
        }
        Ok(FtsHits { hits, max_score })
    }

    fn weighted_fields(&self, boosts: &FieldBoosts) -> [(Field, f32); 4] {
        let f = self.fields;
        [
            (f.content, boosts.content),
            (f.symbol, boosts.symbol),
            (f.headings, boosts.headings),
            (f.path, boosts.path),
        ]
    }

    /// The distinct analyzed terms of a query; for very long queries (stack traces,
    /// pasted code) only the rarest `MAX_QUERY_TERMS`, since common terms add latency,
    /// not ranking signal.
    fn query_terms(&self, query: &str, searcher: &tantivy::Searcher) -> Vec<String> {
        let mut analyzer: TextAnalyzer = code_analyzer();
        let mut seen = HashSet::new();
        let mut terms: Vec<String> = analyze(&mut analyzer, query)
            .into_iter()
            .filter(|t| seen.insert(t.clone()))
            .collect();
        if terms.len() > MAX_QUERY_TERMS {
            let df = |t: &String| {
                searcher
                    .doc_freq(&Term::from_field_text(self.fields.content, t))
                    .unwrap_or(0)
            };
            terms.sort_by_cached_key(df);
            terms.truncate(MAX_QUERY_TERMS);
        }
        terms
    }
}

/// BM25 hits of one query.
#[derive(Debug, Clone, Default)]
pub struct FtsHits {
    pub hits: Vec<(i64, f32)>,
    pub max_score: f32,
}

/// tantivy's BM25 constant k1.
const BM25_K1: f32 = 1.2;

impl FtsWriter {
    pub fn delete_file(&mut self, path: &str) {
        self.writer
            .delete_term(Term::from_field_text(self.fields.path_key, path));
    }

    pub fn delete_all(&mut self) {
        let _ = self.writer.delete_all_documents();
    }

    pub fn add_chunk(&mut self, id: i64, path: &str, chunk: &Chunk) -> Result<(), IndexError> {
        let f = self.fields;
        let mut doc = TantivyDocument::default();
        doc.add_i64(f.id, id);
        doc.add_text(f.path_key, path);
        doc.add_text(f.path, path);
        let mut symbol = String::new();
        for s in [&chunk.symbol, &chunk.parent].into_iter().flatten() {
            symbol.push_str(s);
            symbol.push(' ');
        }
        doc.add_text(f.symbol, &symbol);
        doc.add_text(f.headings, chunk.headings.join("\n"));
        match &chunk.context {
            Some(ctx) => doc.add_text(f.content, format!("{ctx}\n{}", chunk.content)),
            None => doc.add_text(f.content, &chunk.content),
        }
        self.writer
            .add_document(doc)
            .map_err(|e| IndexError::Fts("add".into(), e))?;
        Ok(())
    }

    /// Durably commits every change since the last commit.
    pub fn commit(&mut self) -> Result<(), IndexError> {
        self.writer
            .commit()
            .map_err(|e| IndexError::Fts("commit".into(), e))?;
        Ok(())
    }

    /// Commits, then waits for background merges so the directory is left tidy.
    pub fn finish(mut self) -> Result<(), IndexError> {
        self.commit()?;
        self.writer
            .wait_merging_threads()
            .map_err(|e| IndexError::Fts("merge".into(), e))
    }
}
