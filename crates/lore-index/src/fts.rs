//! The BM25 side: one tantivy index per store, analyzed with the code-aware tokenizer.
//!
//! A store's BM25 folder (`stores/<id>/fts`) holds the live index in a subfolder named by
//! the file `CURRENT` (an index written before that file existed lives in the folder
//! itself). A rebuild ([`FtsBuild`]) writes a fresh subfolder and then replaces `CURRENT`
//! (write a temp file, rename), so a crash at any point leaves the old index or the new one
//! live, never neither; the writer removes the other subfolders when it next opens the
//! index ([`clean`]). Every commit records the catalog generation it was written for
//! ([`Fts::generation`]).

use crate::IndexError;
use crate::grams::{GramWriter, Grams};
use crate::tokenizer::{analyze, code_analyzer, field_texts};
use lore_core::Chunk;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
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
    /// The files' trigrams (grep); `None` in an index written before lore kept them.
    grams: Option<Box<Grams>>,
}

/// Buffered changes to a store's BM25 index; invisible to readers until `commit`.
pub struct FtsWriter {
    writer: IndexWriter,
    fields: Fields,
    grams: Option<GramWriter>,
}

/// What a store's BM25 folder holds, found without writing anything.
pub enum FtsState {
    /// No index: the folder, or the index `CURRENT` names, does not exist.
    Missing,
    /// An index that does not open, and why.
    Damaged(String),
    Present(Fts),
}

/// The file naming the live index's subfolder.
const CURRENT: &str = "CURRENT";
/// Prefix of the subfolders that hold an index.
const BUILD_PREFIX: &str = "v";

fn fts_err(dir: &Path) -> impl Fn(tantivy::TantivyError) -> IndexError + '_ {
    move |e| IndexError::Fts(dir.display().to_string(), e)
}

fn io_err(path: &Path) -> impl Fn(std::io::Error) -> IndexError + '_ {
    move |e| IndexError::Io(path.display().to_string(), e)
}

/// The folder of the live index under `dir` (`None`: there is none), read from `CURRENT`.
fn live_dir(dir: &Path) -> Result<Option<PathBuf>, IndexError> {
    let pointer = dir.join(CURRENT);
    match std::fs::read_to_string(&pointer) {
        Ok(name) => {
            let name = name.trim();
            let valid = name
                .strip_prefix(BUILD_PREFIX)
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
            if !valid {
                return Err(IndexError::Corrupt(pointer.display().to_string()));
            }
            Ok(Some(dir.join(name)))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // An index from before `CURRENT`, in the folder itself.
            Ok(dir.join("meta.json").exists().then(|| dir.to_path_buf()))
        }
        Err(e) => Err(io_err(&pointer)(e)),
    }
}

/// Removes what is not the live index from a store's BM25 folder: half-built or replaced
/// subfolders, a temp pointer, and the files of an index from before `CURRENT` once a
/// rebuilt one is live. Only the writer calls this; a file another process still has open
/// stays readable to it (and one that cannot be removed yet is left for the next time).
pub fn clean(dir: &Path) -> Result<(), IndexError> {
    // A damaged pointer is left for the rebuild that replaces it.
    let Ok(live) = live_dir(dir) else {
        return Ok(());
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    let legacy_live = live.as_deref() == Some(dir);
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name == CURRENT || live.as_deref() == Some(path.as_path()) {
            continue;
        }
        let is_build = path.is_dir() && name.starts_with(BUILD_PREFIX);
        // With no `CURRENT`, the folder's own files are the live index.
        if legacy_live && !is_build && name != "CURRENT.tmp" {
            continue;
        }
        let _ = if path.is_dir() {
            std::fs::remove_dir_all(&path)
        } else {
            std::fs::remove_file(&path)
        };
    }
    Ok(())
}

fn open_index(dir: &Path) -> Result<Fts, IndexError> {
    let err = fts_err(dir);
    let (_, fields) = schema();
    let index = Index::open_in_dir(dir).map_err(&err)?;
    Fts::with_index(index, fields, dir, Grams::open(dir, false)?)
}

