//! The grep side: which files can hold a match of a regular expression, answered from a
//! trigram index (zoekt's and Google Code Search's approach) kept beside each BM25 index.
//!
//! Each file is one document holding the set of its trigrams: three characters, each
//! folded (lower case; every whitespace character a space, so a file put back together from
//! its chunks, whose gaps are only whitespace, yields the same set). A pattern becomes a
//! [`GramQuery`] — the trigrams any match must contain, as ANDs and ORs — from its syntax
//! tree; the files it selects are a superset of the files with a match, which the caller
//! then reads and matches line by line.

use crate::IndexError;
use lore_core::Chunk;
use regex_syntax::hir::{Class, Hir, HirKind};
use std::collections::BTreeSet;
use std::path::Path;
use tantivy::collector::DocSetCollector;
use tantivy::query::{AllQuery, BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{
    Field, INDEXED, IndexRecordOption, NumericOptions, STORED, STRING, Schema, Value,
};
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

/// The subfolder of a BM25 index's folder that holds its trigram index.
pub(crate) const GRAMS_DIR: &str = "grams";

/// How many strings a sub-pattern may stand for before only its trigrams are kept.
const MAX_EXACT: usize = 64;
/// A character class with more members than this says nothing about trigrams.
const MAX_CLASS: usize = 16;

/// One character as the index sees it.
fn fold(c: char) -> char {
    if c.is_whitespace() {
        return ' ';
    }
    let mut lower = c.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(l), None) => l,
        _ => c,
    }
}

fn gram(a: char, b: char, c: char) -> u64 {
    ((a as u64) << 42) | ((b as u64) << 21) | c as u64
}

/// The distinct trigrams of `text`, sorted.
pub fn trigrams(text: &str) -> Vec<u64> {
    let mut out = Vec::with_capacity(text.len());
    let mut chars = text.chars().map(fold);
    let (Some(mut a), Some(mut b)) = (chars.next(), chars.next()) else {
        return out;
    };
    for c in chars {
        out.push(gram(a, b, c));
        (a, b) = (b, c);
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// What a pattern's matches must contain.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum GramQuery {
    /// Nothing known: every file is a candidate.
    All,
    Gram(u64),
    And(Vec<GramQuery>),
    Or(Vec<GramQuery>),
}

impl GramQuery {
    /// `parts` joined by `join`, sorted and without repeats; one part stands alone, none is
    /// `All`.
    fn of(mut parts: Vec<GramQuery>, join: fn(Vec<GramQuery>) -> GramQuery) -> GramQuery {
        parts.sort();
        parts.dedup();
        match parts.len() {
            0 => GramQuery::All,
            1 => parts.pop().unwrap_or(GramQuery::All),
            _ => join(parts),
        }
    }

    fn and(parts: Vec<GramQuery>) -> GramQuery {
        let mut out = Vec::new();
        for p in parts {
            match p {
                GramQuery::All => {}
                GramQuery::And(inner) => out.extend(inner),
                p => out.push(p),
            }
        }
        GramQuery::of(out, GramQuery::And)
    }

    fn or(parts: Vec<GramQuery>) -> GramQuery {
        let mut out = Vec::new();
        for p in parts {
            match p {
                GramQuery::All => return GramQuery::All,
                GramQuery::Or(inner) => out.extend(inner),
                p => out.push(p),
            }
        }
        GramQuery::of(out, GramQuery::Or)
    }

    /// The trigrams a match of `hir` (a regular expression already parsed with its flags)
    /// must contain.
    pub fn from_hir(hir: &Hir) -> GramQuery {
        info(hir).into_query()
    }

    /// The trigram query of `pattern` parsed as `regex` parses it (`case_insensitive` as
    /// `(?i)`), or the parse error.
    pub fn from_pattern(
        pattern: &str,
        case_insensitive: bool,
    ) -> Result<GramQuery, Box<regex_syntax::Error>> {
        let hir = regex_syntax::ParserBuilder::new()
            .case_insensitive(case_insensitive)
            .build()
            .parse(pattern)
            .map_err(Box::new)?;
        Ok(GramQuery::from_hir(&hir))
    }

    fn to_tantivy(&self, field: Field) -> Box<dyn Query> {
        match self {
            GramQuery::All => Box::new(AllQuery),
            GramQuery::Gram(g) => Box::new(TermQuery::new(
                Term::from_field_u64(field, *g),
                IndexRecordOption::Basic,
            )),
            GramQuery::And(parts) | GramQuery::Or(parts) => {
                let occur = if matches!(self, GramQuery::And(_)) {
                    Occur::Must
                } else {
                    Occur::Should
                };
                Box::new(BooleanQuery::new(
                    parts.iter().map(|p| (occur, p.to_tantivy(field))).collect(),
                ))
            }
        }
    }
}

/// What is known of a sub-pattern: the exact (folded) strings it matches, when they are few,
/// and else what its matches must contain.
struct Info {
    exact: Option<BTreeSet<String>>,
    query: GramQuery,
}

impl Info {
    fn exact(set: BTreeSet<String>) -> Info {
        Info {
            exact: Some(set),
            query: GramQuery::All,
        }
    }

    fn empty() -> Info {
        Info::exact(BTreeSet::from([String::new()]))
    }

    fn unknown(query: GramQuery) -> Info {
        Info { exact: None, query }
    }

    fn into_query(self) -> GramQuery {
        match self.exact {
            Some(set) => GramQuery::or(set.iter().map(|s| string_query(s)).collect()),
            None => self.query,
        }
    }
}

/// Every trigram of `s` (folded already), or `All` for a string too short to have one.
fn string_query(s: &str) -> GramQuery {
    let chars: Vec<char> = s.chars().collect();
    GramQuery::and(
        chars
            .windows(3)
            .map(|w| GramQuery::Gram(gram(w[0], w[1], w[2])))
            .collect(),
    )
}

fn info(hir: &Hir) -> Info {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Info::empty(),
        HirKind::Literal(lit) => match std::str::from_utf8(&lit.0) {
            Ok(s) => Info::exact(BTreeSet::from([s.chars().map(fold).collect()])),
            Err(_) => Info::unknown(GramQuery::All),
        },
        HirKind::Class(class) => class_info(class),
        HirKind::Capture(c) => info(&c.sub),
        HirKind::Repetition(rep) => {
            let sub = info(&rep.sub);
            match (rep.min, rep.max) {
                (1, Some(1)) => sub,
                (0, Some(1)) => match sub.exact {
                    Some(mut set) if set.len() < MAX_EXACT => {
                        set.insert(String::new());
                        Info::exact(set)
                    }
                    _ => Info::unknown(GramQuery::All),
                },
                (0, _) => Info::unknown(GramQuery::All),
                // At least one copy: whatever one copy must contain.
                _ => Info::unknown(sub.into_query()),
            }
        }
        HirKind::Concat(subs) => concat_info(subs),
        HirKind::Alternation(subs) => {
            let infos: Vec<Info> = subs.iter().map(info).collect();
            let total: usize = infos
                .iter()
                .map(|i| i.exact.as_ref().map_or(usize::MAX / 2, BTreeSet::len))
                .sum();
            if total <= MAX_EXACT {
                Info::exact(
                    infos
                        .into_iter()
                        .flat_map(|i| i.exact.unwrap_or_default())
                        .collect(),
                )
            } else {
                Info::unknown(GramQuery::or(
                    infos.into_iter().map(Info::into_query).collect(),
                ))
            }
        }
    }
}

