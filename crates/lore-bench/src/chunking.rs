//! Phase 1: chunking the taken files, on one thread and on rayon's pool.

use crate::report::{ChunkingReport, CorpusSize, Rate};
use crate::stats::per_sec;
use crate::status;
use lore_engine::Engine;
use lore_source::SourceFile;
use rayon::prelude::*;
use std::path::Path;
use std::time::Instant;

pub(crate) struct Chunked {
    pub report: ChunkingReport,
    /// Per taken file: its chunks and bytes, `None` when it is not indexable.
    pub per_file: Vec<Option<(usize, u64)>>,
    pub unreadable: usize,
    /// Chunks the parallel run made (the same as the single-thread one, or a note says not).
    pub parallel_chunks: usize,
}

pub(crate) fn measure(engine: &Engine, taken: &[SourceFile]) -> Chunked {
    status(&format!("chunking {} files", taken.len()));
    for f in taken {
        let _ = std::fs::read(&f.abs);
    }
    let max_bytes = engine.config().max_file_bytes;
    let chunk_opts = engine.config().chunk.clone();
    let chunk_one = |f: &SourceFile| -> Option<(usize, u64)> {
        let text = lore_source::read_text(&f.abs, max_bytes).ok()?;
        let chunks = lore_chunk::chunk_file(Path::new(&f.rel), &text, &chunk_opts);
        Some((chunks.len(), text.len() as u64))
    };
    let started = Instant::now();
    let per_file: Vec<Option<(usize, u64)>> = taken.iter().map(chunk_one).collect();
    let single_secs = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let par: Vec<Option<(usize, u64)>> = taken.par_iter().map(chunk_one).collect();
    let par_secs = started.elapsed().as_secs_f64();
    let corpus = CorpusSize {
        files: taken.len(),
        chunks: per_file.iter().flatten().map(|c| c.0).sum(),
        bytes: per_file.iter().flatten().map(|c| c.1).sum(),
    };
    let rate = |secs: f64| Rate {
        secs,
        files_per_s: per_sec(taken.len() as f64, secs),
        chunks_per_s: per_sec(corpus.chunks as f64, secs),
        mb_per_s: per_sec(corpus.bytes as f64 / 1e6, secs),
    };
    Chunked {
        report: ChunkingReport {
            corpus,
            note: "read + lore_chunk::chunk_file per file; page cache warm",
            single_thread: rate(single_secs),
            parallel: rate(par_secs),
            parallel_threads: rayon::current_num_threads(),
        },
        unreadable: per_file.iter().filter(|c| c.is_none()).count(),
        parallel_chunks: par.iter().flatten().map(|c| c.0).sum(),
        per_file,
    }
}