impl Fts {
    fn with_index(
        index: Index,
        fields: Fields,
        dir: &Path,
        grams: Option<Grams>,
    ) -> Result<Fts, IndexError> {
        let err = fts_err(dir);
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
            grams: grams.map(Box::new),
        })
    }

    /// The trigram index of the files (`None`: this index was written before lore kept one).
    pub fn grams(&self) -> Option<&Grams> {
        self.grams.as_deref()
    }

    /// Opens a store's index for reading (`dir` is its BM25 folder). A store without one
    /// yet reads as empty (nothing is created); one that does not open is an error.
    pub fn open(dir: &Path) -> Result<Fts, IndexError> {
        match Fts::probe(dir) {
            FtsState::Present(fts) => Ok(fts),
            FtsState::Missing if live_dir(dir)?.is_none() => {
                let (schema, fields) = schema();
                Fts::with_index(
                    Index::create_in_ram(schema),
                    fields,
                    dir,
                    Some(Grams::in_ram()?),
                )
            }
            // The error itself, with its cause.
            _ => open_index(&live_dir(dir)?.unwrap_or_else(|| dir.to_path_buf())),
        }
    }

    /// Whether the folder holds no index at all (never written, or deleted): cheaper than
    /// `probe`, as nothing is opened. A damaged index is not missing.
    pub fn is_missing(dir: &Path) -> bool {
        match live_dir(dir) {
            Ok(Some(live)) => !live.join("meta.json").exists(),
            Ok(None) => true,
            Err(_) => false,
        }
    }

    /// What the folder holds, found without writing to it (for checks).
    pub fn probe(dir: &Path) -> FtsState {
        // A writer swapping in a rebuilt index replaces `CURRENT`, then removes the folder
        // it named: a reader that read the old name just before looks again.
        let mut state = FtsState::Missing;
        for _ in 0..3 {
            let live = match live_dir(dir) {
                Ok(live) => live,
                Err(e) => return FtsState::Damaged(e.to_string()),
            };
            state = match &live {
                None => return FtsState::Missing,
                Some(l) if !l.join("meta.json").exists() => FtsState::Missing,
                Some(l) => match open_index(l) {
                    Ok(fts) => return FtsState::Present(fts),
                    Err(e) => FtsState::Damaged(e.to_string()),
                },
            };
            if live_dir(dir).ok().flatten() == live {
                break;
            }
        }
        state
    }

    /// Opens the index for a writer, creating an empty one when the store has none. Leftovers
    /// of interrupted rebuilds are removed first.
    pub fn open_or_create(dir: &Path) -> Result<Fts, IndexError> {
        clean(dir)?;
        match live_dir(dir)? {
            Some(live) => open_index(&live),
            None => FtsBuild::start(dir)?.swap_in(None),
        }
    }

    /// The catalog generation the last commit was written for (`None` for an index written
    /// before lore recorded it).
    pub fn generation(&self) -> Option<i64> {
        let payload = self.index.load_metas().ok()?.payload?;
        payload.strip_prefix("generation ")?.trim().parse().ok()
    }

    /// The chunk ids of every live document, ascending.
    pub fn ids(&self) -> Result<Vec<i64>, IndexError> {
        let err = |e| IndexError::Fts("ids".into(), e);
        let searcher = self.reader.searcher();
        let mut ids = Vec::with_capacity(searcher.num_docs() as usize);
        for segment in searcher.segment_readers() {
            let col = segment.fast_fields().i64("id").map_err(err)?;
            for doc in segment.doc_ids_alive() {
                if let Some(id) = col.first(doc) {
                    ids.push(id);
                }
            }
        }
        ids.sort_unstable();
        Ok(ids)
    }

    pub fn writer(&self) -> Result<FtsWriter, IndexError> {
        let writer = self
            .index
            .writer_with_num_threads(1, 64 * 1024 * 1024)
            .map_err(|e| IndexError::Fts("writer".into(), e))?;
        Ok(FtsWriter {
            writer,
            fields: self.fields,
            grams: self.grams().map(Grams::writer).transpose()?,
        })
    }

    /// Makes the latest commit visible to `search`.
    pub fn reload(&self) -> Result<(), IndexError> {
        if let Some(g) = &self.grams {
            g.reload()?;
        }
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
        self.search_with(query, limit, boosts, TermPolicy::SEARCH)
    }

    /// `search` with a choice of which query terms count and how much (see `TermPolicy`).
    pub fn search_with(
        &self,
        query: &str,
        limit: usize,
        boosts: &FieldBoosts,
        policy: TermPolicy,
    ) -> Result<FtsHits, IndexError> {
        let err = |e| IndexError::Fts("search".into(), e);
        let searcher = self.reader.searcher();
        let fields = self.fields.text();
        let plan = QueryPlan::new(query, boosts, policy, searcher.num_docs(), |field, t| {
            searcher
                .doc_freq(&Term::from_field_text(fields[field], t))
                .unwrap_or(0)
        });
        if plan.clauses.is_empty() {
            return Ok(FtsHits::default());
        }
        let clauses: Vec<(Occur, Box<dyn Query>)> = plan
            .clauses
            .iter()
            .map(|c| {
                let term = Term::from_field_text(fields[c.field], &c.term);
                let tq = TermQuery::new(term, IndexRecordOption::WithFreqs);
                (
                    Occur::Should,
                    Box::new(BoostQuery::new(Box::new(tq), c.boost)) as Box<dyn Query>,
                )
            })
            .collect();
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
        Ok(FtsHits {
            hits,
            max_score: plan.max_score,
        })
    }
}

