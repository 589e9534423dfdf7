//! Engines for readers. An `Engine` holds a SQLite connection, which is not `Sync`, so each
//! concurrent request checks one out; clones share the loaded model and open index readers.
//! Calls run on tokio's blocking threads, a few at a time (the work is CPU-bound).

use crate::error::AppError;
use lore_engine::{Engine, EngineError};
use std::sync::{Arc, Mutex};
use tokio::sync::Semaphore;

pub(crate) struct Pool {
    seed: Mutex<Engine>,
    idle: Mutex<Vec<Engine>>,
    gate: Semaphore,
}

impl Pool {
    pub fn new(seed: Engine, workers: usize) -> Arc<Pool> {
        Arc::new(Pool {
            seed: Mutex::new(seed),
            idle: Mutex::new(Vec::new()),
            gate: Semaphore::new(workers.max(1)),
        })
    }

    fn checkout(&self) -> Result<Engine, EngineError> {
        if let Some(e) = self.idle.lock().ok().and_then(|mut idle| idle.pop()) {
            return Ok(e);
        }
        match self.seed.lock() {
            Ok(seed) => seed.try_clone(),
            Err(poisoned) => poisoned.into_inner().try_clone(),
        }
    }

    fn checkin(&self, engine: Engine) {
        if let Ok(mut idle) = self.idle.lock() {
            idle.push(engine);
        }
    }

    /// Runs `f` with an engine on a blocking thread.
    pub async fn run<R, F>(self: &Arc<Self>, f: F) -> Result<R, AppError>
    where
        R: Send + 'static,
        F: FnOnce(&Engine) -> Result<R, EngineError> + Send + 'static,
    {
        let _permit = self
            .gate
            .acquire()
            .await
            .map_err(|_| AppError::Internal("the server is shutting down".into()))?;
        let pool = self.clone();
        tokio::task::spawn_blocking(move || {
            let engine = pool.checkout()?;
            let out = f(&engine);
            pool.checkin(engine);
            out
        })
        .await
        .map_err(|e| AppError::Internal(format!("a worker failed: {e}")))?
        .map_err(AppError::from)
    }
}
