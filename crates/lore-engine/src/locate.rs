//! From a task (an issue, a bug report, a traceback) to the files and units to change.
//!
//! Long, noisy task text defeats a per-chunk ranking: the right file rarely holds the one
//! chunk that repeats the most words of the report. So files are ranked, from three kinds of
//! evidence: every retrieved chunk of the file (not only its best), what the task names
//! (paths, traceback frames, dotted module paths, identifiers the store defines; see
//! `task.rs`), and priors (tests and prose below code unless the task names them).

use crate::error::Param;
use crate::mode::Mode;
use crate::query::fusion::{CHUNK_DECAY, Signals};
use crate::query::present::{json_tokens, query_words};
use crate::query::task::{self, TaskClues};
use crate::query::{SearchHit, SearchRequest};
use crate::{Engine, EngineError};
use lore_index::{StoreRecord, StoredChunk, TermPolicy};
use serde::Serialize;
use std::collections::HashMap;
use std::time::Instant;

/// Which kinds of evidence a locate uses; all on by default. Turning one off measures what
/// it adds (`lore eval locate --ablation`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LocateEvidence {
    /// A file's score sums its retrieved chunks (decaying), not only its best one.
    pub all_chunks: bool,
    /// Paths and traceback frames in the task point at files.
    pub paths: bool,
    /// Identifiers and dotted names in the task point at the files that define them.
    pub symbols: bool,
    /// Tests, docs and examples rank below code unless the task names them.
    pub priors: bool,
    /// BM25 weighs the task's terms by repetition and keeps up to 256 of them (else a
    /// search's 64 rarest).
    pub task_terms: bool,
    /// A file's units are ranked with the names the task writes (its own or its
    /// container's), not by retrieval alone after at most two named definitions.
    pub unit_names: bool,
    /// BM25 is scaled by the task's best match, not by its theoretical maximum. A task of
    /// hundreds of words matches few of them in any one chunk, so against the maximum its
    /// BM25 is a few hundredths while cosines stay near 0.5, and the convex blend would let
    /// the vectors rank alone.
    pub bm25_by_best: bool,
}

impl Default for LocateEvidence {
    fn default() -> Self {
        LocateEvidence {
            all_chunks: true,
            paths: true,
            symbols: true,
            priors: true,
            task_terms: true,
            unit_names: true,
            bm25_by_best: true,
        }
    }
}

#[derive(Debug, Clone)]
pub struct LocateRequest {
    pub task: String,
    /// Stores to look in (empty: all).
    pub stores: Vec<String>,
    /// Files to return.
    pub limit: usize,
    /// Units per file.
    pub units: usize,
    /// The retrieval under the file ranking: hybrid by default; fts needs no model.
    pub mode: Mode,
    pub evidence: LocateEvidence,
}

impl LocateRequest {
    pub fn new(task: impl Into<String>) -> LocateRequest {
        LocateRequest {
            task: task.into(),
            stores: Vec::new(),
            limit: 10,
            units: 3,
            mode: Mode::Hybrid,
            evidence: LocateEvidence::default(),
        }
    }
}

/// A unit of a located file worth reading first.
#[derive(Debug, Clone, Serialize)]
pub struct LocatedUnit {
    /// Chunk id (hex), usable with `lore context` / `get_full_context`.
    pub id: String,
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    /// `Container.symbol` when the unit is a member.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qualified: Option<String>,
    pub start_line: u32,
    pub end_line: u32,
    /// Its rank within the file: the chunk's retrieval score relative to the file's best
    /// chunk, plus a share for a name (its own or its container's) the task writes.
    #[serde(serialize_with = "crate::query::round4")]
    pub score: f32,
}

#[derive(Debug, Clone, Serialize)]
pub struct LocatedFile {
    pub store: String,
    pub path: String,
    #[serde(serialize_with = "crate::query::round4")]
    pub score: f32,
    /// The evidence behind the score, strongest first.
    pub why: Vec<String>,
    pub units: Vec<LocatedUnit>,
}

#[derive(Debug, Clone, Serialize)]
pub struct LocateResponse {
    pub files: Vec<LocatedFile>,
    /// What the task was read to name.
    pub clues: TaskClues,
    pub mode: Mode,
    pub elapsed_ms: u64,
}

