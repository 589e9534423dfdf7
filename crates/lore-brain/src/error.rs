use lore_llm::LlmError;

#[derive(Debug, thiserror::Error)]
pub enum BrainError {
    /// Bad arguments: what was wrong and what to send instead. Nothing was written.
    #[error("{0}")]
    Input(String),
    /// A path that would leave its folder (`..`, absolute, a symlink out). Nothing was
    /// written.
    #[error("{0}")]
    Escape(String),
    /// A brain file asked for by name that is not there.
    #[error("{0}")]
    Missing(String),
    /// A file or format that cannot be read as text.
    #[error("{0}")]
    Unreadable(String),
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    /// The LLM is not configured (or configured wrongly), so ingestion cannot start.
    #[error("{0}")]
    LlmSetup(#[source] LlmError),
    /// The LLM failed on one part of the text; nothing was written.
    #[error(
        "the LLM failed on part {part} of {parts} of {source_name}: {error}; nothing was written"
    )]
    Llm {
        part: usize,
        parts: usize,
        source_name: String,
        #[source]
        error: LlmError,
    },
}

impl BrainError {
    pub(crate) fn io(what: impl Into<String>, source: std::io::Error) -> BrainError {
        BrainError::Io {
            what: what.into(),
            source,
        }
    }

    /// The caller sent something wrong (as opposed to the machine, a file or the LLM
    /// failing): exit code 1, HTTP 400.
    pub fn is_input(&self) -> bool {
        match self {
            BrainError::Input(_)
            | BrainError::Missing(_)
            | BrainError::Escape(_)
            | BrainError::Unreadable(_)
            | BrainError::LlmSetup(_) => true,
            BrainError::Io { source, .. } => source.kind() == std::io::ErrorKind::NotFound,
            BrainError::Llm { .. } => false,
        }
    }
}
