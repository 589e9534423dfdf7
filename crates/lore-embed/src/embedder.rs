use std::path::Path;

use candle_core::{Device, Tensor};
use tokenizers::{Tokenizer, TruncationParams};

use crate::bert::{Bert, Config, mean_pool_normalized};

use crate::error::EmbedError;
use crate::{CONFIG_FILE, DIM, MAX_TOKENS, MODEL_FILES, TOKENIZER_FILE, WEIGHTS_FILE};

/// Most texts per forward pass.
pub const DEFAULT_BATCH_SIZE: usize = 64;
/// Most padded tokens (texts × longest text) per forward pass: 2 full 256-token chunks.
/// On 2 cores, 256-token chunks embed at 30 chunks/s two to a batch, 28 four, 26 eight, 22
/// thirty-two (the buffers of a small batch stay in cache); short texts pack up to the
/// text limit and are not sensitive to it (see `examples/throughput.rs`).
pub const DEFAULT_BATCH_TOKENS: usize = 2 * MAX_TOKENS;

/// The sentence embedder: all-MiniLM-L6-v2 on the CPU ([`Embedder::load`]), or an
/// OpenAI-compatible server ([`Embedder::endpoint`]). `Send + Sync`: share it behind an `Arc`.
pub struct Embedder {
    backend: Backend,
    /// The vectors of recent queries: an agent repeats itself, and a query costs a forward
    /// pass (a few milliseconds to tens of them) or a request that a lookup does not.
    queries: std::sync::Mutex<QueryCache>,
}

enum Backend {
    /// Boxed: the model is large, and there is one embedder per process.
    Local(Box<Local>),
    Endpoint(crate::endpoint::Endpoint),
}

/// all-MiniLM-L6-v2: BERT on CPU (f32), mean pooling over the attention mask,
/// L2-normalised, input truncated to 256 tokens.
struct Local {
    model: Bert,
    tokenizer: Tokenizer,
    device: Device,
    batch_size: usize,
    batch_tokens: usize,
    query_path: QueryPath,
}

/// Recent query vectors, by query text; the oldest go first when it is full.
#[derive(Default)]
struct QueryCache {
    vectors: std::collections::HashMap<String, Vec<f32>>,
    order: std::collections::VecDeque<String>,
}

/// Queries whose vectors are kept.
const QUERY_CACHE: usize = 256;

impl QueryCache {
    fn get(&self, text: &str) -> Option<Vec<f32>> {
        self.vectors.get(text).cloned()
    }

    fn put(&mut self, text: &str, v: &[f32]) {
        if self.vectors.contains_key(text) {
            return;
        }
        if self.order.len() >= QUERY_CACHE
            && let Some(old) = self.order.pop_front()
        {
            self.vectors.remove(&old);
        }
        self.order.push_back(text.to_string());
        self.vectors.insert(text.to_string(), v.to_vec());
    }
}

// Compile-time check that the embedder can be shared across threads.
const _: fn() = || {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Embedder>();
};

impl Embedder {
    /// Loads `config.json`, `tokenizer.json` and `model.safetensors` from `model_dir`.
    pub fn load(model_dir: &Path) -> Result<Embedder, EmbedError> {
        Ok(Embedder::with(Backend::Local(Box::new(Local::load(
            model_dir,
        )?))))
    }

    /// Embeds through an OpenAI-compatible server (see [`crate::EndpointConfig`]).
    pub fn endpoint(cfg: crate::EndpointConfig) -> Embedder {
        Embedder::with(Backend::Endpoint(crate::endpoint::Endpoint::new(cfg)))
    }

    fn with(backend: Backend) -> Embedder {
        Embedder {
            backend,
            queries: Default::default(),
        }
    }

    /// What makes the vectors: `all-MiniLM-L6-v2`, or the endpoint's model name.
    pub fn model_name(&self) -> &str {
        match &self.backend {
            Backend::Local(_) => crate::MODEL_NAME,
            Backend::Endpoint(e) => e.model(),
        }
    }

    /// The vectors' dimension (an endpoint is asked once when nothing was embedded yet).
    pub fn dim(&self) -> Result<usize, EmbedError> {
        match &self.backend {
            Backend::Local(_) => Ok(crate::DIM),
            Backend::Endpoint(e) => e.dim(),
        }
    }

    /// Sets the most texts per forward pass (minimum 1; the local model only).
    pub fn with_batch_size(mut self, batch_size: usize) -> Embedder {
        if let Backend::Local(l) = &mut self.backend {
            l.batch_size = batch_size.max(1);
        }
        self
    }