impl Fields {
    /// The analysed fields, in `FIELDS` order.
    fn text(&self) -> [Field; 4] {
        [self.content, self.symbol, self.headings, self.path]
    }
}

/// The analysed fields of a chunk's BM25 document, in the order both backends number them.
pub const FIELDS: [&str; 4] = ["content", "symbol", "headings", "path"];

/// One weighted term of a BM25 query: `field` indexes `FIELDS`.
#[derive(Debug, Clone)]
pub struct Clause {
    pub field: usize,
    pub term: String,
    /// The field's boost times the term's weight in the query.
    pub boost: f32,
    /// BM25's idf of the term in the field.
    pub idf: f32,
}

/// What a query asks of a BM25 index: its weighted terms per field, and the maximum score
/// it can reach (every term at saturation in every field it occurs in), which gives BM25
/// scores a scale that means the same across queries. Written once for both backends:
/// they differ only in where `num_docs` and the document frequencies come from.
#[derive(Debug, Clone, Default)]
pub struct QueryPlan {
    pub clauses: Vec<Clause>,
    pub max_score: f32,
}

impl QueryPlan {
    pub fn new(
        query: &str,
        boosts: &FieldBoosts,
        policy: TermPolicy,
        num_docs: u64,
        doc_freq: impl Fn(usize, &str) -> u64,
    ) -> QueryPlan {
        let n = num_docs as f32;
        let idf = |df: f32| (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
        let weights = [boosts.content, boosts.symbol, boosts.headings, boosts.path];
        let mut plan = QueryPlan::default();
        for (t, weight) in query_terms(query, policy, n, |t| doc_freq(0, t)) {
            let mut found = false;
            for (field, boost) in weights.iter().enumerate() {
                let boost = boost * weight;
                let df = doc_freq(field, &t) as f32;
                if boost <= 0.0 || df == 0.0 {
                    continue;
                }
                found = true;
                let idf = idf(df);
                plan.max_score += boost * idf * (BM25_K1 + 1.0);
                plan.clauses.push(Clause {
                    field,
                    term: t.clone(),
                    boost,
                    idf,
                });
            }
            // A term this index does not hold at all still counts toward the maximum (as
            // in content, at the rarest term's weight): the query asked for it, so a chunk
            // that matches only its other words answers it less well. Searched among other
            // stores, a store without the query's rare words then does not score its
            // best partial match as high as another store's whole match.
            if !found && n > 0.0 {
                plan.max_score += weights[0] * weight * idf(0.0) * (BM25_K1 + 1.0);
            }
        }
        plan
    }

    /// The distinct analysed terms of a query (without asking for their frequencies).
    pub fn terms(query: &str) -> Vec<String> {
        let mut analyzer: TextAnalyzer = code_analyzer();
        let mut seen = std::collections::HashSet::new();
        analyze(&mut analyzer, query)
            .into_iter()
            .filter(|t| seen.insert(t.clone()))
            .collect()
    }
}

/// The distinct analysed terms of a query with their weights. Past `policy.max_terms`
/// only the most telling are kept: the rarest (a stack trace's or pasted code's common
/// terms add latency, not signal), or, weighing repetition, the highest tf-idf.
/// `content_df` is a term's document frequency in the content field.
fn query_terms(
    query: &str,
    policy: TermPolicy,
    n: f32,
    content_df: impl Fn(&str) -> u64,
) -> Vec<(String, f32)> {
    let mut analyzer: TextAnalyzer = code_analyzer();
    let mut order: Vec<String> = Vec::new();
    let mut tf: HashMap<String, u32> = HashMap::new();
    for t in analyze(&mut analyzer, query) {
        let count = tf.entry(t.clone()).or_insert(0);
        if *count == 0 {
            order.push(t);
        }
        *count += 1;
    }
    let weight = |t: &String| {
        if policy.repetition {
            1.0 + (tf[t] as f32).ln()
        } else {
            1.0
        }
    };
    if order.len() > policy.max_terms {
        if policy.repetition {
            let key = |t: &String| {
                let df = content_df(t) as f32;
                // Terms no chunk holds are worth nothing.
                if df == 0.0 {
                    return 0.0;
                }
                weight(t) * (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
            };
            let mut scored: Vec<(f32, String)> = order.into_iter().map(|t| (key(&t), t)).collect();
            scored.sort_by(|a, b| b.0.total_cmp(&a.0));
            order = scored.into_iter().map(|(_, t)| t).collect();
        } else {
            order.sort_by_cached_key(|t| content_df(t));
        }
        order.truncate(policy.max_terms);
    }
    order
        .into_iter()
        .map(|t| {
            let w = weight(&t);
            (t, w)
        })
        .collect()
}

/// Which terms of a query count, and how much.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TermPolicy {
    /// Distinct terms kept at most.
    pub max_terms: usize,
    /// Weigh each term by its repetitions in the query (1 + ln tf) and keep the highest
    /// tf-idf past `max_terms`, rather than the rarest at weight 1.
    pub repetition: bool,
}

impl TermPolicy {
    /// Queries: a phrase or question, a pasted trace.
    pub const SEARCH: TermPolicy = TermPolicy {
        max_terms: MAX_QUERY_TERMS,
        repetition: false,
    };
    /// A whole task: an issue repeats what it is about.
    pub const TASK: TermPolicy = TermPolicy {
        max_terms: 256,
        repetition: true,
    };
}

/// BM25 hits of one query.
#[derive(Debug, Clone, Default)]
pub struct FtsHits {
    pub hits: Vec<(i64, f32)>,
    pub max_score: f32,
}

/// tantivy's BM25 constant k1.
pub(crate) const BM25_K1: f32 = 1.2;
/// tantivy's BM25 constant b.
pub(crate) const BM25_B: f32 = 0.75;

impl FtsWriter {
    pub fn delete_file(&mut self, path: &str) {
        if let Some(g) = &mut self.grams {
            g.delete_file(path);
        }
        self.writer
            .delete_term(Term::from_field_text(self.fields.path_key, path));
    }