fn class_info(class: &Class) -> Info {
    let mut set = BTreeSet::new();
    match class {
        Class::Unicode(c) => {
            for r in c.iter() {
                let n = (r.end() as u32).saturating_sub(r.start() as u32) as usize + 1;
                if set.len() + n > MAX_CLASS * 4 {
                    return Info::unknown(GramQuery::All);
                }
                for ch in r.start()..=r.end() {
                    set.insert(fold(ch).to_string());
                }
            }
        }
        Class::Bytes(c) => {
            for r in c.iter() {
                if !r.end().is_ascii() || set.len() + (r.end() - r.start()) as usize >= MAX_CLASS {
                    return Info::unknown(GramQuery::All);
                }
                for b in r.start()..=r.end() {
                    set.insert(fold(b as char).to_string());
                }
            }
        }
    }
    if set.len() > MAX_CLASS {
        return Info::unknown(GramQuery::All);
    }
    Info::exact(set)
}

fn concat_info(subs: &[Hir]) -> Info {
    // What the strings so far must contain, once they are too many to keep.
    let mut required = Vec::new();
    let mut current = BTreeSet::from([String::new()]);
    let mut whole = true;
    for sub in subs {
        let next = info(sub);
        match next.exact {
            Some(set) if current.len() * set.len() <= MAX_EXACT => {
                current = current
                    .iter()
                    .flat_map(|a| set.iter().map(move |b| format!("{a}{b}")))
                    .collect();
            }
            Some(set) => {
                whole = false;
                required.push(Info::exact(std::mem::replace(&mut current, set)).into_query());
            }
            None => {
                whole = false;
                let done = std::mem::replace(&mut current, BTreeSet::from([String::new()]));
                required.push(Info::exact(done).into_query());
                required.push(next.query);
            }
        }
    }
    if whole {
        return Info::exact(current);
    }
    required.push(Info::exact(current).into_query());
    Info::unknown(GramQuery::and(required))
}