    /// Sets the most padded tokens (texts × longest text) per forward pass (the local model
    /// only). A single text always forms a batch, whatever its length.
    pub fn with_batch_tokens(mut self, batch_tokens: usize) -> Embedder {
        if let Backend::Local(l) = &mut self.backend {
            l.batch_tokens = batch_tokens.max(1);
        }
        self
    }

    /// Most texts per forward pass (per request, for an endpoint).
    pub fn batch_size(&self) -> usize {
        match &self.backend {
            Backend::Local(l) => l.batch_size,
            Backend::Endpoint(_) => 64,
        }
    }

    /// Most padded tokens per forward pass (the local model).
    pub fn batch_tokens(&self) -> usize {
        match &self.backend {
            Backend::Local(l) => l.batch_tokens,
            Backend::Endpoint(_) => 0,
        }
    }

    /// Embeds `texts`, returning one L2-normalised vector per text, in input order. Empty
    /// and whitespace-only texts are fine (the local model embeds them as `[CLS] [SEP]`).
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        match &self.backend {
            Backend::Local(l) => l.embed(texts),
            Backend::Endpoint(e) => e.embed(texts),
        }
    }

    /// Forgets the cached query vectors (a benchmark timing the embedding of each query).
    pub fn forget_queries(&self) {
        if let Ok(mut cache) = self.queries.lock() {
            cache.vectors.clear();
            cache.order.clear();
        }
    }

    /// Embeds a single search query; the last `QUERY_CACHE` queries are answered from memory.
    pub fn embed_query(&self, text: &str) -> Result<Vec<f32>, EmbedError> {
        if let Some(v) = self.queries.lock().ok().and_then(|c| c.get(text)) {
            return Ok(v);
        }
        let v = self.embed(&[text])?.pop().unwrap_or_default();
        if let Ok(mut cache) = self.queries.lock() {
            cache.put(text, &v);
        }
        Ok(v)
    }
}

impl Local {
    fn load(model_dir: &Path) -> Result<Local, EmbedError> {
        if !model_dir.is_dir() {
            return Err(EmbedError::ModelDirMissing {
                dir: model_dir.to_path_buf(),
            });
        }
        for file in MODEL_FILES {
            if !model_dir.join(file).is_file() {
                return Err(EmbedError::ModelFileMissing {
                    dir: model_dir.to_path_buf(),
                    file,
                });
            }
        }

        let config_path = model_dir.join(CONFIG_FILE);
        let config_text = std::fs::read_to_string(&config_path)
            .map_err(|e| EmbedError::io("cannot read", &config_path, e))?;
        let config: Config =
            serde_json::from_str(&config_text).map_err(|e| EmbedError::Config {
                path: config_path.clone(),
                message: e.to_string(),
            })?;
        let invalid = if config.hidden_size != DIM {
            Err(format!(
                "hidden_size is {}, expected {DIM}",
                config.hidden_size
            ))
        } else {
            config.validate()
        };
        if let Err(message) = invalid {
            return Err(EmbedError::Config {
                path: config_path,
                message,
            });
        }

        let tokenizer_path = model_dir.join(TOKENIZER_FILE);
        let mut tokenizer =
            Tokenizer::from_file(&tokenizer_path).map_err(|e| EmbedError::Tokenizer {
                path: tokenizer_path.clone(),
                message: e.to_string(),
            })?;
        // The file ships with max_length 128 and fixed padding to 128; sentence-transformers
        // uses 256 and we pad per batch ourselves.
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: MAX_TOKENS,
                ..Default::default()
            }))
            .map_err(|e| EmbedError::Tokenizer {
                path: tokenizer_path.clone(),
                message: e.to_string(),
            })?;
        tokenizer.with_padding(None);

        let device = Device::Cpu;
        let weights_path = model_dir.join(WEIGHTS_FILE);
        let weights = std::fs::read(&weights_path)
            .map_err(|e| EmbedError::io("cannot read", &weights_path, e))?;
        let model = Bert::load(&weights, &config).map_err(|source| EmbedError::Weights {
            path: weights_path.clone(),
            source,
        })?;

        Ok(Local {
            model,
            tokenizer,
            device,
            batch_size: DEFAULT_BATCH_SIZE,
            batch_tokens: DEFAULT_BATCH_TOKENS,
            query_path: QueryPath::default(),
        })
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let encodings = self
            .tokenizer
            .encode_batch_fast(texts.to_vec(), true)
            .map_err(|e| EmbedError::Tokenize(e.to_string()))?;

        // Sort by token count so each batch pads to a similar length.
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| encodings[i].len());
        let lengths: Vec<usize> = order.iter().map(|&i| encodings[i].len()).collect();

        let mut out: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        let mut start = 0;
        for end in batch_ends(&lengths, self.batch_size, self.batch_tokens) {
            let batch = &order[start..end];
            let rows: Vec<&[u32]> = batch.iter().map(|&i| encodings[i].get_ids()).collect();
            let vectors = self.embed_token_batch(&rows)?;
            for (&i, v) in batch.iter().zip(vectors) {
                out[i] = v;
            }
            start = end;
        }
        Ok(out)
    }

    /// One forward pass over already-tokenised rows (each at most MAX_TOKENS ids, with
    /// [CLS]/[SEP]), padded to the longest row.
    fn embed_token_batch(&self, rows: &[&[u32]]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let n = rows.len();
        let seq_len = rows.iter().map(|r| r.len()).max().unwrap_or(0).max(1);
        let mut ids = vec![0u32; n * seq_len];
        let mut mask = vec![0u32; n * seq_len];
        for (row, tokens) in rows.iter().enumerate() {
            let start = row * seq_len;
            ids[start..start + tokens.len()].copy_from_slice(tokens);
            mask[start..start + tokens.len()].fill(1);
        }
        let dev = &self.device;
        let input_ids = Tensor::from_vec(ids, (n, seq_len), dev)?;
        let attention_mask = Tensor::from_vec(mask, (n, seq_len), dev)?;

        let forward = || -> candle_core::Result<Tensor> {
            let hidden = self.model.forward(&input_ids, &attention_mask)?;
            mean_pool_normalized(&hidden, &attention_mask)
        };
        // A batch runs in candle's CPU thread pool (one worker per core). A query's few
        // tokens run where they run faster on this CPU (`QueryPath`).
        let tokens = n * seq_len;
        let serial = serial_pool().filter(|_| tokens <= SERIAL_TOKENS);
        let pooled = match serial {
            Some(pool) => {
                let one_thread = self.query_path.one_thread();
                let t = std::time::Instant::now();
                let pooled = if one_thread {
                    pool.install(forward)?
                } else {
                    dev.with_context(forward)?
                };
                self.query_path.record(one_thread, t.elapsed(), tokens);
                pooled
            }
            None => dev.with_context(forward)?,
        };
        Ok(pooled.to_vec2::<f32>()?)
    }
}

