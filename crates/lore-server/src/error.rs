//! The error of every operation, and how it reads to a REST client.

use lore_engine::{EngineError, ExitKind};

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// Bad arguments: what was wrong and what to send instead.
    #[error("{0}")]
    BadRequest(String),
    /// Allowed to nobody through this server (a file outside `--allow-path`, a private
    /// address): what was refused and what the operator can change.
    #[error("{0}")]
    Forbidden(String),
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// A judge run that is not there or cannot be read.
    #[error(transparent)]
    Run(#[from] lore_eval::compare::CompareError),
    #[error("{0}")]
    Internal(String),
}

/// How an error reads to a REST client: a status code and a kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Failure {
    BadRequest,
    Forbidden,
    NotFound,
    Conflict,
    /// The catalog's database cannot be reached right now (503; a retry may succeed).
    Unavailable,
    Internal,
}

impl AppError {
    pub(crate) fn failure(&self) -> Failure {
        use lore_index::IndexError;
        match self {
            AppError::BadRequest(_) => Failure::BadRequest,
            AppError::Forbidden(_) => Failure::Forbidden,
            AppError::Internal(_) => Failure::Internal,
            AppError::Run(e) => match e.exit_kind() {
                ExitKind::Input => Failure::BadRequest,
                ExitKind::NotFound => Failure::NotFound,
                ExitKind::Internal => Failure::Internal,
            },
            AppError::Engine(EngineError::Index(e)) if e.is_unreachable() => Failure::Unavailable,
            // A source outside what this server may read (re-checked on every run).
            AppError::Engine(EngineError::Source(lore_source::SourceError::Refused { .. })) => {
                Failure::Forbidden
            }
            // A store that already exists; a data dir written by another process.
            AppError::Engine(EngineError::Index(
                IndexError::StoreExists(_) | IndexError::Locked(_),
            )) => Failure::Conflict,
            AppError::Engine(e) => match e.kind() {
                ExitKind::Input => Failure::BadRequest,
                ExitKind::NotFound => Failure::NotFound,
                ExitKind::Internal => Failure::Internal,
            },
        }
    }
}
