//! Incremental indexing of one store: walk, diff against the manifest, chunk, embed, commit.
//!
//! Files are committed in batches (BM25 first, then the catalog), so a crash loses at most
//! one batch and the next run picks up where this one stopped.

use crate::{Engine, EngineError, Phase, Progress};
use lore_core::{Chunk, FileFacts, StoreKind};
use lore_embed::Embedder;
use lore_index::{ChunkRow, FileRecord, Fts, StoreRecord, VectorSet, blob_to_embedding};
use lore_source::{PathFilter, SkipReason, SourceFile, WalkOptions};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::HashSet;
use std::time::Instant;

/// What one index run did to one store.
#[derive(Debug, Clone, Default, Serialize)]
pub struct IndexReport {
    pub store: String,
    pub files_seen: usize,
    pub added: usize,
    pub changed: usize,
    /// Same content, read again because this version of lore analyses files differently.
    #[serde(skip_serializing_if = "is_zero")]
    pub reanalyzed: usize,
    pub unchanged: usize,
    pub deleted: usize,
    pub chunks_written: usize,
    /// Chunks run through the model; the others kept the vector stored for their content.
    pub embedded: usize,
    pub skipped: Vec<SkippedFile>,
    /// What the user should know, e.g. that the store holds nothing after the run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    pub elapsed_ms: u64,
    /// Web stores added or synced: what the crawl before the index did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crawl: Option<lore_source::web::CrawlReport>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SkippedFile {
    pub path: String,
    pub reason: String,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Why a file is chunked again.
#[derive(Clone, Copy)]
enum Why {
    New,
    Edited,
    Reanalyzed,
}

/// A file read and chunked, waiting for embeddings.
enum Prepared {
    Changed {
        file: FileRecord,
        chunks: Vec<Chunk>,
        facts: FileFacts,
        why: Why,
    },
    /// Same content, new size/mtime.
    Touched(FileRecord),
    /// No longer indexable (binary, too large, unreadable).
    Skipped {
        path: String,
        reason: SkipReason,
        was_indexed: bool,
    },
}

const EMBED_STEP: usize = 64;

impl Engine {
    pub(crate) fn index_store(
        &mut self,
        store: &StoreRecord,
        full: bool,
        embedder: Option<&Embedder>,
        progress: &dyn Progress,
    ) -> Result<IndexReport, EngineError> {
        let started = Instant::now();
        let mut report = IndexReport {
            store: store.name.clone(),
            ..Default::default()
        };
        let walk = lore_source::walk(&store.root, &walk_options(store))?;
        report.files_seen = walk.files.len();
        let dir = self.data.store_dir(store.id);
        let fts_dir = dir.join("fts");
        let fts = match Fts::open(&fts_dir) {
            Ok(f) => f,
            Err(_) if full => {
                // A full rebuild also repairs an index that no longer opens.
                let _ = std::fs::remove_dir_all(&fts_dir);
                Fts::open(&fts_dir)?
            }
            Err(e) => return Err(e.into()),
        };
        // A full rebuild re-reads every file but need not re-embed: a chunk id names its
        // content, so the last vector snapshot's vector for an id is still that chunk's.
        let kept = match (full, embedder) {
            (true, Some(_)) => VectorSet::load(&dir.join("vectors.bin")).ok().flatten(),
            _ => None,
        };
        if full {
            // Forget the catalog's files first: if we crash before the end, the next run
            // sees an empty manifest and rebuilds, rather than trusting stale BM25 docs.
            let tx = self.catalog.begin()?;
            tx.clear_store(store.id)?;
            tx.bump_generation(store.id)?;
            tx.commit()?;
        }
        let manifest = self.catalog.manifest(store.id)?;
        // Files analysed by another version of the chunker are read again (their
        // embeddings are reused by chunk id, so this costs no embedding).
        let reanalyze =
            self.catalog.analyzer_version(store.id)? != Some(lore_chunk::ANALYZER_VERSION);
        // Nothing recorded: whatever the BM25 index holds is left over, start it afresh.
        let rebuild = manifest.is_empty();
        let seen: HashSet<&str> = walk.files.iter().map(|f| f.rel.as_str()).collect();
        let deleted: Vec<String> = manifest
            .keys()
            .filter(|p| !seen.contains(p.as_str()))
            .cloned()
            .collect();
        let todo: Vec<&SourceFile> = walk
            .files
            .iter()
            .filter(|f| match manifest.get(&f.rel) {
                Some(m) => reanalyze || m.size != f.size || m.mtime_ns != f.mtime_ns,
                None => true,
            })
            .collect();
        report.unchanged = walk.files.len() - todo.len();
        // Unchanged files known to be unindexable are still reported, without re-reading.
        for f in &walk.files {
            if let Some(m) = manifest.get(&f.rel)
                && let Some(reason) = &m.skipped
                && m.size == f.size
                && m.mtime_ns == f.mtime_ns
            {
                report.skipped.push(SkippedFile {
                    path: f.rel.clone(),
                    reason: reason.clone(),
                });
            }
        }
        for (path, reason) in &walk.skipped {
            report.skipped.push(SkippedFile {
                path: path.clone(),
                reason: reason.to_string(),
            });
        }

        // Read, hash and chunk every candidate in parallel (cheap next to embedding).
        progress.start(Phase::Files, todo.len() as u64);
        let chunk_opts = &self.config.chunk;
        let max_bytes = store.max_file_bytes;
        let prepared: Vec<Prepared> = todo
            .par_iter()
            .map(|f| {
                let p = prepare(f, manifest.get(&f.rel), max_bytes, chunk_opts, reanalyze);
                progress.advance(Phase::Files, 1);
                p
            })
            .collect();
        progress.finish(Phase::Files);

        let total_chunks: usize = prepared
            .iter()
            .map(|p| match p {
                Prepared::Changed { chunks, .. } => chunks.len(),
                _ => 0,
            })
            .sum();
        progress.start(Phase::Embeddings, total_chunks as u64);
        let mut writer = fts.writer()?;
        let mut first = true;
        // What the code graph must resolve again once the files are in.
        let mut dirty_names: Vec<String> = Vec::new();
        let mut changed_paths: Vec<String> = Vec::new();
        let mut changed_any = full || !deleted.is_empty();
        let todo_meta: std::collections::HashMap<&str, &SourceFile> =
            todo.iter().map(|f| (f.rel.as_str(), *f)).collect();
        let batch = self.config.commit_every_files.max(1);
        let mut batches = prepared.chunks(batch).peekable();
        // Always run at least one commit, so deletions and full clears land.
        let empty: &[Prepared] = &[];
        let mut pending = if batches.peek().is_none() {
            Some(empty)
        } else {
            None
        };
        while let Some(group) = pending.take().or_else(|| batches.next()) {
            // Embed the batch.
            let mut embedded: Vec<Vec<Vec<f32>>> = Vec::with_capacity(group.len());
            for p in group {
                // Nothing of this batch is written yet: stopping here keeps every commit.
                if progress.cancelled() {
                    drop(writer);
                    self.refresh_vectors(store.id)?;
                    self.forget_readers(store.id);
                    return Err(EngineError::Cancelled);
                }
                let vectors = match p {
                    Prepared::Changed { file, chunks, .. } if let Some(embedder) = embedder => {
                        let (vectors, fresh) = self.embed_chunks(
                            store.id,
                            &file.path,
                            chunks,
                            embedder,
                            kept.as_ref(),
                            progress,
                        )?;
                        report.embedded += fresh;
                        vectors
                    }
                    _ => Vec::new(),
                };
                embedded.push(vectors);
            }
            // BM25 first …
            if first {
                if rebuild {
                    writer.delete_all();
                }
                for path in &deleted {
                    writer.delete_file(path);
                }
            }
            for p in group {
                match p {
                    Prepared::Changed { file, chunks, .. } => {
                        writer.delete_file(&file.path);
                        for c in chunks {
                            let id = chunk_id(store.id, &file.path, c);
                            writer.add_chunk(id, &file.path, c)?;
                        }
                    }
                    Prepared::Skipped {
                        path,
                        was_indexed: true,
                        ..
                    } => writer.delete_file(path),
                    _ => {}
                }
            }
            writer.commit()?;
            // … then the catalog, in one transaction.
            let tx = self.catalog.begin()?;
            if first {
                for path in &deleted {
                    dirty_names.extend(tx.remove_facts(store.id, path)?);
                    tx.remove_file(store.id, path)?;
                }
                report.deleted = deleted.len();
            }
            for (p, vectors) in group.iter().zip(&embedded) {
                match p {
                    Prepared::Changed {
                        file,
                        chunks,
                        facts,
                        why,
                    } => {
                        let rows: Vec<ChunkRow> = chunks
                            .iter()
                            .zip(vectors.iter().map(Some).chain(std::iter::repeat(None)))
                            .map(|(c, v)| ChunkRow {
                                id: chunk_id(store.id, &file.path, c),
                                chunk: c,
                                embedding: v.map(Vec::as_slice),
                            })
                            .collect();
                        dirty_names.extend(tx.remove_facts(store.id, &file.path)?);
                        tx.replace_file(store.id, file, &rows)?;
                        tx.replace_facts(store.id, &file.path, facts)?;
                        dirty_names.extend(facts.symbols.iter().map(|s| s.name.clone()));
                        changed_paths.push(file.path.clone());
                        report.chunks_written += rows.len();
                        match why {
                            Why::New => report.added += 1,
                            Why::Edited => report.changed += 1,
                            Why::Reanalyzed => report.reanalyzed += 1,
                        }
                        changed_any = true;
                    }
                    Prepared::Touched(file) => {
                        tx.touch_file(store.id, file)?;
                        report.unchanged += 1;
                    }
                    Prepared::Skipped {
                        path,
                        reason,
                        was_indexed,
                    } => {
                        // Recorded without chunks, so it is not re-read (nor reported as
                        // stale) until it changes again.
                        let file = todo_meta.get(path.as_str()).map(|f| FileRecord {
                            path: path.clone(),
                            size: f.size,
                            mtime_ns: f.mtime_ns,
                            hash: String::new(),
                            chunks: 0,
                            skipped: Some(reason.to_string()),
                        });
                        match file {
                            Some(file) => tx.replace_file(store.id, &file, &[])?,
                            None => tx.remove_file(store.id, path)?,
                        }
                        changed_any |= *was_indexed;
                        report.skipped.push(SkippedFile {
                            path: path.clone(),
                            reason: reason.to_string(),
                        });
                    }
                }
            }
            if changed_any {
                tx.bump_generation(store.id)?;
            }
            tx.commit()?;
            first = false;
        }
        writer.finish()?;
        progress.finish(Phase::Embeddings);

        let structure_changed = full
            || rebuild
            || !deleted.is_empty()
            || report.added > 0
            || prepared.iter().any(|p| {
                matches!(
                    p,
                    Prepared::Skipped {
                        was_indexed: true,
                        ..
                    }
                )
            });
        self.resolve_graph(
            store.id,
            store.generation,
            &changed_paths,
            dirty_names,
            structure_changed,
        )?;
        let tx = self.catalog.begin()?;
        tx.set_indexed_now(store.id)?;
        tx.set_analyzer_version(store.id, lore_chunk::ANALYZER_VERSION)?;
        tx.commit()?;
        self.refresh_vectors(store.id)?;
        self.forget_readers(store.id);
        if store.kind != StoreKind::Brain && !self.catalog.has_chunks(store.id)? {
            report.warnings.push(nothing_indexed(store, &report));
        }
        report.elapsed_ms = started.elapsed().as_millis() as u64;
        Ok(report)
    }

