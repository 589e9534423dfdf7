//! `lore bench`: chunking, embedding, indexing and query speed on a real corpus.
//!
//! The corpus (default: the cargo registry sources) is only read. Indexing runs on a copy of
//! the taken files in a scratch folder (so touching and editing files never changes the
//! corpus), with a fresh data dir and embeddings off; the query store gets synthetic vectors.

use anyhow::{Context, bail};
use clap::Args;
use lore_core::{DataDir, StoreKind};
use lore_engine::{AddStore, Engine, IndexReport, Mode, NoProgress, Progress, SearchRequest};
use lore_source::{SourceFile, WalkOptions};
use rayon::prelude::*;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Folder of real files to measure on [default: $CARGO_HOME/registry/src or
    /// ~/.cargo/registry/src].
    #[arg(long)]
    pub corpus: Option<PathBuf>,
    /// Files taken from the corpus, in walk order.
    #[arg(long, default_value_t = 6000)]
    pub max_files: usize,
    /// Corpus chunks embedded to measure embedding throughput.
    #[arg(long, default_value_t = 64)]
    pub embed_chunks: usize,
    /// Fewest chunks in the store queries run on; more corpus files are indexed to reach it.
    #[arg(long, default_value_t = 50_000)]
    pub query_chunks: usize,
    /// Timed runs of every query per mode (after one warm-up run).
    #[arg(long, default_value_t = 3)]
    pub query_repeats: usize,
    /// Parent of the scratch folder (copied corpus and index) [default: the temp dir].
    #[arg(long)]
    pub scratch: Option<PathBuf>,
    /// Keep the scratch folder instead of removing it at the end.
    #[arg(long)]
    pub keep_scratch: bool,
}

const STORE: &str = "bench";
const EDITED_FILES: usize = 10;
const QUERY_EMBED_SAMPLES: usize = 20;

/// Realistic code-search queries: identifiers, natural language, and long pasted errors.
const QUERIES: [&str; 40] = [
    "HashMap::with_capacity",
    "Vec::extend_from_slice",
    "serde_json::from_str",
    "impl Display for",
    "impl Iterator for",
    "BufReader::new",
    "unwrap_or_default",
    "std::io::ErrorKind::NotFound",
    "#[derive(Debug, Clone, PartialEq)]",
    "Arc<Mutex<",
    "tokio::spawn",
    "PhantomData",
    "thread_local!",
    "fn from_str",
    "to_string_lossy",
    "Result<(), Box<dyn Error>>",
    "memcpy",
    "malloc size_t",
    "AtomicUsize::fetch_add",
    "impl Drop for",
    "parse a toml file",
    "read a file line by line",
    "convert utf-16 to a string",
    "compute the sha256 hash of bytes",
    "retry with exponential backoff",
    "parse command line arguments",
    "serialize a struct to json",
    "spawn a thread and wait for it to finish",
    "check whether a path is a directory",
    "format a duration as human readable text",
    "escape html entities",
    "compare two strings ignoring case",
    "handle the ctrl-c signal",
    "lock-free queue",
    "base64 encode bytes",
    "unicode normalization of strings",
    "create a temporary directory",
    "percent-decode a url",
    "thread 'main' panicked at 'called `Result::unwrap()` on an `Err` value: Os { code: 2, \
     kind: NotFound, message: \"No such file or directory\" }', src/main.rs:14:37\n\
     stack backtrace:\n   0: rust_begin_unwind\n   1: core::panicking::panic_fmt\n   \
     2: core::result::unwrap_failed\n   3: core::result::Result<T,E>::unwrap\n   \
     4: app::config::load\n             at ./src/config.rs:41:9\n   5: app::main\n",
    "error[E0277]: the trait bound `MyType: serde::Serialize` is not satisfied\n  --> \
     src/lib.rs:12:5\n   |\n12 |     serde_json::to_string(&value)?;\n   |     \
     ^^^^^^^^^^^^^^^^^^^^^ the trait `Serialize` is not implemented for `MyType`",
];

#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct CorpusSize {
    pub files: usize,
    pub chunks: usize,
    pub bytes: u64,
}