/// Chunks retrieved for the file ranking.
const CANDIDATES: usize = 400;
/// Evidence weights, on the scale of the best file's retrieval score (1.0).
const PATH_NAMED: f32 = 0.6;
const FRAME: f32 = 0.35;
const DEFINES: f32 = 0.35;
const MODULE_NAMED: f32 = 0.4;
const QUALIFIED_DEFINES: f32 = 0.5;
/// A name defined in more files than this says nothing about which one is meant.
const MAX_DEFINITIONS: usize = 12;
const TEST_PRIOR: f32 = 0.4;
const PROSE_PRIOR: f32 = 0.6;
/// A unit whose name the task writes, over its chunk's relative retrieval score.
const UNIT_NAMED: f32 = 0.6;
/// A unit whose container (class, impl, module-level type) the task writes.
const UNIT_IN_NAMED: f32 = 0.3;

#[derive(Default)]
struct FileEvidence {
    store: usize,
    chunks: Vec<(f32, i64)>,
    boost: f32,
    why: Vec<(f32, String)>,
    /// Units that define a name the task mentions.
    defines: Vec<i64>,
}

impl FileEvidence {
    fn add(&mut self, weight: f32, why: String) {
        self.boost += weight;
        if !self.why.iter().any(|(_, w)| *w == why) {
            self.why.push((weight, why));
        }
    }
}

/// Number of trailing path segments `a` and `b` share.
fn common_suffix(a: &str, b: &str) -> usize {
    a.rsplit('/')
        .zip(b.rsplit('/'))
        .take_while(|(x, y)| x == y)
        .count()
}

/// Files a written path means: the ones sharing its longest tail (at least the file
/// name), with that tail's length.
fn files_for_path<'a>(written: &str, paths: &'a [String]) -> (usize, Vec<&'a String>) {
    let mut best = 0;
    let mut out = Vec::new();
    for p in paths {
        let n = common_suffix(written, p);
        if n == 0 || n < best {
            continue;
        }
        if n > best {
            best = n;
            out.clear();
        }
        out.push(p);
    }
    (best, out)
}

/// Paths a dotted module name may live at: `a.b.c` → `a/b/c.py`, `a/b/c/__init__.py`, and
/// its prefixes (`a/b.py` holding `c`).
fn module_paths(dotted: &str) -> Vec<String> {
    let parts: Vec<&str> = dotted.split('.').collect();
    let mut out = Vec::new();
    for n in (2..=parts.len()).rev() {
        let base = parts[..n].join("/");
        out.push(format!("{base}.py"));
        out.push(format!("{base}/__init__.py"));
    }
    out
}

/// Prose, and the files around code that a task rarely means: changelogs, manifests,
/// lockfiles, tool configuration.
fn is_prose(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    matches!(
        ext,
        "md" | "rst"
            | "txt"
            | "markdown"
            | "adoc"
            | ""
            | "toml"
            | "lock"
            | "ini"
            | "in"
            | "cfg"
            | "json"
            | "yaml"
            | "yml"
    ) || path.starts_with("doc")
}

fn is_example(path: &str) -> bool {
    path.split('/').any(|s| {
        matches!(
            s,
            "examples"
                | "example"
                | "benchmarks"
                | "bench"
                | "scripts"
                | "vendor"
                | "third_party"
                | "extern"
        )
    })
}

impl Engine {
    /// Ranks the files (and their units) a task is about.
    pub fn locate(&self, req: &LocateRequest) -> Result<LocateResponse, EngineError> {
        let started = Instant::now();
        if req.task.trim().is_empty() {
            return Err(EngineError::Input(
                "the task is empty; give the issue, bug report or error to locate".into(),
            ));
        }
        if req.limit == 0 {
            return Err(EngineError::param(Param::Limit, "must be at least 1"));
        }
        let stores = self.select_stores(&req.stores)?;
        if stores.is_empty() {
            return Err(EngineError::Input(
                "there are no stores yet; add one with `lore store add NAME PATH`".into(),
            ));
        }
        self.locate_in(req, &stores, started)
    }