    /// Embeddings of a changed file's chunks, and how many were computed. Chunks whose id
    /// (path, range, content) is already in the catalog, or in `kept` (the last snapshot,
    /// during a full rebuild), keep their vector: re-indexing after an edit, a migration, an
    /// interrupted run or `--full` only embeds what is new.
    fn embed_chunks(
        &self,
        store_id: i64,
        path: &str,
        chunks: &[Chunk],
        embedder: &Embedder,
        kept: Option<&VectorSet>,
        progress: &dyn Progress,
    ) -> Result<(Vec<Vec<f32>>, usize), EngineError> {
        let ids: Vec<i64> = chunks.iter().map(|c| chunk_id(store_id, path, c)).collect();
        let mut known = self.catalog.embeddings(&ids)?;
        if let Some(kept) = kept {
            for &id in &ids {
                if let Some(v) = kept.vector(id).filter(|v| v.len() == lore_embed::DIM) {
                    known.entry(id).or_insert_with(|| v.to_vec());
                }
            }
        }
        let missing: Vec<usize> = (0..chunks.len())
            .filter(|i| !known.contains_key(&ids[*i]))
            .collect();
        progress.advance(Phase::Embeddings, (chunks.len() - missing.len()) as u64);
        let mut fresh = Vec::with_capacity(missing.len());
        for step in missing.chunks(EMBED_STEP) {
            let texts: Vec<String> = step.iter().map(|&i| chunks[i].index_text()).collect();
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            fresh.extend(embedder.embed(&refs)?);
            progress.advance(Phase::Embeddings, step.len() as u64);
        }
        let count = fresh.len();
        let mut fresh = fresh.into_iter();
        let vectors = ids
            .iter()
            .map(|id| match known.get(id) {
                Some(v) => v.clone(),
                None => fresh.next().unwrap_or_default(),
            })
            .collect();
        Ok((vectors, count))
    }