#[derive(Clone, Copy)]
struct Fields {
    path: Field,
    grams: Field,
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let fields = Fields {
        path: b.add_text_field("path", STRING | STORED),
        grams: b.add_u64_field("grams", NumericOptions::default() | INDEXED),
    };
    (b.build(), fields)
}

fn gram_err(e: tantivy::TantivyError) -> IndexError {
    IndexError::Fts("grep index".into(), e)
}

/// A store's trigram index, opened for reading.
pub struct Grams {
    index: Index,
    reader: IndexReader,
    fields: Fields,
}

impl Grams {
    /// The index in `dir`, created empty when `create` and there is none; `None` when there
    /// is none (an index written before lore kept one).
    pub(crate) fn open(dir: &Path, create: bool) -> Result<Option<Grams>, IndexError> {
        let dir = dir.join(GRAMS_DIR);
        let (schema, fields) = schema();
        let index = if dir.join("meta.json").exists() {
            Index::open_in_dir(&dir).map_err(gram_err)?
        } else if create {
            std::fs::create_dir_all(&dir)
                .map_err(|e| IndexError::Io(dir.display().to_string(), e))?;
            Index::create_in_dir(&dir, schema).map_err(gram_err)?
        } else {
            return Ok(None);
        };
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(gram_err)?;
        Ok(Some(Grams {
            index,
            reader,
            fields,
        }))
    }

    pub(crate) fn in_ram() -> Result<Grams, IndexError> {
        let (schema, fields) = schema();
        let index = Index::create_in_ram(schema);
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(gram_err)?;
        Ok(Grams {
            index,
            reader,
            fields,
        })
    }

    pub(crate) fn writer(&self) -> Result<GramWriter, IndexError> {
        Ok(GramWriter {
            writer: self
                .index
                .writer_with_num_threads(1, 32 * 1024 * 1024)
                .map_err(gram_err)?,
            fields: self.fields,
            file: None,
        })
    }

    pub(crate) fn reload(&self) -> Result<(), IndexError> {
        self.reader.reload().map_err(gram_err)
    }

    /// How many files the index holds.
    pub fn num_files(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// The paths of the files that may match `query`, sorted; `None` when the query
    /// selects nothing (every file is a candidate).
    pub fn files(&self, query: &GramQuery) -> Result<Option<Vec<String>>, IndexError> {
        if *query == GramQuery::All {
            return Ok(None);
        }
        let searcher = self.reader.searcher();
        let docs = searcher
            .search(&*query.to_tantivy(self.fields.grams), &DocSetCollector)
            .map_err(gram_err)?;
        let mut paths = Vec::with_capacity(docs.len());
        for address in docs {
            let doc: TantivyDocument = searcher.doc(address).map_err(gram_err)?;
            if let Some(p) = doc.get_first(self.fields.path).and_then(|v| v.as_str()) {
                paths.push(p.to_owned());
            }
        }
        paths.sort_unstable();
        paths.dedup();
        Ok(Some(paths))
    }
}

/// Buffered changes to a trigram index. A file's chunks arrive one after another (as the
/// indexer writes them, and as the catalog lists them by path); its document is written
/// when the next file's first chunk arrives, or at `commit`.
pub(crate) struct GramWriter {
    writer: IndexWriter,
    fields: Fields,
    /// The file being put back together from its chunks: its path and text so far.
    file: Option<(String, Vec<u8>)>,
}

impl GramWriter {
    pub(crate) fn delete_file(&mut self, path: &str) {
        if self.file.as_ref().is_some_and(|(p, _)| p == path) {
            self.file = None;
        }
        self.writer
            .delete_term(Term::from_field_text(self.fields.path, path));
    }

    pub(crate) fn delete_all(&mut self) {
        self.file = None;
        let _ = self.writer.delete_all_documents();
    }

    /// Adds a chunk of the file `path` at its own bytes (gaps between chunks are whitespace,
    /// which the trigrams fold to spaces).
    pub(crate) fn add_chunk(&mut self, path: &str, chunk: &Chunk) -> Result<(), IndexError> {
        if self.file.as_ref().is_some_and(|(p, _)| p != path) {
            self.flush()?;
        }
        let (_, text) = self
            .file
            .get_or_insert_with(|| (path.to_owned(), Vec::new()));
        let end = chunk.start_byte + chunk.content.len();
        if text.len() < end {
            text.resize(end, b' ');
        }
        text[chunk.start_byte..end].copy_from_slice(chunk.content.as_bytes());
        Ok(())
    }