    /// A task searched for (`Intent::FindTask`): the located files' units as search hits,
    /// files in order, `per_file` units each, scored relative to the best file.
    pub(crate) fn task_hits(
        &self,
        req: &SearchRequest,
        stores: &[StoreRecord],
    ) -> Result<Vec<SearchHit>, EngineError> {
        let mut lr = LocateRequest::new(req.query.clone());
        lr.limit = req.limit;
        lr.units = req.per_file;
        lr.mode = req.mode;
        let located = self.locate_in(&lr, stores, Instant::now())?;
        let top = located
            .files
            .first()
            .map_or(1.0, |f| f.score)
            .max(f32::EPSILON);
        let words = query_words(&req.query);
        let mut hits = Vec::new();
        for f in &located.files {
            let score = (f.score / top).min(1.0);
            if req.threshold.is_some_and(|t| score < t) {
                continue;
            }
            let Some(store) = stores.iter().find(|s| s.name == f.store) else {
                continue;
            };
            for u in f.units.iter().take(req.per_file) {
                let Ok(id) = crate::unit::ResultId::parse(&u.id) else {
                    continue;
                };
                if let Some(sc) = self.catalog.chunks(&[id.chunk])?.into_iter().next() {
                    let signals = Signals::default();
                    let mut hit = self.hit(&sc, store, score, signals, &words, req.detail, None)?;
                    if id.line.is_some() {
                        // The nested definition located, not its chunk's own unit.
                        hit.unit.id.clone_from(&u.id);
                        hit.unit.symbol.clone_from(&u.symbol);
                        hit.unit.qualified.clone_from(&u.qualified);
                        hit.unit.kind.clone_from(&u.kind);
                        [hit.unit.start_line, hit.unit.end_line] = [u.start_line, u.end_line];
                        hit.unit.match_lines = None;
                    }
                    hit.reason = f.why.join("; ");
                    hit.estimated_tokens = json_tokens(&hit);
                    hits.push(hit);
                }
                if hits.len() >= req.limit {
                    return Ok(hits);
                }
            }
        }
        Ok(hits)
    }

    fn locate_in(
        &self,
        req: &LocateRequest,
        stores: &[StoreRecord],
        started: Instant,
    ) -> Result<LocateResponse, EngineError> {
        let clues = task::parse(&req.task);
        let lower = req.task.to_lowercase();
        let asks_for_docs = lower
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| matches!(w, "documentation" | "docs" | "readme" | "changelog"));
        let ev = req.evidence;

        // Retrieval: every chunk's score counts toward its file.
        let terms = if ev.task_terms {
            TermPolicy::TASK
        } else {
            TermPolicy::SEARCH
        };
        let (mut retrieved, ()) =
            self.retrieve_with(&req.task, stores, req.mode, CANDIDATES, terms, || ())?;
        if ev.bm25_by_best {
            retrieved.candidates.scale_bm25_by_best();
        }
        let ranked = Self::rank(&retrieved, req.mode, self.config.fusion);
        let store_index: HashMap<i64, usize> =
            stores.iter().enumerate().map(|(i, s)| (s.id, i)).collect();
        let mut chunks: HashMap<i64, StoredChunk> = HashMap::new();
        let ids: Vec<i64> = ranked.iter().map(|c| c.0).collect();
        for part in ids.chunks(64) {
            chunks.extend(self.catalog.chunks(part)?.into_iter().map(|c| (c.id, c)));
        }
        let mut files: HashMap<(usize, String), FileEvidence> = HashMap::new();
        for &(id, score, _) in &ranked {
            let Some(sc) = chunks.get(&id) else { continue };
            let Some(&si) = store_index.get(&sc.store_id) else {
                continue;
            };
            let f = files.entry((si, sc.path.clone())).or_default();
            f.store = si;
            f.chunks.push((score, id));
        }
        let base = |f: &FileEvidence| -> f32 {
            let mut s: Vec<f32> = f.chunks.iter().map(|c| c.0).collect();
            s.sort_by(|a, b| b.total_cmp(a));
            let first = s.first().copied().unwrap_or(0.0);
            if !ev.all_chunks {
                return first;
            }
            first
                + s.iter()
                    .skip(1)
                    .zip(CHUNK_DECAY)
                    .map(|(x, w)| x * w)
                    .sum::<f32>()
        };
        let top = files.values().map(base).fold(0.0f32, f32::max);
        let scale = if top > 0.0 { 1.0 / top } else { 1.0 };

