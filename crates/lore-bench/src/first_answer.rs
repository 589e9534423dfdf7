//! Phase 3: how soon a store being added answers a keyword search from a second engine on
//! the same data dir (a CLI search beside `lore store add`, an agent beside `lore serve`),
//! how a hybrid search does while it is being embedded, and how soon it is fully embedded.
//! Embedding the whole corpus can take an hour; after `budget` it is stopped (as a cancel
//! would) and the rest is estimated from the rate it ran at.

use crate::corpus::Scratch;
use crate::report::{CorpusSize, FirstAnswerReport, MidEmbedding};
use crate::status;
use anyhow::Context;
use lore_core::StoreKind;
use lore_engine::{AddStore, Engine, EngineError, Mode, Phase, Progress, SearchRequest};
use lore_source::SourceFile;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The scratch data dir of this phase (removed after it).
const DATA: &str = "first-answer";
const STORE: &str = "first";
const POLL: Duration = Duration::from_millis(25);

pub(crate) fn measure(
    engine: &Engine,
    scratch: &Scratch,
    taken: &[SourceFile],
    per_file: &[Option<(usize, u64)>],
    budget: Duration,
    progress: &dyn Progress,
) -> anyhow::Result<FirstAnswerReport> {
    let embeddings = engine.embedder(false, progress).is_ok();
    let query = probe_word(engine, taken, per_file)?;
    status(&format!(
        "first answer: adding the store{} while a second engine searches {query:?}",
        if embeddings {
            " with embeddings"
        } else {
            " keyword-only (no model)"
        }
    ));
    let mut writer = scratch.open(engine, DATA, embeddings)?;
    let reader = scratch.open(engine, DATA, embeddings)?;
    let req = AddStore {
        name: STORE.into(),
        source: scratch.corpus().to_string_lossy().into_owned(),
        kind: Some(StoreKind::Folder),
        lexical_only: !embeddings,
        ..Default::default()
    };
    let stop = AtomicBool::new(false);
    let watch = Watch {
        inner: progress,
        stop: &stop,
        embedding_since: Mutex::new(None),
        embedded: AtomicU64::new(0),
    };
    let started = Instant::now();
    let ms = |t: Instant| t.duration_since(started).as_secs_f64() * 1000.0;
    let (added, ended, first, mid) = std::thread::scope(|s| {
        let add = s.spawn(|| {
            let r = writer.add_store(&req, &watch);
            (r, Instant::now())
        });
        let search = |mode: Mode| {
            reader.search(&SearchRequest {
                stores: vec![STORE.into()],
                mode,
                freshness: mode != Mode::Fts,
                ..SearchRequest::new(&query)
            })
        };
        let mut first = None;
        loop {
            let done = add.is_finished();
            if let Ok(r) = search(Mode::Fts)
                && !r.results.is_empty()
            {
                first = Some(Instant::now());
                break;
            }
            if done {
                break;
            }
            std::thread::sleep(POLL);
        }
        let mid = (embeddings && first.is_some() && !add.is_finished())
            .then(|| {
                let t = Instant::now();
                search(Mode::Hybrid).ok().map(|r| MidEmbedding {
                    results: r.results.len(),
                    embedded: r.stores.first().map_or(0.0, |f| f.embedded),
                    ms: t.elapsed().as_secs_f64() * 1000.0,
                })
            })
            .flatten();
        let deadline = first.unwrap_or(started) + budget;
        while !add.is_finished() {
            if Instant::now() >= deadline {
                stop.store(true, Ordering::Relaxed);
            }
            std::thread::sleep(POLL * 4);
        }
        let (added, ended) = add.join().unwrap_or_else(|_| {
            (
                Err(EngineError::Input("the adding thread panicked".into())),
                Instant::now(),
            )
        });
        (added, ended, first, mid)
    });
    let stopped = match added {
        Ok(_) => false,
        Err(EngineError::Cancelled) => true,
        Err(e) => return Err(e).context("adding the first-answer store"),
    };
    let stats = reader.store_info(STORE)?.stats;
    let first = first.context(
        "the store never answered a keyword search for a word of its first file; \
         the bench corpus may be unusual",
    )?;
    let since = watch
        .embedding_since
        .lock()
        .map(|t| *t)
        .unwrap_or(None)
        .unwrap_or(ended);
    let rate = (watch.embedded.load(Ordering::Relaxed) as f64
        / ended.duration_since(since).as_secs_f64().max(1e-3))
    .max(f64::MIN_POSITIVE);
    let left = stats.chunks.saturating_sub(stats.embedded) as f64;
    drop(writer);
    drop(reader);
    scratch.remove(DATA);
    Ok(FirstAnswerReport {
        corpus: CorpusSize {
            files: stats.files as usize,
            chunks: stats.chunks as usize,
            bytes: taken.iter().map(|f| f.size).sum(),
        },
        note: "store add of the copied corpus in one thread; a second engine on the same data \
               dir searches by keyword every 25 ms until it answers",
        embeddings,
        query,
        first_fts_answer_ms: ms(first),
        mid_embedding: mid,
        embedded_chunks: stats.embedded,
        embedding_chunks_per_s: embeddings.then_some(rate),
        fully_embedded_ms: (embeddings && !stopped).then(|| ms(ended)),
        stopped_after_ms: stopped.then(|| ms(ended)),
        fully_embedded_estimate_s: (embeddings && stopped)
            .then(|| ended.duration_since(started).as_secs_f64() + left / rate),
    })
}

/// A word of the first file with chunks (first identifier of four or more characters), so
/// that any corpus has an answer.
fn probe_word(
    engine: &Engine,
    taken: &[SourceFile],
    per_file: &[Option<(usize, u64)>],
) -> anyhow::Result<String> {
    for (f, c) in taken.iter().zip(per_file) {
        if !c.is_some_and(|c| c.0 > 0) {
            continue;
        }
        let Ok(text) = lore_source::read_text(&f.abs, engine.config().max_file_bytes) else {
            continue;
        };
        let word = text
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .find(|w| w.len() >= 4 && w.starts_with(|c: char| c.is_ascii_alphabetic()));
        if let Some(w) = word {
            return Ok(w.to_string());
        }
    }
    anyhow::bail!("no file of the corpus has a word to search for")
}

/// Passes progress on, counts what is embedded and when embedding began, and cancels the
/// add once `stop` is set.
struct Watch<'a> {
    inner: &'a dyn Progress,
    stop: &'a AtomicBool,
    embedding_since: Mutex<Option<Instant>>,
    embedded: AtomicU64,
}

impl Progress for Watch<'_> {
    fn start(&self, phase: Phase, total: u64) {
        if phase == Phase::Embeddings
            && let Ok(mut since) = self.embedding_since.lock()
        {
            since.get_or_insert_with(Instant::now);
        }
        self.inner.start(phase, total);
    }
    fn advance(&self, phase: Phase, n: u64) {
        if phase == Phase::Embeddings {
            self.embedded.fetch_add(n, Ordering::Relaxed);
        }
        self.inner.advance(phase, n);
    }
    fn finish(&self, phase: Phase) {
        self.inner.finish(phase);
    }
    fn message(&self, msg: &str) {
        self.inner.message(msg);
    }
    fn cancelled(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.inner.cancelled()
    }
}