/// Fixes the thread count candle's matrix products use, once, for the whole process.
///
/// Unless `RAYON_NUM_THREADS` is set, candle works the count out again for every matrix
/// product, and on a CPU whose cores are all alike that means reading `/proc/cpuinfo`:
/// about 40 reads per forward pass, 0.6 ms of a 4 ms query embedding on this 2-core
/// machine. This sets the variable to the count candle would pick (one per physical core),
/// which rayon's global pool then also uses.
///
/// # Safety
/// Changes the environment: call it first thing in `main`, while the process has a single
/// thread, as `std::env::set_var` requires.
pub unsafe fn settle_threads() {
    if std::env::var_os("RAYON_NUM_THREADS").is_none() {
        let n = candle_core::utils::get_num_threads();
        // SAFETY: the caller guarantees that no other thread exists yet.
        unsafe { std::env::set_var("RAYON_NUM_THREADS", n.to_string()) };
    }
}

/// Padded tokens up to which a forward pass is a query's, run where `QueryPath` says.
const SERIAL_TOKENS: usize = 64;

/// Where a query's forward pass runs: on one thread, or split over candle's pool. Which is
/// faster depends on the CPU: matrices this small split badly where one core is fast (a
/// 12-token query on a 2-core Xeon with AVX-512: 3.3 ms on one thread, 4.8 ms on two), and
/// well where it is not (a 2-core AMD EPYC whose AVX-512 is 256 bits wide inside: 8.7 ms on
/// one, 4.7 ms on two). So the first queries alternate, and from then on the path with the
/// lower median time per token is kept.
#[derive(Default)]
struct QueryPath {
    /// Nanoseconds per token of the trial passes: one thread, then the pool.
    trials: std::sync::Mutex<[Vec<f64>; 2]>,
    /// Decided: `true` for one thread.
    chosen: std::sync::OnceLock<bool>,
}

/// Timed passes of each path before a query path is chosen (the first of each also pays
/// for warming up, so a median of five).
const QUERY_TRIALS: usize = 5;

