//! What MCP tools and REST routes do, written once: each operation parses its arguments,
//! calls `Engine` (readers from the pool, writes through the writer) and returns a value
//! to serialise, or an `AppError` that each adapter turns into its own kind of error.

use crate::params::{self, JsonObject, SourcePolicy};
use crate::pool::Pool;
use crate::writer::{Cmd, Writer};
use lore_core::DataDir;
use lore_engine::{
    EngineError, ExitKind, JobRecord, JobSpec, SearchResponse, StoreRecord, StoreSummary,
    UnitContext,
};
use serde::Serialize;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::oneshot;

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// Bad arguments: what was wrong and what to send instead.
    #[error("{0}")]
    BadRequest(String),
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error("{0}")]
    Internal(String),
}

/// How an error reads to a REST client: a status code and a kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Failure {
    BadRequest,
    NotFound,
    Conflict,
    Internal,
}

impl AppError {
    pub(crate) fn failure(&self) -> Failure {
        use lore_index::IndexError;
        match self {
            AppError::BadRequest(_) => Failure::BadRequest,
            AppError::Internal(_) => Failure::Internal,
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

/// A store with its counts and how fresh its index is.
#[derive(Serialize)]
pub(crate) struct StoreStatus {
    #[serde(flatten)]
    pub summary: StoreSummary,
    pub freshness: lore_engine::Freshness,
}

pub(crate) struct App {
    pub(crate) pool: Arc<Pool>,
    pub(crate) writer: Writer,
    data: DataDir,
    /// Relative folder sources resolve against this (stdio); `None` requires absolute paths.
    pub(crate) local_base: Option<PathBuf>,
    /// The writer holds the lock for life (serve); otherwise each write takes it (stdio).
    pub(crate) holds_lock: bool,
}

impl App {
    pub fn new(
        pool: Arc<Pool>,
        writer: Writer,
        data: DataDir,
        local_base: Option<PathBuf>,
        holds_lock: bool,
    ) -> App {
        App {
            pool,
            writer,
            data,
            local_base,
            holds_lock,
        }
    }

    pub fn shutdown(&self, wait: Duration) {
        self.writer.stop(wait);
    }

    pub async fn search(&self, args: &JsonObject) -> Result<SearchResponse, AppError> {
        let req = params::search_request(args).map_err(AppError::BadRequest)?;
        self.pool.run(move |e| e.search(&req)).await
    }

    pub async fn graph(&self, args: &JsonObject) -> Result<lore_engine::GraphAnswer, AppError> {
        let q = params::graph_query(args).map_err(AppError::BadRequest)?;
        self.pool.run(move |e| e.graph(&q)).await
    }

    pub async fn context(&self, id: &str) -> Result<UnitContext, AppError> {
        let id = id.to_string();
        self.pool.run(move |e| e.context(&id)).await
    }

    pub async fn stores(&self) -> Result<Vec<StoreSummary>, AppError> {
        self.pool.run(|e| e.stores()).await
    }

    pub async fn store(&self, name: &str) -> Result<StoreStatus, AppError> {
        let name = params::store_name(name)
            .map_err(AppError::BadRequest)?
            .to_string();
        self.pool
            .run(move |e| {
                let summary = e.store_info(&name)?;
                let freshness = e.freshness(&summary.store)?;
                Ok(StoreStatus { summary, freshness })
            })
            .await
    }

    /// Checks and records a job, then queues it on the writer.
    pub async fn submit(&self, spec: JobSpec) -> Result<JobRecord, AppError> {
        let check = !self.holds_lock;
        let job = self
            .pool
            .run(move |e| {
                // Without the lock held for life (stdio), fail now if another process writes.
                if check {
                    e.check_writable()?;
                }
                e.submit_job(&spec)
            })
            .await?;
        if !self.writer.handle().send(Cmd::Job(job.id.clone())) {
            return Err(AppError::Internal("the writer has stopped".into()));
        }
        Ok(job)
    }

    pub async fn add(&self, args: &JsonObject) -> Result<JobRecord, AppError> {
        let policy = SourcePolicy {
            base: self.local_base.as_deref(),
            data_dir: self.data.root(),
        };
        let spec = params::add_spec(args, &policy).map_err(AppError::BadRequest)?;
        self.submit(spec).await
    }

    pub async fn index(&self, name: &str, args: &JsonObject) -> Result<JobRecord, AppError> {
        let name = params::store_name(name).map_err(AppError::BadRequest)?;
        let spec = params::index_spec(name, args).map_err(AppError::BadRequest)?;
        self.submit(spec).await
    }

    /// Removes a store through the writer (after any write queued before it).
    pub async fn remove(&self, name: &str) -> Result<StoreRecord, AppError> {
        let name = params::store_name(name)
            .map_err(AppError::BadRequest)?
            .to_string();
        let (store, check) = (name.clone(), !self.holds_lock);
        self.pool
            .run(move |e| {
                e.store_info(&store)?;
                if check {
                    e.check_writable()?;
                }
                Ok(())
            })
            .await?;
        let (tx, rx) = oneshot::channel();
        if !self.writer.handle().send(Cmd::Remove(name, tx)) {
            return Err(AppError::Internal("the writer has stopped".into()));
        }
        rx.await
            .map_err(|_| AppError::Internal("the writer stopped before removing".into()))?
            .map_err(AppError::from)
    }

    pub async fn job(&self, id: &str) -> Result<JobRecord, AppError> {
        let id = id.to_string();
        self.pool.run(move |e| e.job(&id)).await
    }

    pub async fn jobs(&self) -> Result<Vec<JobRecord>, AppError> {
        self.pool.run(|e| e.jobs()).await
    }

    pub async fn cancel(&self, id: &str) -> Result<JobRecord, AppError> {
        let id = id.to_string();
        self.pool.run(move |e| e.cancel_job(&id)).await
    }

    /// Deletes finished jobs older than a day.
    pub async fn clean_jobs(&self) {
        match self
            .pool
            .run(|e| e.clean_jobs(Duration::from_secs(24 * 3600)))
            .await
        {
            Ok(0) => {}
            Ok(n) => tracing::info!("deleted {n} finished jobs older than a day"),
            Err(e) => tracing::warn!("cleaning up jobs: {e}"),
        }
    }
}
