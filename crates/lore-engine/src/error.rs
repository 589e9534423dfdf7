use lore_index::IndexError;

/// How an error should end a command (exit codes per design: 1 input, 2 not found, 3 internal).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitKind {
    Input,
    NotFound,
    Internal,
}

impl ExitKind {
    pub fn code(self) -> i32 {
        match self {
            ExitKind::Input => 1,
            ExitKind::NotFound => 2,
            ExitKind::Internal => 3,
        }
    }
}

/// A request parameter an error is about. The engine names it in snake_case, which MCP and
/// REST accept; the CLI says `--max-file-size` instead (each adapter in its own words).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Param {
    Limit,
    PerFile,
    Branch,
    MaxFileSize,
    MaxPages,
    MaxDepth,
    Threshold,
}

impl Param {
    pub fn name(self) -> &'static str {
        match self {
            Param::Limit => "limit",
            Param::PerFile => "per_file",
            Param::Branch => "branch",
            Param::MaxFileSize => "max_file_size",
            Param::MaxPages => "max_pages",
            Param::MaxDepth => "max_depth",
            Param::Threshold => "threshold",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("{0}")]
    Input(String),
    /// A parameter out of range or not applicable: "`{name}` {problem}".
    #[error("`{}` {problem}", param.name())]
    Param { param: Param, problem: String },
    #[error("{0}")]
    NotFound(String),
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error(transparent)]
    Embed(#[from] lore_embed::EmbedError),
    #[error(transparent)]
    Source(#[from] lore_source::SourceError),
    /// Boxed: LLM errors are large, and every `Result` of the engine carries this enum.
    #[error(transparent)]
    Brain(Box<lore_brain::BrainError>),
    #[error("{0}: {1}")]
    Io(String, #[source] std::io::Error),
    #[error(
        "cancelled; files committed before the cancel stay indexed, and the next index run continues from there"
    )]
    Cancelled,
}

impl From<lore_brain::BrainError> for EngineError {
    fn from(e: lore_brain::BrainError) -> EngineError {
        EngineError::Brain(Box::new(e))
    }
}

impl EngineError {
    pub(crate) fn param(param: Param, problem: impl Into<String>) -> EngineError {
        EngineError::Param {
            param,
            problem: problem.into(),
        }
    }

    pub fn io(what: impl Into<String>, e: std::io::Error) -> EngineError {
        EngineError::Io(what.into(), e)
    }

    /// Another process writes to this data dir: who, in words.
    pub fn locked_by(&self) -> Option<&str> {
        match self {
            EngineError::Index(IndexError::Locked(who)) => Some(who),
            _ => None,
        }
    }

    pub fn kind(&self) -> ExitKind {
        match self {
            EngineError::Input(_) | EngineError::Param { .. } => ExitKind::Input,
            EngineError::NotFound(_) => ExitKind::NotFound,
            EngineError::Index(IndexError::StoreNotFound(_)) => ExitKind::NotFound,
            EngineError::Index(IndexError::StoreExists(_) | IndexError::Locked(_)) => {
                ExitKind::Input
            }
            EngineError::Source(
                lore_source::SourceError::NotAFolder(_) | lore_source::SourceError::BadGlob(..),
            ) => ExitKind::Input,
            EngineError::Source(
                lore_source::SourceError::Git { .. }
                | lore_source::SourceError::Web { .. }
                | lore_source::SourceError::Refused { .. },
            ) => ExitKind::Input,
            EngineError::Embed(
                lore_embed::EmbedError::ModelDirMissing { .. }
                | lore_embed::EmbedError::ModelFileMissing { .. }
                | lore_embed::EmbedError::EndpointConfig(_),
            ) => ExitKind::Input,
            EngineError::Brain(e) if matches!(**e, lore_brain::BrainError::Missing(_)) => {
                ExitKind::NotFound
            }
            EngineError::Brain(e) if e.is_input() => ExitKind::Input,
            _ => ExitKind::Internal,
        }
    }
}