        // What the task names.
        for (si, store) in stores.iter().enumerate() {
            self.name_evidence(si, store, &clues, ev, &mut files)?;
        }

        let mut scored: Vec<(f32, (usize, String), FileEvidence)> = files
            .into_iter()
            .map(|(key, mut f)| {
                let retrieval = base(&f) * scale;
                if retrieval > 0.0 {
                    let n = f.chunks.len();
                    f.why.push((
                        retrieval,
                        format!(
                            "matches the task's text ({n} chunk{})",
                            if n == 1 { "" } else { "s" }
                        ),
                    ));
                }
                let mut score = retrieval + f.boost;
                if ev.priors {
                    let path = key.1.as_str();
                    let named = f.boost > 0.0;
                    if lore_core::is_test_path(path) && !named {
                        score *= TEST_PRIOR;
                        f.why.push((0.0, "a test (the task names no test)".into()));
                    } else if !named && (is_prose(path) && !asks_for_docs || is_example(path)) {
                        score *= PROSE_PRIOR;
                    }
                }
                (score, key, f)
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        scored.truncate(req.limit);

        let mut out = Vec::with_capacity(scored.len());
        for (score, (si, path), mut f) in scored {
            f.why.sort_by(|a, b| b.0.total_cmp(&a.0));
            let names = ev.unit_names.then_some(clues.identifiers.as_slice());
            let units = self.located_units(stores[si].id, &path, &f, &chunks, names, req.units)?;
            out.push(LocatedFile {
                store: stores[si].name.clone(),
                path,
                score,
                why: f.why.into_iter().map(|(_, w)| w).collect(),
                units,
            });
        }
        Ok(LocateResponse {
            files: out,
            clues,
            mode: req.mode,
            elapsed_ms: started.elapsed().as_millis() as u64,
        })
    }

    /// Adds to `files` what the task names in `store`: written paths, traceback frames,
    /// dotted module paths, and the files defining the identifiers it uses.
    fn name_evidence(
        &self,
        si: usize,
        store: &StoreRecord,
        clues: &TaskClues,
        ev: LocateEvidence,
        files: &mut HashMap<(usize, String), FileEvidence>,
    ) -> Result<(), EngineError> {
        let paths = self.catalog.paths(store.id)?;
        let mut give = |path: &str, weight: f32, why: String| {
            let f = files.entry((si, path.to_string())).or_default();
            f.store = si;
            f.add(weight, why);
        };
        if ev.paths {
            for written in &clues.paths {
                let (n, found) = files_for_path(written, &paths);
                // A bare file name shared by many files names none of them.
                if found.is_empty() || (n == 1 && found.len() > 3) {
                    continue;
                }
                let w = PATH_NAMED / found.len() as f32;
                for p in found {
                    give(p, w, format!("the task names {written}"));
                }
            }
            let frames = clues.frames.len();
            for (i, frame) in clues.frames.iter().enumerate() {
                let (n, found) = files_for_path(&frame.path, &paths);
                if found.is_empty() || (n == 1 && found.len() > 3) {
                    continue;
                }
                // The innermost frames are nearest the fault.
                let depth = (i + 1) as f32 / frames as f32;
                let w = FRAME * (0.5 + 0.5 * depth) / found.len() as f32;
                let what = match &frame.function {
                    Some(func) => format!("traceback frame: {} in {func}", frame.path),
                    None => format!("traceback frame: {}", frame.path),
                };
                for p in found {
                    give(p, w, what.clone());
                }
            }
        }
        if !ev.symbols {
            return Ok(());
        }
        for dotted in &clues.dotted {
            for candidate in module_paths(dotted) {
                let hits: Vec<&String> = paths
                    .iter()
                    .filter(|p| **p == candidate || p.ends_with(&format!("/{candidate}")))
                    .collect();
                if !hits.is_empty() && hits.len() <= 3 {
                    for p in hits {
                        give(p, MODULE_NAMED, format!("the task names module {dotted}"));
                    }
                    break;
                }
            }
        }
        let ids = [store.id];
        // `Type.method` written out names one definition more surely than its parts.
        for dotted in &clues.dotted {
            let parts: Vec<&str> = dotted.rsplitn(3, '.').collect();
            if parts.len() < 2 {
                continue;
            }
            let qualified = format!("{}.{}", parts[1], parts[0]);
            let defs = self.catalog.symbols_named(&ids, &qualified)?;
            let defs: Vec<_> = defs
                .into_iter()
                .filter(|d| d.qualified == qualified)
                .collect();
            if defs.is_empty() || defs.len() > MAX_DEFINITIONS {
                continue;
            }
            let w = QUALIFIED_DEFINES / defs.len() as f32;
            for d in &defs {
                let f = files.entry((si, d.path.clone())).or_default();
                f.store = si;
                f.add(w, format!("defines `{qualified}`"));
                f.defines.push(d.id);
            }
        }
        for ident in clues.identifiers.iter().take(60) {
            let defs = self.catalog.symbols_named(&ids, ident)?;
            let mut def_files: Vec<&str> = defs.iter().map(|d| d.path.as_str()).collect();
            def_files.sort_unstable();
            def_files.dedup();
            if def_files.is_empty() || def_files.len() > MAX_DEFINITIONS {
                continue;
            }
            let w = DEFINES / def_files.len() as f32;
            for d in &defs {
                let f = files.entry((si, d.path.clone())).or_default();
                f.store = si;
                if !f
                    .why
                    .iter()
                    .any(|(_, w)| w.ends_with(&format!("`{ident}`")))
                {
                    f.add(w, format!("defines `{ident}`"));
                }
                f.defines.push(d.id);
            }
        }
        Ok(())
    }

    /// The units of a located file to read first. Without `unit_names`: up to two that
    /// define a name the task writes out, then its best-scoring chunks, then the other named
    /// definitions. With it, every unit is scored: its chunk's retrieval score (relative to
    /// the file's best), plus [`UNIT_NAMED`] when the task writes its name and
    /// [`UNIT_IN_NAMED`] when it writes its container's (`polylog(…)` points at
    /// `polylog.eval`), so a definition the task names need not have been retrieved.
    fn located_units(
        &self,
        store_id: i64,
        path: &str,
        f: &FileEvidence,
        chunks: &HashMap<i64, StoredChunk>,
        names: Option<&[String]>,
        n: usize,
    ) -> Result<Vec<LocatedUnit>, EngineError> {
        let same = |a: &LocatedUnit, b: &LocatedUnit| {
            a.qualified == b.qualified && a.symbol == b.symbol && a.start_line == b.start_line
        };
        let mut file_chunks: Option<Vec<StoredChunk>> = None;
        // A definition as a unit, and the id of the chunk that holds it.
        let mut unit_of =
            |sym: &lore_index::SymbolRow| -> Result<Option<(LocatedUnit, i64)>, EngineError> {
                if file_chunks.is_none() {
                    file_chunks = Some(self.catalog.file_chunks(store_id, path)?);
                }
                // The innermost chunk holding the definition's first line gives the id (a small
                // class kept whole holds its methods).
                let holder = file_chunks
                    .iter()
                    .flatten()
                    .filter(|c| {
                        c.chunk.start_line <= sym.start_line && sym.start_line <= c.chunk.end_line
                    })
                    .min_by_key(|c| c.chunk.end_line - c.chunk.start_line);
                Ok(holder.map(|holder| {
                    let mut unit = located(holder, 0.0, &[]);
                    // A definition inside another's chunk is a unit of its own: so is its id.
                    if holder.chunk.symbol.as_deref() != Some(sym.name.as_str()) {
                        unit.id = crate::unit::ResultId {
                            chunk: holder.id,
                            line: Some(sym.start_line),
                        }
                        .to_string();
                    }
                    unit.kind = sym.kind.as_str().to_string();
                    unit.symbol = Some(sym.name.clone());
                    unit.qualified = (sym.qualified != sym.name).then(|| sym.qualified.clone());
                    [unit.start_line, unit.end_line] = [sym.start_line, sym.end_line];
                    (unit, holder.id)
                }))
            };
        let mut best: Vec<(f32, i64)> = f.chunks.clone();
        best.sort_by(|a, b| b.0.total_cmp(&a.0));
        let symbols = self.catalog.file_symbols(store_id, path)?;
        // A retrieved chunk as the unit it is part of: the windows of one long function
        // are one unit, with the function's lines.
        let located = |sc: &StoredChunk, score: f32| located(sc, score, &symbols);

        if let Some(names) = names {
            let top = best.first().map_or(0.0, |b| b.0).max(f32::EPSILON);
            let retrieved: HashMap<i64, f32> = best.iter().map(|&(s, id)| (id, s / top)).collect();
            let mut scored: Vec<LocatedUnit> = Vec::new();
            let push = |scored: &mut Vec<LocatedUnit>, unit: LocatedUnit| match scored
                .iter_mut()
                .find(|u| same(u, &unit))
            {
                Some(u) => u.score = u.score.max(unit.score),
                None => scored.push(unit),
            };
            for &(score, id) in &best {
                if let Some(sc) = chunks.get(&id) {
                    push(&mut scored, located(sc, score / top));
                }
            }
            let named = |name: &str| names.iter().any(|n| n == name);
            for sym in &symbols {
                let container = sym.qualified.rsplit_once('.').map(|(c, _)| c);
                let bonus = if named(&sym.name) {
                    UNIT_NAMED
                } else if container.is_some_and(|c| named(c.rsplit('.').next().unwrap_or(c))) {
                    UNIT_IN_NAMED
                } else {
                    continue;
                };
                if let Some((mut unit, holder)) = unit_of(sym)? {
                    unit.score = bonus + retrieved.get(&holder).copied().unwrap_or(0.0);
                    push(&mut scored, unit);
                }
            }
            scored.sort_by(|a, b| b.score.total_cmp(&a.score));
            scored.truncate(n);
            return Ok(scored);
        }

        let mut named: Vec<LocatedUnit> = Vec::new();
        for &symbol_id in &f.defines {
            let Some(sym) = self.catalog.symbol(symbol_id)? else {
                continue;
            };
            if let Some((unit, _)) = unit_of(&sym)?
                && !named.iter().any(|u| same(u, &unit))
            {
                named.push(unit);
            }
        }
        let mut out: Vec<LocatedUnit> = Vec::new();
        let mut named = named.into_iter();
        out.extend(named.by_ref().take(2.min(n)));
        for (score, id) in best {
            if out.len() >= n {
                break;
            }
            let Some(sc) = chunks.get(&id) else { continue };
            let unit = located(sc, score);
            if !out.iter().any(|u| same(u, &unit)) {
                out.push(unit);
            }
        }
        for unit in named {
            if out.len() >= n {
                break;
            }
            if !out.iter().any(|u| same(u, &unit)) {
                out.push(unit);
            }
        }
        Ok(out)
    }
}

/// A chunk as a located unit: its symbol's lines when `symbols` (its file's) hold the
/// definition it is part of, else its own.
fn located(sc: &StoredChunk, score: f32, symbols: &[lore_index::SymbolRow]) -> LocatedUnit {
    let c = &sc.chunk;
    let symbol = c.symbol.as_deref().and_then(|name| {
        symbols
            .iter()
            .filter(|s| s.name == name && s.start_byte < c.end_byte && s.end_byte > c.start_byte)
            .min_by_key(|s| s.end_byte - s.start_byte)
    });
    let [start_line, end_line] = crate::unit::unit_lines(sc, symbol);
    LocatedUnit {
        id: format!("{:016x}", sc.id),
        kind: c.kind.as_str().to_string(),
        symbol: c.symbol.clone(),
        qualified: match (&c.parent, &c.symbol) {
            (Some(p), Some(s)) => Some(format!("{p}.{s}")),
            _ => None,
        },
        start_line,
        end_line,
        score,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_match_by_their_longest_tail() {
        let paths: Vec<String> = [
            "requests/models.py",
            "requests/sessions.py",
            "docs/models.py",
            "tests/test_models.py",
        ]
        .map(String::from)
        .to_vec();
        let (n, found) = files_for_path("/usr/lib/site-packages/requests/models.py", &paths);
        assert_eq!((n, found), (2, vec![&paths[0]]));
        let (n, found) = files_for_path("models.py", &paths);
        assert_eq!(n, 1);
        assert_eq!(found.len(), 2);
        assert!(files_for_path("other.py", &paths).1.is_empty());
    }

    /// A located file's units: a method whose class the task calls by name comes before
    /// chunks that only share the task's words, and stays out when `unit_names` is off.
    #[test]
    fn units_of_a_named_container_come_first() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src");
        std::fs::create_dir_all(src.join("pkg")).unwrap();
        let mut code = String::from(
            "class polylog(Function):\n    def eval(cls, s, z):\n        return None\n\n\n",
        );
        for i in 0..6 {
            code.push_str(&format!(
                "def helper_{i}(x):\n    \"\"\"Expand the function and simplify the \
                 expansion result of a series.\"\"\"\n    return expand(x, {i})\n\n\n"
            ));
        }
        std::fs::write(src.join("pkg/zeta.py"), code).unwrap();
        let mut e = crate::test_engine(dir.path());
        let add = lore_core::AddStore {
            name: "s".into(),
            source: src.to_string_lossy().into_owned(),
            ..Default::default()
        };
        e.add_store(&add, &crate::NoProgress).unwrap();
        let task = "polylog(2, z).expand(func=True) gives a wrong expansion\n\n\
                    Expanding the function should simplify the series expansion result.";
        let mut req = LocateRequest::new(task);
        req.mode = Mode::Fts;
        let names = |req: &LocateRequest| -> Vec<String> {
            let r = e.locate(req).unwrap();
            assert_eq!(r.files[0].path, "pkg/zeta.py");
            r.files[0]
                .units
                .iter()
                .filter_map(|u| u.qualified.clone().or(u.symbol.clone()))
                .collect()
        };
        // The class the task calls, then its method, before the helpers sharing words.
        let on = names(&req);
        assert_eq!(on[..2], ["polylog", "polylog.eval"], "{on:?}");
        req.evidence.unit_names = false;
        let off = names(&req);
        assert!(!off.iter().any(|n| n == "polylog.eval"), "{off:?}");
    }

    /// A long function is indexed as several windows; located, it is one unit with the
    /// function's lines, whichever windows matched, with or without `unit_names`.
    #[test]
    fn a_long_functions_windows_are_one_unit() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src");
        std::fs::create_dir_all(&src).unwrap();
        let mut code = String::from("def serialize_cookie(name, value, options):\n");
        for i in 0..120 {
            code.push_str(&format!(
                "    value = check_max_age(value, options, {i})  # cookie max age in days\n"
            ));
        }
        code.push_str("    return value\n");
        std::fs::write(src.join("cookie.py"), &code).unwrap();
        let mut e = crate::test_engine(dir.path());
        let add = lore_core::AddStore {
            name: "s".into(),
            source: src.to_string_lossy().into_owned(),
            ..Default::default()
        };
        e.add_store(&add, &crate::NoProgress).unwrap();
        let mut req = LocateRequest::new("a cookie max age of more than 400 days is not rejected");
        req.mode = Mode::Fts;
        for unit_names in [true, false] {
            req.evidence.unit_names = unit_names;
            let r = e.locate(&req).unwrap();
            let units: Vec<(u32, u32)> = r.files[0]
                .units
                .iter()
                .map(|u| (u.start_line, u.end_line))
                .collect();
            assert_eq!(units, [(1, 122)], "unit_names {unit_names}: {units:?}");
        }
    }

    #[test]
    fn module_paths_try_the_longest_first() {
        assert_eq!(
            module_paths("sympy.core.mul"),
            [
                "sympy/core/mul.py",
                "sympy/core/mul/__init__.py",
                "sympy/core.py",
                "sympy/core/__init__.py"
            ]
        );
    }
}
