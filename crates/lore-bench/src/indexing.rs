//! Phase 3: indexing a copy of the taken files (BM25 and catalog, no embeddings): a full
//! index, a re-index with nothing changed, one after rewriting 1% of the files unchanged
//! and one after editing ten.

use crate::report::{CorpusSize, EmbeddingReport, Estimate, IndexRun, IndexingReport};
use crate::{STORE, status};
use anyhow::Context;
use lore_core::StoreKind;
use lore_engine::{AddStore, Engine, IndexReport, Progress};
use lore_source::SourceFile;
use std::path::Path;
use std::time::Instant;

const EDITED_FILES: usize = 10;

pub(crate) fn measure(
    bench: &mut Engine,
    copy_root: &Path,
    taken: &[SourceFile],
    per_file: &[Option<(usize, u64)>],
    corpus_bytes: u64,
    embedding: Option<&EmbeddingReport>,
    progress: &dyn Progress,
) -> anyhow::Result<IndexingReport> {
    status("full index (BM25 + catalog, no embeddings)");
    let started = Instant::now();
    let (_, full) = bench
        .add_store(
            &AddStore {
                name: STORE.into(),
                source: copy_root.to_string_lossy().into_owned(),
                kind: Some(StoreKind::Folder),
                ..Default::default()
            },
            progress,
        )
        .context("indexing the bench store")?;
    let full = index_run(0, started, &full);
    let store_chunks = bench.store_info(STORE)?.stats.chunks as usize;
    let index_corpus = CorpusSize {
        files: full.files_seen,
        chunks: store_chunks,
        bytes: corpus_bytes,
    };

    status("no-change re-index");
    let no_change = reindex(bench, 0, progress)?;

    let ok: Vec<&SourceFile> = taken
        .iter()
        .zip(per_file)
        .filter(|(_, c)| c.is_some_and(|c| c.0 > 0))
        .map(|(f, _)| f)
        .collect();
    let n_touch = (full.files_seen / 100).max(1).min(ok.len());
    status(&format!(
        "rewriting {n_touch} files unchanged (mtime only), re-index"
    ));
    for i in 0..n_touch {
        let f = ok[i * ok.len() / n_touch];
        let path = copy_root.join(&f.rel);
        let bytes =
            std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
        std::fs::write(&path, bytes)
            .with_context(|| format!("cannot rewrite {}", path.display()))?;
    }
    let touch_1pct = reindex(bench, n_touch, progress)?;

    let n_edit = EDITED_FILES.min(ok.len());
    status(&format!("editing {n_edit} files, re-index"));
    for i in 0..n_edit {
        let f = ok[(i * ok.len() / n_edit + ok.len() / (2 * n_edit)).min(ok.len() - 1)];
        let path = copy_root.join(&f.rel);
        let mut text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        text.push_str(&format!("\n// lore bench edit {i}\n"));
        std::fs::write(&path, text).with_context(|| format!("cannot edit {}", path.display()))?;
    }
    let edit_10 = reindex(bench, n_edit, progress)?;

    let estimate_with_embeddings = embedding.map(|e| {
        let index_s = full.wall_ms / 1000.0;
        let embed_s = if e.chunks_per_s > 0.0 {
            store_chunks as f64 / e.chunks_per_s
        } else {
            f64::INFINITY
        };
        Estimate {
            note: "ESTIMATE: measured BM25+catalog full index time + store chunks / measured embedded chunks per s",
            index_s,
            embed_s,
            total_s: index_s + embed_s,
        }
    });
    Ok(IndexingReport {
        note: "fresh scratch data dir, EngineConfig::embed = false: BM25 + catalog only (no embeddings)",
        corpus: index_corpus,
        full,
        no_change,
        touch_1pct,
        edit_10,
        estimate_with_embeddings,
    })
}

fn index_run(modified: usize, started: Instant, r: &IndexReport) -> IndexRun {
    IndexRun {
        files_modified_before: modified,
        wall_ms: started.elapsed().as_secs_f64() * 1000.0,
        files_seen: r.files_seen,
        added: r.added,
        changed: r.changed,
        unchanged: r.unchanged,
        chunks_written: r.chunks_written,
    }
}

pub(crate) fn reindex(
    bench: &mut Engine,
    modified: usize,
    progress: &dyn Progress,
) -> anyhow::Result<IndexRun> {
    let started = Instant::now();
    let reports = bench
        .index(&[STORE.to_string()], false, progress)
        .context("re-indexing the bench store")?;
    let r = reports.first().context("re-indexing returned no report")?;
    Ok(index_run(modified, started, r))
}