impl QueryPath {
    fn one_thread(&self) -> bool {
        if let Some(&c) = self.chosen.get() {
            return c;
        }
        // The path with fewer trials so far, one thread first.
        self.trials
            .lock()
            .map(|t| t[0].len() <= t[1].len())
            .unwrap_or(true)
    }

    fn record(&self, one_thread: bool, took: std::time::Duration, tokens: usize) {
        if self.chosen.get().is_some() {
            return;
        }
        let Ok(mut t) = self.trials.lock() else {
            return;
        };
        t[usize::from(!one_thread)].push(took.as_nanos() as f64 / tokens.max(1) as f64);
        if t.iter().all(|v| v.len() >= QUERY_TRIALS) {
            let [one, pool] = t.each_mut().map(|v| {
                v.sort_by(f64::total_cmp);
                v[v.len() / 2]
            });
            let _ = self.chosen.set(one <= pool);
            tracing::debug!(
                one_thread_ns_per_token = one,
                pool_ns_per_token = pool,
                "query path chosen"
            );
        }
    }
}

/// A one-thread pool for small forward passes; `None` if the OS refused a thread (the
/// pass then runs in candle's pool).
fn serial_pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .thread_name(|_| "lore-embed-query".into())
            .build()
            .ok()
    })
    .as_ref()
}

/// Splits ascending `lengths` into consecutive batches of at most `max_texts` texts and
/// `max_tokens` padded tokens (count × longest); returns each batch's exclusive end index.
fn batch_ends(lengths: &[usize], max_texts: usize, max_tokens: usize) -> Vec<usize> {
    let mut ends = Vec::new();
    let mut count = 0;
    for (i, &len) in lengths.iter().enumerate() {
        if count > 0 && (count + 1 > max_texts || (count + 1) * len > max_tokens) {
            ends.push(i);
            count = 0;
        }
        count += 1;
    }
    if count > 0 {
        ends.push(lengths.len());
    }
    ends
}

#[cfg(test)]
mod query_path_tests {
    use super::{QUERY_TRIALS, QueryPath};
    use std::time::Duration;

    /// Trials alternate (one thread first), then the faster path per token stays.
    fn settle(one_ns: u64, pool_ns: u64) -> bool {
        let p = QueryPath::default();
        for i in 0..2 * QUERY_TRIALS {
            let one = p.one_thread();
            assert_eq!(one, i % 2 == 0, "trial {i}");
            // A first pass pays for warming up.
            let warm = if i < 2 { 10 } else { 1 };
            let ns = if one { one_ns } else { pool_ns } * warm;
            p.record(one, Duration::from_nanos(ns * 12), 12);
        }
        let chosen = p.one_thread();
        p.record(!chosen, Duration::from_nanos(1), 12);
        assert_eq!(p.one_thread(), chosen, "chosen once");
        chosen
    }

    #[test]
    fn the_faster_query_path_is_kept() {
        assert!(settle(275_000, 400_000), "a fast core: one thread");
        assert!(!settle(725_000, 390_000), "a slow core: the pool");
    }
}

#[cfg(test)]
mod cache_tests {
    use super::QueryCache;

    #[test]
    fn the_query_cache_keeps_the_newest() {
        let mut c = QueryCache::default();
        for i in 0..super::QUERY_CACHE + 10 {
            c.put(&format!("q{i}"), &[i as f32]);
        }
        assert_eq!(c.vectors.len(), super::QUERY_CACHE);
        assert!(c.get("q0").is_none());
        assert_eq!(
            c.get(&format!("q{}", super::QUERY_CACHE + 9)),
            Some(vec![(super::QUERY_CACHE + 9) as f32])
        );
    }
}

#[cfg(test)]
mod tests {
    use super::batch_ends;

    #[test]
    fn batches_respect_text_and_token_limits() {
        assert!(batch_ends(&[], 8, 2048).is_empty());
        // Short texts pack up to the text limit.
        assert_eq!(batch_ends(&[10; 100], 64, 2048), vec![64, 100]);
        // Full-length texts pack up to the token budget.
        assert_eq!(batch_ends(&[256; 20], 64, 2048), vec![8, 16, 20]);
        // Mixed: the padded size counts the longest (last, as lengths ascend).
        assert_eq!(batch_ends(&[2, 2, 100, 300, 300], 64, 400), vec![3, 4, 5]);
        // One text longer than the budget still forms a batch.
        assert_eq!(batch_ends(&[500], 64, 256), vec![1]);
    }
}