    pub fn delete_all(&mut self) {
        if let Some(g) = &mut self.grams {
            g.delete_all();
        }
        let _ = self.writer.delete_all_documents();
    }

    /// Adds a chunk read back from the catalog (a rebuild).
    pub fn add_stored(&mut self, c: &crate::StoredChunk) -> Result<(), IndexError> {
        self.add_chunk(c.id, &c.path, &c.chunk)
    }

    pub fn add_chunk(&mut self, id: i64, path: &str, chunk: &Chunk) -> Result<(), IndexError> {
        let f = self.fields;
        let mut doc = TantivyDocument::default();
        doc.add_i64(f.id, id);
        doc.add_text(f.path_key, path);
        for (field, text) in f.text().into_iter().zip(field_texts(path, chunk)) {
            doc.add_text(field, text);
        }
        self.writer
            .add_document(doc)
            .map_err(|e| IndexError::Fts(writer_context("add", &e), e))?;
        if let Some(g) = &mut self.grams {
            g.add_chunk(path, chunk)?;
        }
        Ok(())
    }

    /// Durably commits every change since the last commit, recording the catalog
    /// `generation` the index will match once the catalog commits its side.
    pub fn commit(&mut self, generation: Option<i64>) -> Result<(), IndexError> {
        let err = |e: tantivy::TantivyError| IndexError::Fts(writer_context("commit", &e), e);
        // The trigrams first: the BM25 side's generation marks both as written.
        if let Some(g) = &mut self.grams {
            g.commit()?;
        }
        let mut prepared = self.writer.prepare_commit().map_err(err)?;
        if let Some(g) = generation {
            prepared.set_payload(&format!("generation {g}"));
        }
        prepared.commit().map_err(err)?;
        Ok(())
    }

