//! `lore bench`: the speed figures of `lore-bench`, as a table or JSON.

use crate::cli::BenchArgs;
use crate::output::print_json;
use lore_bench::{BenchReport, CorpusSize};
use lore_engine::{Engine, Progress};

pub fn run(
    engine: &mut Engine,
    args: BenchArgs,
    json: bool,
    progress: &dyn Progress,
) -> anyhow::Result<()> {
    let report = lore_bench::measure(engine, &args.options(), progress)?;
    if json {
        return print_json(&report);
    }
    print_table(&report);
    Ok(())
}

fn size_str(c: &CorpusSize) -> String {
    format!(
        "{} files, {} chunks, {:.1} MB",
        c.files,
        c.chunks,
        c.bytes as f64 / 1e6
    )
}

fn mb(bytes: Option<u64>) -> String {
    bytes.map_or_else(|| "?".into(), |b| format!("{:.0}", b as f64 / 1e6))
}

fn print_table(r: &BenchReport) {
    let m = &r.machine;
    out!(
        "machine: {} cores ({} rayon threads), {}/{}, load avg start {} end {}",
        m.cores,
        m.rayon_threads,
        m.os,
        m.arch,
        m.loadavg_start.as_deref().unwrap_or("?"),
        m.loadavg_end.as_deref().unwrap_or("?")
    );
    out!(
        "corpus:  {} ({} files walked; taken: {}; {} not indexable)",
        r.corpus.dir,
        r.corpus.walked_files,
        size_str(&r.corpus.taken),
        r.corpus.unreadable_files
    );

    let c = &r.chunking;
    out!("\nchunking [{}] ({})", size_str(&c.corpus), c.note);
    out!(
        "  {:<18} {:>9} {:>11} {:>12} {:>8}",
        "",
        "secs",
        "files/s",
        "chunks/s",
        "MB/s"
    );
    for (name, x) in [("single thread", &c.single_thread), ("rayon", &c.parallel)] {
        let name = if name == "rayon" {
            format!("rayon ({} thr)", c.parallel_threads)
        } else {
            name.to_string()
        };
        out!(
            "  {:<18} {:>9.2} {:>11.0} {:>12.0} {:>8.1}",
            name,
            x.secs,
            x.files_per_s,
            x.chunks_per_s,
            x.mb_per_s
        );
    }

    out!();
    match (&r.embedding, &r.embedding_skipped) {
        (Some(e), _) => {
            out!(
                "embedding [{} sampled from {}]",
                e.chunks,
                size_str(&e.corpus)
            );
            out!(
                "  {:.1} chunks/s ({:.2} s); mean {:.0} chars ≈ {:.0} tokens ({}); model load {:.0} ms",
                e.chunks_per_s,
                e.secs,
                e.mean_chars,
                e.mean_tokens_approx,
                e.tokens_note,
                e.model_load_ms
            );
            out!(
                "  single query embed: {:.1} ms median of {}",
                e.query_embed_ms_median,
                e.query_embed_samples
            );
        }
        (None, why) => out!(
            "embedding: skipped ({})",
            why.as_deref().unwrap_or("no model")
        ),
    }

    let f = &r.first_answer;
    out!("\nfirst answer [{}]\n  {}", size_str(&f.corpus), f.note);
    out!(
        "  store add → first keyword answer ({:?}): {:.1} s{}",
        f.query,
        f.first_fts_answer_ms / 1000.0,
        if f.embeddings {
            ""
        } else {
            " (no model: added keyword-only)"
        }
    );
    if let Some(m) = &f.mid_embedding {
        out!(
            "  hybrid search mid-embedding: {} results in {:.0} ms, store {:.0}% embedded",
            m.results,
            m.ms,
            m.embedded * 100.0
        );
    }
    if let Some(rate) = f.embedding_chunks_per_s {
        match (
            f.fully_embedded_ms,
            f.stopped_after_ms,
            f.fully_embedded_estimate_s,
        ) {
            (Some(done), _, _) => out!(
                "  fully embedded: {:.1} s ({:.1} chunks/s in the background)",
                done / 1000.0,
                rate
            ),
            (None, Some(stop), est) => out!(
                "  stopped after {:.0} s with {} of {} chunks embedded ({:.1} chunks/s); \
                 ESTIMATE fully embedded: {:.0} s",
                stop / 1000.0,
                f.embedded_chunks,
                f.corpus.chunks,
                rate,
                est.unwrap_or(0.0)
            ),
            _ => {}
        }
    }

    let i = &r.indexing;
    out!("\nindexing [{}]\n  {}", size_str(&i.corpus), i.note);
    out!(
        "  {:<28} {:>10} {:>7} {:>7} {:>8} {:>10} {:>8}",
        "",
        "wall ms",
        "seen",
        "added",
        "changed",
        "unchanged",
        "chunks"
    );
    for (name, x) in [
        ("full", &i.full),
        ("no-change re-index", &i.no_change),
        ("touch 1% (same hash)", &i.touch_1pct),
        ("edit 10 files", &i.edit_10),
    ] {
        let name = if x.files_modified_before > 0 {
            format!("{name} [{}]", x.files_modified_before)
        } else {
            name.to_string()
        };
        out!(
            "  {:<28} {:>10.0} {:>7} {:>7} {:>8} {:>10} {:>8}",
            name,
            x.wall_ms,
            x.files_seen,
            x.added,
            x.changed,
            x.unchanged,
            x.chunks_written
        );
    }
    match &i.estimate_with_embeddings {
        Some(e) => out!(
            "  ESTIMATE full index with embeddings: {:.0} s = {:.1} s index + {:.0} s embedding ({})",
            e.total_s,
            e.index_s,
            e.embed_s,
            e.note
        ),
        None => out!("  full index with embeddings: not estimated (no embedding figure)"),
    }

    let q = &r.queries;
    out!(
        "\nqueries [{}], {} queries x {} timed runs per mode\n  {}\n  {}",
        size_str(&q.corpus),
        q.queries,
        q.repeats,
        q.vectors,
        q.note
    );
    if let Some(g) = &q.grown {
        out!("  {g}");
    }
    out!(
        "  {:<8} {:>8} {:>9} {:>9} {:>9} {:>9}",
        "mode",
        "samples",
        "p50 ms",
        "p95 ms",
        "mean ms",
        "max ms"
    );
    for m in &q.modes {
        match (&m.latency, &m.skipped) {
            (Some(l), _) => out!(
                "  {:<8} {:>8} {:>9.2} {:>9.2} {:>9.2} {:>9.2}",
                m.mode,
                l.samples,
                l.p50_ms,
                l.p95_ms,
                l.mean_ms,
                l.max_ms
            ),
            (None, why) => out!("  {:<8} skipped: {}", m.mode, why.as_deref().unwrap_or("")),
        }
    }

    if let Some(pg) = &r.postgres {
        out!(
            "\nthe same queries on PostgreSQL ({}; {} chunks copied by db import in {:.1} s)",
            pg.database,
            pg.chunks,
            pg.import_secs
        );
        out!(
            "  {:<8} {:>9} {:>9} {:>9} {:>9} {:>6} {:>9} {:>9} {:>6}",
            "",
            "embedded",
            "",
            "database",
            "",
            "",
            "read copy",
            "",
            ""
        );
        out!(
            "  {:<8} {:>9} {:>9} {:>9} {:>9} {:>6} {:>9} {:>9} {:>6}",
            "mode",
            "p50 ms",
            "p95 ms",
            "p50 ms",
            "p95 ms",
            "p50 ×",
            "p50 ms",
            "p95 ms",
            "p50 ×"
        );
        for ((em, pm), cm) in q.modes.iter().zip(&pg.modes).zip(&pg.copy_modes) {
            match (&em.latency, &pm.latency, &cm.latency) {
                (Some(e), Some(p), Some(c)) => out!(
                    "  {:<8} {:>9.2} {:>9.2} {:>9.2} {:>9.2} {:>6.2} {:>9.2} {:>9.2} {:>6.2}",
                    em.mode,
                    e.p50_ms,
                    e.p95_ms,
                    p.p50_ms,
                    p.p95_ms,
                    p.p50_ms / e.p50_ms.max(1e-9),
                    c.p50_ms,
                    c.p95_ms,
                    c.p50_ms / e.p50_ms.max(1e-9)
                ),
                _ => out!(
                    "  {:<8} skipped: {}",
                    em.mode,
                    pm.skipped
                        .as_deref()
                        .or(em.skipped.as_deref())
                        .unwrap_or("")
                ),
            }
        }
        out!(
            "  read copy (BM25 and vectors of the store in this server's data dir, current \
             while its generation is the store's): built in {:.1} s",
            pg.copy_secs
        );
        match &pg.hnsw {
            Some(h) => {
                out!(
                    "  HNSW (stores of {}+ vectors; searches keep ef_search {}): raw top 10 \
                     against the exact scan (p50 {:.2} ms)",
                    h.min_vectors,
                    h.ef_search_default,
                    h.exact.p50_ms
                );
                out!("    {}", h.note);
                for run in &h.runs {
                    out!(
                        "    ef_search {:>4}: recall@10 {:.3}, p50 {:.2} ms, p95 {:.2} ms",
                        run.ef_search,
                        run.recall_at_10,
                        run.latency.p50_ms,
                        run.latency.p95_ms
                    );
                }
            }
            None => out!("  exact vector scan (no HNSW index below the size that needs one)"),
        }
    }

    if !r.search_processes.is_empty() {
        out!("\nlore search as its own process (cold: opens the index and loads the model)");
        out!(
            "  {:<8} {:>9} {:>8} {:>13}",
            "mode",
            "wall ms",
            "results",
            "peak RSS MB"
        );
        for p in &r.search_processes {
            out!(
                "  {:<8} {:>9.0} {:>8} {:>13}",
                p.mode,
                p.wall_ms,
                p.results,
                mb(p.peak_rss_bytes)
            );
        }
    }

    if !r.scan.is_empty() {
        out!(
            "\nvector scan alone (synthetic unit vectors; exact = one-thread f32 scan, as before)"
        );
        out!(
            "  {:>9} {:>7} {:>16} {:>16} {:>10} {:>16} {:>10} {:>12} {:>10}",
            "vectors",
            "queries",
            "int8 p50/p95 ms",
            "exact p50/p95",
            "recall@10",
            "k=100 p50/p95",
            "recall@100",
            "snapshot MB",
            "held MB"
        );
        for s in &r.scan {
            out!(
                "  {:>9} {:>7} {:>16} {:>16} {:>10.4} {:>16} {:>10.4} {:>12} {:>10}",
                s.vectors,
                s.queries,
                format!("{:.1} / {:.1}", s.quantised.p50_ms, s.quantised.p95_ms),
                format!("{:.1} / {:.1}", s.exact.p50_ms, s.exact.p95_ms),
                s.recall_at_10,
                format!(
                    "{:.1} / {:.1}",
                    s.quantised_at_100.p50_ms, s.quantised_at_100.p95_ms
                ),
                s.recall_at_100,
                mb(Some(s.snapshot_bytes)),
                mb(s.held_bytes)
            );
        }
    }

    out!(
        "\npeak RSS of the bench process (VmHWM): {}",
        r.peak_rss_bytes
            .map(|b| format!("{:.0} MB", b as f64 / 1e6))
            .unwrap_or_else(|| "unavailable".into())
    );
    let phases: Vec<String> = r
        .peak_rss_after
        .iter()
        .filter_map(|(p, b)| b.map(|b| format!("{p} {:.0} MB", b as f64 / 1e6)))
        .collect();
    if !phases.is_empty() {
        out!("  after each phase: {}", phases.join(", "));
    }
    for n in &r.notes {
        out!("note: {n}");
    }
}