    fn flush(&mut self) -> Result<(), IndexError> {
        let Some((path, text)) = self.file.take() else {
            return Ok(());
        };
        let mut doc = TantivyDocument::default();
        doc.add_text(self.fields.path, &path);
        for g in trigrams(&String::from_utf8_lossy(&text)) {
            doc.add_u64(self.fields.grams, g);
        }
        self.writer.add_document(doc).map_err(gram_err)?;
        Ok(())
    }

    pub(crate) fn commit(&mut self) -> Result<(), IndexError> {
        self.flush()?;
        self.writer.commit().map_err(gram_err)?;
        Ok(())
    }

    pub(crate) fn finish(self) -> Result<(), IndexError> {
        self.writer.wait_merging_threads().map_err(gram_err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(pattern: &str) -> GramQuery {
        GramQuery::from_pattern(pattern, false).unwrap()
    }

    fn grams_of(s: &str) -> GramQuery {
        string_query(&s.chars().map(fold).collect::<String>())
    }

    #[test]
    fn literals_need_all_their_trigrams_and_short_ones_nothing() {
        assert_eq!(q("spin_lock"), grams_of("spin_lock"));
        assert_eq!(q("ab"), GramQuery::All);
        assert_eq!(q("a.*b"), GramQuery::All);
        // Folded: a case-sensitive pattern asks for the same trigrams as its lower case.
        assert_eq!(q("KMalloc"), grams_of("kmalloc"));
        assert_eq!(
            GramQuery::from_pattern("KMALLOC", true).unwrap(),
            grams_of("kmalloc")
        );
    }

    #[test]
    fn alternations_classes_and_repetitions() {
        assert_eq!(
            q("foo|barx"),
            GramQuery::or(vec![grams_of("foo"), grams_of("barx")])
        );
        assert_eq!(
            q("colou?r"),
            GramQuery::or(vec![grams_of("color"), grams_of("colour")])
        );
        assert_eq!(
            q("lock_[ab]x"),
            GramQuery::or(vec![grams_of("lock_ax"), grams_of("lock_bx")])
        );
        // `\w+` says nothing, but the literals around it still count.
        assert_eq!(
            q(r"struct \w+_ops \{"),
            GramQuery::and(vec![grams_of("struct "), grams_of("_ops {")])
        );
        // One copy of a repeated group is required.
        assert_eq!(q("(abcd)+"), grams_of("abcd"));
        assert_eq!(q("(abcd)*x"), GramQuery::All);
    }

    #[test]
    fn the_index_finds_a_superset_of_the_matching_files() {
        let grams = Grams::in_ram().unwrap();
        let mut w = grams.writer().unwrap();
        let chunk = |start: usize, text: &str| Chunk {
            kind: lore_core::ChunkKind::Text,
            language: lore_core::Language::Text,
            symbol: None,
            parent: None,
            signature: None,
            doc: None,
            headings: vec![],
            start_line: 1,
            end_line: 1,
            start_byte: start,
            end_byte: start + text.len(),
            content: text.into(),
            context: None,
        };
        // Two chunks with a gap between them, as the catalog gives a file back.
        w.add_chunk("a.c", &chunk(0, "static int\tSpin_Lock(void)"))
            .unwrap();
        w.add_chunk("a.c", &chunk(30, "return colour;")).unwrap();
        w.add_chunk("b.c", &chunk(0, "int color = 1;")).unwrap();
        w.commit().unwrap();
        grams.reload().unwrap();
        let files = |p: &str, i: bool| {
            grams
                .files(&GramQuery::from_pattern(p, i).unwrap())
                .unwrap()
        };
        assert_eq!(files("spin_lock", true), Some(vec!["a.c".to_owned()]));
        // The trigrams are folded, so the case-sensitive check is the caller's.
        assert_eq!(files("spin_lock", false), Some(vec!["a.c".to_owned()]));
        assert_eq!(files("int\\s+spin", true), Some(vec!["a.c".to_owned()]));
        assert_eq!(files("int spin", true), Some(vec!["a.c".to_owned()]));
        assert_eq!(
            files("colou?r", false),
            Some(vec!["a.c".to_owned(), "b.c".to_owned()])
        );
        assert_eq!(files("nowhere", false), Some(vec![]));
        assert_eq!(files(".*", false), None);
        w.delete_file("a.c");
        w.commit().unwrap();
        grams.reload().unwrap();
        assert_eq!(files("colou?r", false), Some(vec!["b.c".to_owned()]));
        assert_eq!(grams.num_files(), 1);
    }
}