    /// Waits for background merges so the directory is left tidy (changes not committed
    /// are dropped).
    pub fn finish(self) -> Result<(), IndexError> {
        if let Some(g) = self.grams {
            g.finish()?;
        }
        self.writer
            .wait_merging_threads()
            .map_err(|e| IndexError::Fts("merge".into(), e))
    }
}

/// What a writer's error is about: tantivy reports a writer thread that died of an I/O
/// error (most often a full disk) without the error itself.
fn writer_context(what: &str, e: &tantivy::TantivyError) -> String {
    if e.to_string().contains("killed") {
        format!("{what} (a writer thread stopped on an I/O error: is the data dir's disk full?)")
    } else {
        what.to_string()
    }
}

/// A fresh index built in a new subfolder of a store's BM25 folder, beside the live one;
/// `swap_in` makes it the live one.
pub struct FtsBuild {
    root: PathBuf,
    name: String,
    fts: Fts,
    writer: FtsWriter,
}

impl FtsBuild {
    /// Starts an empty index in a new subfolder of `root` (created if needed).
    pub fn start(root: &Path) -> Result<FtsBuild, IndexError> {
        std::fs::create_dir_all(root).map_err(io_err(root))?;
        let next = std::fs::read_dir(root)
            .map_err(io_err(root))?
            .flatten()
            .filter_map(|e| {
                e.file_name()
                    .to_string_lossy()
                    .strip_prefix(BUILD_PREFIX)?
                    .parse::<u64>()
                    .ok()
            })
            .max()
            .map_or(1, |n| n + 1);
        let name = format!("{BUILD_PREFIX}{next}");
        let dir = root.join(&name);
        std::fs::create_dir(&dir).map_err(io_err(&dir))?;
        let (schema, fields) = schema();
        let index = Index::create_in_dir(&dir, schema).map_err(fts_err(&dir))?;
        let fts = Fts::with_index(index, fields, &dir, Grams::open(&dir, true)?)?;
        let writer = fts.writer()?;
        Ok(FtsBuild {
            root: root.to_path_buf(),
            name,
            fts,
            writer,
        })
    }

    pub fn writer(&mut self) -> &mut FtsWriter {
        &mut self.writer
    }