    /// Rewrites the vector snapshot when it is behind the catalog.
    fn refresh_vectors(&self, store_id: i64) -> Result<(), EngineError> {
        let store = self
            .catalog
            .store_by_id(store_id)?
            .ok_or_else(|| EngineError::NotFound(format!("store #{store_id}")))?;
        let path = self.data.store_dir(store_id).join("vectors.bin");
        let current = VectorSet::load(&path)
            .ok()
            .flatten()
            .map(|v| v.generation());
        if current == Some(store.generation) {
            return Ok(());
        }
        let mut rows = Vec::new();
        self.catalog.for_each_embedding(store_id, |id, blob| {
            rows.push((id, blob_to_embedding(blob)));
        })?;
        VectorSet::write(&path, lore_embed::DIM, store.generation, &rows)?;
        Ok(())
    }
}

/// Reads, hashes and (when the content changed) chunks one file.
fn prepare(
    f: &SourceFile,
    old: Option<&FileRecord>,
    max_bytes: u64,
    opts: &lore_chunk::ChunkOptions,
    reanalyze: bool,
) -> Prepared {
    let text = match lore_source::read_text(&f.abs, max_bytes) {
        Ok(text) => text,
        Err(reason) => {
            return Prepared::Skipped {
                path: f.rel.clone(),
                reason,
                was_indexed: old.is_some(),
            };
        }
    };
    let mut file = FileRecord {
        path: f.rel.clone(),
        size: f.size,
        mtime_ns: f.mtime_ns,
        hash: lore_index::content_hash(text.as_bytes()),
        chunks: 0,
        skipped: None,
    };
    match old {
        Some(m) if m.hash == file.hash && !reanalyze => {
            file.chunks = m.chunks;
            Prepared::Touched(file)
        }
        _ => {
            let why = match old {
                None => Why::New,
                Some(m) if m.hash == file.hash => Why::Reanalyzed,
                Some(_) => Why::Edited,
            };
            let analysis = lore_chunk::analyze_file(&f.rel, &text, opts);
            file.chunks = analysis.chunks.len() as u32;
            Prepared::Changed {
                file,
                chunks: analysis.chunks,
                facts: analysis.facts,
                why,
            }
        }
    }
}

impl Engine {
    /// Judges single paths of `store` as its walk would (for watchers: an event on a path
    /// this rejects cannot change what the store indexes).
    pub fn path_filter(&self, store: &StoreRecord) -> Result<PathFilter, EngineError> {
        Ok(PathFilter::new(&store.root, &walk_options(store))?)
    }
}

/// Why a store holds nothing after a run: an empty index answers every search with
/// nothing, so it must not pass in silence. (A new brain is empty by design.)
fn nothing_indexed(store: &StoreRecord, report: &IndexReport) -> String {
    let root = store.root.display();
    if report.skipped.is_empty() {
        if report.files_seen > 0 {
            return format!("nothing indexed: the files under {root} hold no text");
        }
        let globs = if store.includes.is_empty() && store.excludes.is_empty() {
            ""
        } else {
            "; check the store's --include/--exclude globs"
        };
        return format!(
            "nothing indexed: no files found under {root} (hidden and gitignored files are skipped{globs})"
        );
    }
    let mut why: Vec<(&str, usize)> = Vec::new();
    for s in &report.skipped {
        // "too large (N bytes)", "binary", "not UTF-8", "unreadable: …"
        let kind = s.reason.split([':', '(']).next().unwrap_or("").trim();
        match why.iter_mut().find(|w| w.0 == kind) {
            Some(w) => w.1 += 1,
            None => why.push((kind, 1)),
        }
    }
    let why: Vec<String> = why.iter().map(|(k, n)| format!("{n} {k}")).collect();
    let cap = if report
        .skipped
        .iter()
        .any(|s| s.reason.starts_with("too large"))
    {
        "; the size cap is set by --max-file-size"
    } else {
        ""
    };
    format!(
        "nothing indexed under {root}: files skipped as {}{cap}",
        why.join(", ")
    )
}

/// What a store's walk keeps, from its record.
/// A web store's globs judge URLs during the crawl; its mirror is indexed whole.
pub(crate) fn walk_options(store: &StoreRecord) -> WalkOptions {
    let web = store.kind == lore_core::StoreKind::Web;
    let globs = |g: &Vec<String>| if web { Vec::new() } else { g.clone() };
    WalkOptions {
        includes: globs(&store.includes),
        excludes: globs(&store.excludes),
        max_file_bytes: store.max_file_bytes,
    }
}

fn chunk_id(store_id: i64, path: &str, c: &Chunk) -> i64 {
    lore_index::chunk_id(store_id, path, c.start_byte, c.end_byte, &c.content)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AddStore, NoProgress};

