//! Phase 2: embedding throughput, on chunks sampled evenly from the taken files, and the
//! latency of embedding one query.

use crate::queries::QUERIES;
use crate::report::{CorpusSize, EmbeddingReport};
use crate::stats::{per_sec, percentile};
use crate::status;
use anyhow::{Context, bail};
use lore_engine::{Engine, Progress};
use lore_source::SourceFile;
use std::path::Path;
use std::time::Instant;

const QUERY_EMBED_SAMPLES: usize = 20;

/// Embedding throughput on chunks sampled evenly from the corpus. `Ok(Err(why))` when the
/// model cannot be loaded (the section is skipped).
pub(crate) fn measure(
    engine: &Engine,
    taken: &[SourceFile],
    per_file: &[Option<(usize, u64)>],
    corpus: CorpusSize,
    embed_chunks: usize,
    progress: &dyn Progress,
) -> anyhow::Result<Result<EmbeddingReport, String>> {
    let k = embed_chunks.min(corpus.chunks);
    if k == 0 {
        return Ok(Err(
            "no chunks to embed (--embed-chunks 0 or an empty corpus)".into(),
        ));
    }
    status("loading the embedding model");
    let started = Instant::now();
    let embedder = match engine.embedder(false, progress) {
        Ok(e) => e,
        Err(e) => return Ok(Err(format!("embedding model not loaded: {e}"))),
    };
    let model_load_ms = started.elapsed().as_secs_f64() * 1000.0;

    // Global chunk indices i * total / k, found file by file.
    let targets: Vec<usize> = (0..k).map(|i| i * corpus.chunks / k).collect();
    let mut texts = Vec::with_capacity(k);
    let mut next = 0;
    let mut base = 0;
    let opts = &engine.config().chunk;
    for (f, c) in taken.iter().zip(per_file) {
        let Some((n, _)) = *c else { continue };
        if next < targets.len() && targets[next] < base + n {
            let text = lore_source::read_text(&f.abs, engine.config().max_file_bytes)
                .map_err(|e| anyhow::anyhow!("cannot re-read {}: {e}", f.abs.display()))?;
            let chunks = lore_chunk::chunk_file(Path::new(&f.rel), &text, opts);
            while next < targets.len() && targets[next] < base + n {
                if let Some(c) = chunks.get(targets[next] - base) {
                    texts.push(c.index_text());
                }
                next += 1;
            }
        }
        base += n;
    }
    if texts.is_empty() {
        return Ok(Err("no chunk could be sampled".into()));
    }
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let mean_chars =
        texts.iter().map(|t| t.chars().count() as f64).sum::<f64>() / texts.len() as f64;
    let mean_tokens_approx = texts
        .iter()
        .map(|t| ((t.chars().count() as f64) / 4.0).min(lore_embed::MAX_TOKENS as f64))
        .sum::<f64>()
        / texts.len() as f64;

    status(&format!("embedding {} chunks", texts.len()));
    embedder
        .embed(&["warm up"])
        .context("embedding a warm-up text")?;
    let started = Instant::now();
    let vectors = embedder.embed(&refs).context("embedding corpus chunks")?;
    let secs = started.elapsed().as_secs_f64();
    if vectors.len() != refs.len() {
        bail!(
            "the embedder returned {} vectors for {} texts",
            vectors.len(),
            refs.len()
        );
    }
    let mut lat = Vec::with_capacity(QUERY_EMBED_SAMPLES);
    for q in QUERIES.iter().cycle().take(QUERY_EMBED_SAMPLES) {
        let started = Instant::now();
        embedder.embed_query(q).context("embedding a query")?;
        lat.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    lat.sort_by(f64::total_cmp);
    Ok(Ok(EmbeddingReport {
        corpus,
        chunks: texts.len(),
        mean_chars,
        mean_tokens_approx,
        tokens_note: "approximate: chars / 4, capped at the model's 256-token input",
        model_load_ms,
        secs,
        chunks_per_s: per_sec(texts.len() as f64, secs),
        query_embed_ms_median: percentile(&lat, 50.0),
        query_embed_samples: lat.len(),
    }))
}