    /// Commits the new index (recording `generation`), then makes it the live one by
    /// replacing `CURRENT`, and removes the one it replaces.
    pub fn swap_in(mut self, generation: Option<i64>) -> Result<Fts, IndexError> {
        self.writer.commit(generation)?;
        self.writer.finish()?;
        let tmp = self.root.join("CURRENT.tmp");
        let pointer = self.root.join(CURRENT);
        {
            use std::io::Write as _;
            let mut f = std::fs::File::create(&tmp).map_err(io_err(&tmp))?;
            f.write_all(self.name.as_bytes()).map_err(io_err(&tmp))?;
            f.sync_all().map_err(io_err(&tmp))?;
        }
        std::fs::rename(&tmp, &pointer).map_err(io_err(&pointer))?;
        if let Ok(d) = std::fs::File::open(&self.root) {
            let _ = d.sync_all();
        }
        clean(&self.root)?;
        self.fts.reload()?;
        Ok(self.fts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lore_core::{ChunkKind, Language};

    fn chunk(text: &str) -> Chunk {
        Chunk {
            kind: ChunkKind::Text,
            language: Language::Text,
            symbol: None,
            parent: None,
            signature: None,
            doc: None,
            headings: vec![],
            start_line: 1,
            end_line: 1,
            start_byte: 0,
            end_byte: text.len(),
            content: text.into(),
            context: None,
        }
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_rebuild_is_swapped_in_whole_and_leftovers_are_removed() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("fts");
        assert!(matches!(Fts::probe(&dir), FtsState::Missing));
        // A reader of a store without an index sees nothing and creates nothing.
        assert_eq!(Fts::open(&dir).unwrap().num_docs(), 0);
        assert!(!dir.exists());

        let fts = Fts::open_or_create(&dir).unwrap();
        let mut w = fts.writer().unwrap();
        w.add_chunk(1, "a.txt", &chunk("wombat burrows")).unwrap();
        w.commit(Some(4)).unwrap();
        w.finish().unwrap();
        let FtsState::Present(fts) = Fts::probe(&dir) else {
            panic!("no index after a commit")
        };
        assert_eq!((fts.ids().unwrap(), fts.generation()), (vec![1], Some(4)));

        // A rebuild killed before its swap: the old index stays live.
        let mut build = FtsBuild::start(&dir).unwrap();
        build
            .writer()
            .add_chunk(2, "b.txt", &chunk("quokka smiles"))
            .unwrap();
        build.writer().commit(Some(5)).unwrap();
        drop(build);
        assert_eq!(Fts::open(&dir).unwrap().ids().unwrap(), [1]);
        assert_eq!(names(&dir), ["CURRENT", "v1", "v2"]);

        // The next writer removes the half-built index; a finished rebuild replaces the old.
        let fts = Fts::open_or_create(&dir).unwrap();
        assert_eq!(fts.ids().unwrap(), [1]);
        assert_eq!(names(&dir), ["CURRENT", "v1"]);
        let mut build = FtsBuild::start(&dir).unwrap();
        build
            .writer()
            .add_chunk(3, "c.txt", &chunk("numbat termites"))
            .unwrap();
        let new = build.swap_in(Some(6)).unwrap();
        assert_eq!((new.ids().unwrap(), new.generation()), (vec![3], Some(6)));
        assert_eq!(Fts::open(&dir).unwrap().ids().unwrap(), [3]);
        assert_eq!(names(&dir), ["CURRENT", "v2"]);
        let hits = new
            .search("numbat", 5, &FieldBoosts::default())
            .unwrap()
            .hits;
        assert_eq!(hits.len(), 1);
    }

    #[test]
    fn an_index_from_before_current_is_read_then_replaced() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("fts");
        std::fs::create_dir_all(&dir).unwrap();
        let (schema, fields) = schema();
        let index = Index::create_in_dir(&dir, schema).unwrap();
        let old = Fts::with_index(index, fields, &dir, None).unwrap();
        let mut w = old.writer().unwrap();
        w.add_chunk(7, "a.txt", &chunk("old layout")).unwrap();
        w.commit(None).unwrap();
        w.finish().unwrap();
        let fts = Fts::open_or_create(&dir).unwrap();
        assert_eq!((fts.ids().unwrap(), fts.generation()), (vec![7], None));

        let mut build = FtsBuild::start(&dir).unwrap();
        build
            .writer()
            .add_chunk(8, "a.txt", &chunk("new layout"))
            .unwrap();
        build.swap_in(Some(1)).unwrap();
        assert_eq!(names(&dir), ["CURRENT", "v1"]);
        assert_eq!(Fts::open(&dir).unwrap().ids().unwrap(), [8]);
    }

    #[test]
    fn a_damaged_index_is_named_not_replaced() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("fts");
        Fts::open_or_create(&dir).unwrap();
        std::fs::write(dir.join("v1/meta.json"), b"{ not json").unwrap();
        assert!(matches!(Fts::probe(&dir), FtsState::Damaged(_)));
        assert!(Fts::open(&dir).is_err());
        std::fs::write(dir.join("CURRENT"), b"../elsewhere").unwrap();
        assert!(matches!(Fts::probe(&dir), FtsState::Damaged(_)));
        std::fs::write(dir.join("CURRENT"), b"v9").unwrap();
        assert!(matches!(Fts::probe(&dir), FtsState::Missing));
    }
}