#[derive(Debug, Serialize)]
pub struct Machine {
    pub cores: usize,
    pub rayon_threads: usize,
    pub os: &'static str,
    pub arch: &'static str,
    /// /proc/loadavg at the start and the end (other work on the machine skews figures).
    pub loadavg_start: Option<String>,
    pub loadavg_end: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct CorpusInfo {
    pub dir: String,
    /// Files the walk found in the whole corpus folder.
    pub walked_files: usize,
    /// Files taken (first `--max-files` in walk order) and their indexable size.
    #[serde(flatten)]
    pub taken: CorpusSize,
    /// Taken files not indexable (binary, not UTF-8, unreadable).
    pub unreadable_files: usize,
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct Rate {
    pub secs: f64,
    pub files_per_s: f64,
    pub chunks_per_s: f64,
    pub mb_per_s: f64,
}

#[derive(Debug, Serialize)]
pub struct ChunkingReport {
    pub corpus: CorpusSize,
    pub note: &'static str,
    pub single_thread: Rate,
    pub parallel: Rate,
    pub parallel_threads: usize,
}

#[derive(Debug, Serialize)]
pub struct EmbeddingReport {
    /// The corpus the chunks were sampled from (evenly spaced over its chunks).
    pub corpus: CorpusSize,
    pub chunks: usize,
    pub mean_chars: f64,
    pub mean_tokens_approx: f64,
    pub tokens_note: &'static str,
    pub model_load_ms: f64,
    pub secs: f64,
    pub chunks_per_s: f64,
    pub query_embed_ms_median: f64,
    pub query_embed_samples: usize,
}

#[derive(Debug, Serialize)]
pub struct IndexRun {
    /// Files rewritten or edited before this run.
    pub files_modified_before: usize,
    pub wall_ms: f64,
    pub files_seen: usize,
    pub added: usize,
    pub changed: usize,
    /// Unchanged plus touched (same hash) files.
    pub unchanged: usize,
    pub chunks_written: usize,
}

#[derive(Debug, Serialize)]
pub struct Estimate {
    pub note: &'static str,
    pub index_s: f64,
    pub embed_s: f64,
    pub total_s: f64,
}

#[derive(Debug, Serialize)]
pub struct IndexingReport {
    pub note: &'static str,
    pub corpus: CorpusSize,
    pub full: IndexRun,
    pub no_change: IndexRun,
    pub touch_1pct: IndexRun,
    pub edit_10: IndexRun,
    pub estimate_with_embeddings: Option<Estimate>,
}

#[derive(Debug, Default, Serialize)]
pub struct Latency {
    pub samples: usize,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub mean_ms: f64,
    pub max_ms: f64,
}

#[derive(Debug, Serialize)]
pub struct ModeLatency {
    pub mode: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency: Option<Latency>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct QueryReport {
    pub corpus: CorpusSize,
    /// How the store was grown past `--max-files` to reach `--query-chunks`, if it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grown: Option<String>,
    pub vectors: &'static str,
    pub note: &'static str,
    pub queries: usize,
    pub repeats: usize,
    pub modes: Vec<ModeLatency>,
}

#[derive(Debug, Serialize)]
pub struct BenchReport {
    pub machine: Machine,
    pub corpus: CorpusInfo,
    pub chunking: ChunkingReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embedding: Option<EmbeddingReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embedding_skipped: Option<String>,
    pub indexing: IndexingReport,
    pub queries: QueryReport,
    /// VmHWM of this process at the end (whole run: model, index build, vector snapshot).
    pub peak_rss_bytes: Option<u64>,
    /// VmHWM after each phase (it only grows): where the peak comes from.
    pub peak_rss_after: Vec<(&'static str, Option<u64>)>,
    pub notes: Vec<String>,
}

fn status(msg: &str) {
    eprintln!("bench: {msg}");
}

/// The cargo registry sources, where cargo keeps unpacked crates.
fn default_corpus() -> anyhow::Result<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .context("neither CARGO_HOME nor HOME is set; pass --corpus DIR")?;
    Ok(home.join("registry").join("src"))
}

/// Removes the scratch folder when the bench ends (unless kept).
struct Scratch {
    dir: PathBuf,
    keep: bool,
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if self.keep {
            status(&format!("scratch kept at {}", self.dir.display()));
        } else if let Err(e) = std::fs::remove_dir_all(&self.dir) {
            status(&format!(
                "could not remove scratch {}: {e}",
                self.dir.display()
            ));
        }
    }
}

pub fn run(
    engine: &mut Engine,
    args: &BenchArgs,
    json: bool,
    progress: &dyn Progress,
) -> anyhow::Result<()> {
    let report = measure(engine, args, progress)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_table(&report);
    }
    Ok(())
}

pub fn measure(
    engine: &mut Engine,
    args: &BenchArgs,
    progress: &dyn Progress,
) -> anyhow::Result<BenchReport> {
    if args.max_files == 0 {
        bail!("--max-files must be at least 1");
    }
    let loadavg_start = loadavg();
    let mut notes = Vec::new();
    let corpus_dir = match &args.corpus {
        Some(d) => d.clone(),
        None => default_corpus()?,
    };
    if !corpus_dir.is_dir() {
        bail!(
            "corpus folder {} does not exist; pass --corpus DIR (any folder of real source files)",
            corpus_dir.display()
        );
    }
    let max_bytes = engine.config().max_file_bytes;
    status(&format!("walking {}", corpus_dir.display()));
    let walk = lore_source::walk(
        &corpus_dir,
        &WalkOptions {
            max_file_bytes: max_bytes,
            ..Default::default()
        },
    )
    .with_context(|| format!("cannot walk corpus {}", corpus_dir.display()))?;
    let all_files = walk.files;
    if all_files.is_empty() {
        bail!(
            "corpus folder {} holds no indexable files",
            corpus_dir.display()
        );
    }
    let taken = &all_files[..args.max_files.min(all_files.len())];

    // 1. Chunking (page cache warmed first, so both runs measure CPU rather than the disk).
    status(&format!("chunking {} files", taken.len()));
    for f in taken {
        let _ = std::fs::read(&f.abs);
    }
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
    if par.iter().flatten().map(|c| c.0).sum::<usize>() != corpus.chunks {
        notes.push("parallel chunking produced a different chunk count than single-thread".into());
    }
    let unreadable = per_file.iter().filter(|c| c.is_none()).count();
    let rate = |secs: f64| Rate {
        secs,
        files_per_s: per_sec(taken.len() as f64, secs),
        chunks_per_s: per_sec(corpus.chunks as f64, secs),
        mb_per_s: per_sec(corpus.bytes as f64 / 1e6, secs),
    };
    let chunking = ChunkingReport {
        corpus,
        note: "read + lore_chunk::chunk_file per file; page cache warm",
        single_thread: rate(single_secs),
        parallel: rate(par_secs),
        parallel_threads: rayon::current_num_threads(),
    };

    let rss_after_chunking = peak_rss();

    // 2. Embedding.
    let (embedding, embedding_skipped) =
        match bench_embedding(engine, taken, &per_file, corpus, args, progress)? {
            Ok(r) => (Some(r), None),
            Err(why) => {
                status(&format!("embedding skipped: {why}"));
                (None, Some(why))
            }
        };

    let mut rss = vec![("chunking", rss_after_chunking), ("embedding", peak_rss())];

    // 3. Indexing, on a copy of the taken files.
    let parent = match &args.scratch {
        Some(p) => p.clone(),
        None => std::env::temp_dir(),
    };
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let scratch = Scratch {
        dir: parent.join(format!("lore-bench-{}-{nanos}", std::process::id())),
        keep: args.keep_scratch,
    };
    let copy_root = scratch.dir.join("corpus");
    let data_root = scratch.dir.join("data");
    status(&format!(
        "copying {} files to {}",
        taken.len(),
        copy_root.display()
    ));
    for f in taken {
        copy_file(f, &copy_root, "")?;
    }
    std::fs::create_dir_all(data_root.join("models"))
        .with_context(|| format!("cannot create {}", data_root.display()))?;
    link_model(
        &engine.model_dir(),
        &data_root.join("models").join(lore_embed::MODEL_NAME),
    );
    let mut config = engine.config().clone();
    config.embed = false;
    let mut bench = Engine::open_with(DataDir::new(&data_root), config)
        .with_context(|| format!("cannot open scratch data dir {}", data_root.display()))?;

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
        bytes: corpus.bytes,
    };
    if full.files_seen < 5000 {
        notes.push(format!(
            "the no-change re-index saw {} files (< 5000): the corpus or --max-files is small",
            full.files_seen
        ));
    }