    use crate::test_engine as engine;

    fn add(e: &mut Engine, name: &str, src: &std::path::Path) -> IndexReport {
        let req = AddStore {
            name: name.into(),
            source: src.display().to_string(),
            ..Default::default()
        };
        e.add_store(&req, &NoProgress).unwrap().1
    }

    #[test]
    fn an_upgraded_analyzer_reports_re_analysed_files_not_changed_ones() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src");
        std::fs::create_dir_all(&src).unwrap();
        for i in 0..3 {
            std::fs::write(
                src.join(format!("m{i}.py")),
                format!("def f{i}():\n    pass\n"),
            )
            .unwrap();
        }
        let mut e = engine(dir.path());
        let store = add(&mut e, "py", &src).store;
        let id = e.store_record(&store).unwrap().id;
        let tx = e.catalog.begin().unwrap();
        tx.set_analyzer_version(id, lore_chunk::ANALYZER_VERSION - 1)
            .unwrap();
        tx.commit().unwrap();
        std::fs::write(src.join("m0.py"), "def g():\n    pass\n").unwrap();

        let r = &e
            .index(std::slice::from_ref(&store), false, &NoProgress)
            .unwrap()[0];
        assert_eq!((r.changed, r.reanalyzed, r.unchanged), (1, 2, 0), "{r:?}");
        let r = &e.index(&[store], false, &NoProgress).unwrap()[0];
        assert_eq!((r.changed, r.reanalyzed, r.unchanged), (0, 0, 3), "{r:?}");
    }

    #[test]
    fn a_store_left_empty_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty");
        let binary = dir.path().join("binary");
        std::fs::create_dir_all(&empty).unwrap();
        std::fs::create_dir_all(&binary).unwrap();
        std::fs::write(binary.join("a.bin"), [0u8, 1, 2, 0]).unwrap();
        std::fs::write(binary.join("b.txt"), "x".repeat(64)).unwrap();
        let mut e = engine(dir.path());
        let r = add(&mut e, "empty", &empty);
        assert!(r.warnings[0].contains("no files found"), "{r:?}");
        let req = AddStore {
            name: "binary".into(),
            source: binary.display().to_string(),
            max_file_bytes: Some(16),
            ..Default::default()
        };
        let r = e.add_store(&req, &NoProgress).unwrap().1;
        assert!(
            r.warnings[0].contains("1 binary, 1 too large")
                || r.warnings[0].contains("1 too large, 1 binary"),
            "{r:?}"
        );
        assert!(r.warnings[0].contains("--max-file-size"), "{r:?}");
    }
}