    status("no-change re-index");
    let no_change = reindex(&mut bench, 0, progress)?;

    let ok: Vec<&SourceFile> = taken
        .iter()
        .zip(&per_file)
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
    let touch_1pct = reindex(&mut bench, n_touch, progress)?;

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
    let edit_10 = reindex(&mut bench, n_edit, progress)?;

    let estimate_with_embeddings = embedding.as_ref().map(|e| {
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
    let indexing = IndexingReport {
        note: "fresh scratch data dir, EngineConfig::embed = false: BM25 + catalog only (no embeddings)",
        corpus: index_corpus,
        full,
        no_change,
        touch_1pct,
        edit_10,
        estimate_with_embeddings,
    };

    rss.push(("indexing", peak_rss()));

    // 4. Queries, on a store of at least `--query-chunks` chunks.
    let (query_corpus, grown) = grow_store(
        &mut bench,
        &all_files,
        taken,
        &copy_root,
        index_corpus,
        args.query_chunks,
        progress,
    )?;
    if query_corpus.chunks < args.query_chunks {
        notes.push(format!(
            "the query store has {} chunks, fewer than --query-chunks {}",
            query_corpus.chunks, args.query_chunks
        ));
    }
    status(&format!(
        "writing synthetic vectors for {} chunks",
        query_corpus.chunks
    ));
    write_synthetic_vectors(&bench)?;
    rss.push(("synthetic vectors", peak_rss()));
    let vectors_ok = match bench.embedder(false, &NoProgress) {
        Ok(_) => None,
        Err(e) => Some(format!("embedding model unavailable ({e})")),
    };
    let repeats = args.query_repeats.max(1);
    let mut modes = Vec::new();
    for mode in [Mode::Fts, Mode::Vector, Mode::Hybrid] {
        if mode != Mode::Fts
            && let Some(why) = &vectors_ok
        {
            modes.push(ModeLatency {
                mode: mode.as_str(),
                latency: None,
                skipped: Some(why.clone()),
            });
            continue;
        }
        status(&format!("queries, {} mode", mode.as_str()));
        let req = |q: &str| SearchRequest {
            stores: vec![STORE.into()],
            mode,
            freshness: false,
            ..SearchRequest::new(q)
        };
        for q in QUERIES {
            bench
                .search(&req(q))
                .with_context(|| format!("{} search for {q:?}", mode.as_str()))?;
        }
        let mut samples = Vec::with_capacity(QUERIES.len() * repeats);
        for _ in 0..repeats {
            for q in QUERIES {
                let r = req(q);
                let started = Instant::now();
                bench
                    .search(&r)
                    .with_context(|| format!("{} search for {q:?}", mode.as_str()))?;
                samples.push(started.elapsed().as_secs_f64() * 1000.0);
            }
        }
        modes.push(ModeLatency {
            mode: mode.as_str(),
            latency: Some(summarize(samples)),
            skipped: None,
        });
    }
    rss.push(("queries", peak_rss()));
    let queries = QueryReport {
        corpus: query_corpus,
        grown,
        vectors: "synthetic vectors (latency only): deterministic pseudo-random unit vectors, one per chunk",
        note: "engine.search wall time (freshness off, limit 10); vector and hybrid include embedding the query",
        queries: QUERIES.len(),
        repeats,
        modes,
    };
    drop(bench);
    drop(scratch);

    Ok(BenchReport {
        machine: Machine {
            cores: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            rayon_threads: rayon::current_num_threads(),
            os: std::env::consts::OS,
            arch: std::env::consts::ARCH,
            loadavg_start,
            loadavg_end: loadavg(),
        },
        corpus: CorpusInfo {
            dir: corpus_dir.display().to_string(),
            walked_files: all_files.len(),
            taken: corpus,
            unreadable_files: unreadable,
        },
        chunking,
        embedding,
        embedding_skipped,
        indexing,
        queries,
        peak_rss_bytes: peak_rss(),
        peak_rss_after: rss,
        notes,
    })
}

/// Embedding throughput on chunks sampled evenly from the corpus. `Ok(Err(why))` when the
/// model cannot be loaded (the section is skipped).
fn bench_embedding(
    engine: &Engine,
    taken: &[SourceFile],
    per_file: &[Option<(usize, u64)>],
    corpus: CorpusSize,
    args: &BenchArgs,
    progress: &dyn Progress,
) -> anyhow::Result<Result<EmbeddingReport, String>> {
    let k = args.embed_chunks.min(corpus.chunks);
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

/// Copies a corpus file to `root/prefix/rel`.
fn copy_file(f: &SourceFile, root: &Path, prefix: &str) -> anyhow::Result<u64> {
    let dest = if prefix.is_empty() {
        root.join(&f.rel)
    } else {
        root.join(prefix).join(&f.rel)
    };
    if let Some(parent) = dest.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    std::fs::copy(&f.abs, &dest)
        .with_context(|| format!("cannot copy {} to {}", f.abs.display(), dest.display()))
}

/// Lets the scratch engine find the model the user's engine uses (no effect when
/// LORE_MODEL_DIR is set: both engines use it).
fn link_model(model: &Path, dest: &Path) {
    if !model.is_dir() {
        return;
    }
    #[cfg(unix)]
    let _ = std::os::unix::fs::symlink(model, dest);
    #[cfg(not(unix))]
    if std::fs::create_dir_all(dest).is_ok() {
        for f in lore_embed::MODEL_FILES {
            let _ = std::fs::copy(model.join(f), dest.join(f));
        }
    }
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

fn reindex(
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

/// Adds corpus files (further files in walk order, then copies of the taken ones under
/// another folder) until the store has `target` chunks.
fn grow_store(
    bench: &mut Engine,
    all_files: &[SourceFile],
    taken: &[SourceFile],
    root: &Path,
    mut size: CorpusSize,
    target: usize,
    progress: &dyn Progress,
) -> anyhow::Result<(CorpusSize, Option<String>)> {
    let start = size;
    let mut next = taken.len();
    let mut copies = 0;
    let mut rounds = 0;
    while size.chunks < target {
        let per_file = (size.chunks as f64 / size.files.max(1) as f64).max(0.5);
        let want = (((target - size.chunks) as f64 / per_file) * 1.1).ceil() as usize + 1;
        if next < all_files.len() {
            let batch = &all_files[next..(next + want).min(all_files.len())];
            status(&format!(
                "store has {} chunks; adding {} more corpus files",
                size.chunks,
                batch.len()
            ));
            for f in batch {
                size.bytes += copy_file(f, root, "")?;
            }
            next += batch.len();
        } else {
            copies += 1;
            let prefix = format!("lore-bench-copy-{copies}");
            let batch = &taken[..want.min(taken.len())];
            status(&format!(
                "store has {} chunks; adding {} copied files under {prefix}/",
                size.chunks,
                batch.len()
            ));
            for f in batch {
                size.bytes += copy_file(f, root, &prefix)?;
            }
        }
        let before = size.chunks;
        let r = reindex(bench, 0, progress)?;
        let stats = bench.store_info(STORE)?.stats;
        size.files = r.files_seen;
        size.chunks = stats.chunks as usize;
        rounds += 1;
        if size.chunks <= before || rounds > 20 {
            break;
        }
    }
    let grown = (rounds > 0).then(|| {
        format!(
            "grown from {} files / {} chunks to reach --query-chunks {target}: {} more corpus files{}",
            start.files,
            start.chunks,
            next - taken.len(),
            if copies > 0 {
                format!(", plus {copies} round(s) of copied files")
            } else {
                String::new()
            }
        )
    });
    Ok((size, grown))
}

/// Writes a vector snapshot of pseudo-random unit vectors, one per chunk of the bench store,
/// at the store's current generation (the engine then loads it as is).
fn write_synthetic_vectors(bench: &Engine) -> anyhow::Result<()> {
    let store = bench.store_record(STORE)?;
    let mut ids: Vec<i64> = bench.chunk_paths(STORE)?.into_keys().collect();
    ids.sort_unstable();
    let mut rng = XorShift::new(0x05ee_d1ce_b0a7);
    let rows: Vec<(i64, Vec<f32>)> = ids
        .into_iter()
        .map(|id| (id, unit_vector(&mut rng, lore_embed::DIM)))
        .collect();
    let path = bench.data_dir().store_dir(store.id).join("vectors.bin");
    lore_index::VectorSet::write(&path, lore_embed::DIM, store.generation, &rows)
        .with_context(|| format!("cannot write synthetic vectors to {}", path.display()))?;
    Ok(())
}

/// xorshift64: small, deterministic, good enough for synthetic vectors.
struct XorShift(u64);

impl XorShift {
    fn new(seed: u64) -> XorShift {
        XorShift(if seed == 0 {
            0x9e37_79b9_7f4a_7c15
        } else {
            seed
        })
    }
    fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    /// Uniform in [-1, 1).
    fn next_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }
}

fn unit_vector(rng: &mut XorShift, dim: usize) -> Vec<f32> {
    loop {
        let v: Vec<f32> = (0..dim).map(|_| rng.next_f32()).collect();
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 1e-6 {
            return v.into_iter().map(|x| x / norm).collect();
        }
    }
}

/// Linear-interpolated percentile (`p` in 0..=100) of ascending `sorted`; 0 when empty.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    match sorted.len() {
        0 => 0.0,
        1 => sorted[0],
        n => {
            let rank = (p.clamp(0.0, 100.0) / 100.0) * (n - 1) as f64;
            let lo = rank.floor() as usize;
            let hi = rank.ceil() as usize;
            sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo as f64)
        }
    }
}

fn summarize(mut ms: Vec<f64>) -> Latency {
    ms.sort_by(f64::total_cmp);
    Latency {
        samples: ms.len(),
        p50_ms: percentile(&ms, 50.0),
        p95_ms: percentile(&ms, 95.0),
        mean_ms: if ms.is_empty() {
            0.0
        } else {
            ms.iter().sum::<f64>() / ms.len() as f64
        },
        max_ms: ms.last().copied().unwrap_or(0.0),
    }
}

fn per_sec(n: f64, secs: f64) -> f64 {
    if secs > 0.0 { n / secs } else { 0.0 }
}

/// Peak resident set size (VmHWM) of this process, Linux only.
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn loadavg() -> Option<String> {
    let s = std::fs::read_to_string("/proc/loadavg").ok()?;
    Some(s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
}

fn size_str(c: &CorpusSize) -> String {
    format!(
        "{} files, {} chunks, {:.1} MB",
        c.files,
        c.chunks,
        c.bytes as f64 / 1e6
    )
}

fn print_table(r: &BenchReport) {
    let m = &r.machine;
    println!(
        "machine: {} cores ({} rayon threads), {}/{}, load avg start {} end {}",
        m.cores,
        m.rayon_threads,
        m.os,
        m.arch,
        m.loadavg_start.as_deref().unwrap_or("?"),
        m.loadavg_end.as_deref().unwrap_or("?")
    );
    println!(
        "corpus:  {} ({} files walked; taken: {}; {} not indexable)",
        r.corpus.dir,
        r.corpus.walked_files,
        size_str(&r.corpus.taken),
        r.corpus.unreadable_files
    );

    let c = &r.chunking;
    println!("\nchunking [{}] ({})", size_str(&c.corpus), c.note);
    println!(
        "  {:<18} {:>9} {:>11} {:>12} {:>8}",
        "", "secs", "files/s", "chunks/s", "MB/s"
    );
    for (name, x) in [("single thread", &c.single_thread), ("rayon", &c.parallel)] {
        let name = if name == "rayon" {
            format!("rayon ({} thr)", c.parallel_threads)
        } else {
            name.to_string()
        };
        println!(
            "  {:<18} {:>9.2} {:>11.0} {:>12.0} {:>8.1}",
            name, x.secs, x.files_per_s, x.chunks_per_s, x.mb_per_s
        );
    }

    println!();
    match (&r.embedding, &r.embedding_skipped) {
        (Some(e), _) => {
            println!(
                "embedding [{} sampled from {}]",
                e.chunks,
                size_str(&e.corpus)
            );
            println!(
                "  {:.1} chunks/s ({:.2} s); mean {:.0} chars ≈ {:.0} tokens ({}); model load {:.0} ms",
                e.chunks_per_s,
                e.secs,
                e.mean_chars,
                e.mean_tokens_approx,
                e.tokens_note,
                e.model_load_ms
            );
            println!(
                "  single query embed: {:.1} ms median of {}",
                e.query_embed_ms_median, e.query_embed_samples
            );
        }
        (None, why) => println!(
            "embedding: skipped ({})",
            why.as_deref().unwrap_or("no model")
        ),
    }

    let i = &r.indexing;
    println!("\nindexing [{}]\n  {}", size_str(&i.corpus), i.note);
    println!(
        "  {:<28} {:>10} {:>7} {:>7} {:>8} {:>10} {:>8}",
        "", "wall ms", "seen", "added", "changed", "unchanged", "chunks"
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
        println!(
            "  {:<28} {:>10.0} {:>7} {:>7} {:>8} {:>10} {:>8}",
            name, x.wall_ms, x.files_seen, x.added, x.changed, x.unchanged, x.chunks_written
        );
    }
    match &i.estimate_with_embeddings {
        Some(e) => println!(
            "  ESTIMATE full index with embeddings: {:.0} s = {:.1} s index + {:.0} s embedding ({})",
            e.total_s, e.index_s, e.embed_s, e.note
        ),
        None => println!("  full index with embeddings: not estimated (no embedding figure)"),
    }

    let q = &r.queries;
    println!(
        "\nqueries [{}], {} queries x {} timed runs per mode\n  {}\n  {}",
        size_str(&q.corpus),
        q.queries,
        q.repeats,
        q.vectors,
        q.note
    );
    if let Some(g) = &q.grown {
        println!("  {g}");
    }
    println!(
        "  {:<8} {:>8} {:>9} {:>9} {:>9} {:>9}",
        "mode", "samples", "p50 ms", "p95 ms", "mean ms", "max ms"
    );
    for m in &q.modes {
        match (&m.latency, &m.skipped) {
            (Some(l), _) => println!(
                "  {:<8} {:>8} {:>9.2} {:>9.2} {:>9.2} {:>9.2}",
                m.mode, l.samples, l.p50_ms, l.p95_ms, l.mean_ms, l.max_ms
            ),
            (None, why) => println!("  {:<8} skipped: {}", m.mode, why.as_deref().unwrap_or("")),
        }
    }

    println!(
        "\npeak RSS (VmHWM): {}",
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
        println!("  after each phase: {}", phases.join(", "));
    }
    for n in &r.notes {
        println!("note: {n}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_interpolate() {
        let v = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(percentile(&v, 50.0), 3.0);
        assert_eq!(percentile(&v, 0.0), 1.0);
        assert_eq!(percentile(&v, 100.0), 5.0);
        assert!((percentile(&v, 95.0) - 4.8).abs() < 1e-12);
        assert_eq!(percentile(&[1.0, 2.0], 50.0), 1.5);
        assert_eq!(percentile(&[7.0], 95.0), 7.0);
        assert_eq!(percentile(&[], 50.0), 0.0);
        let s = summarize(vec![3.0, 1.0, 2.0]);
        assert_eq!(
            (s.samples, s.p50_ms, s.mean_ms, s.max_ms),
            (3, 2.0, 2.0, 3.0)
        );
    }

    #[test]
    fn synthetic_vectors_are_unit_and_deterministic() {
        let mut a = XorShift::new(42);
        let mut b = XorShift::new(42);
        for _ in 0..100 {
            let v = unit_vector(&mut a, lore_embed::DIM);
            assert_eq!(v.len(), lore_embed::DIM);
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            assert!((norm - 1.0).abs() < 1e-5, "{norm}");
            assert_eq!(v, unit_vector(&mut b, lore_embed::DIM));
        }
        let mut r = XorShift::new(0);
        for _ in 0..1000 {
            let x = r.next_f32();
            assert!((-1.0..1.0).contains(&x));
        }
    }
}
