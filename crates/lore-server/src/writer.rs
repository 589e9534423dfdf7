//! The one writer: a thread that owns the writing `Engine` and does every write of this
//! process in order — jobs (add, index, sync), the watcher's re-indexes, store removal,
//! the brain's writes.
//! Serving or watching, its engine holds the data dir's writer lock for the thread's life.

use lore_engine::brain::BRAIN_STORE;
use lore_engine::{Engine, EngineError, NoProgress};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

pub(crate) enum Cmd {
    /// Run a pending job.
    Job(String),
    /// Re-index a store incrementally (files changed on disk).
    Reindex(String),
    /// Re-index the brain if it changed on disk (notes edited by hand), its store created
    /// when its folder has files but no store yet: `Engine::brain_refresh`, which needs no
    /// model.
    SyncBrain,
    /// Any other write (store removal, the brain's): runs with the writer's engine, in
    /// queue order.
    Run(Box<dyn FnOnce(&mut Engine) + Send>),
    Stop,
}

/// Sends work to the writer thread.
#[derive(Clone)]
pub(crate) struct WriterHandle {
    tx: mpsc::Sender<Cmd>,
}

impl WriterHandle {
    pub fn send(&self, cmd: Cmd) -> bool {
        self.tx.send(cmd).is_ok()
    }
}

pub(crate) struct Writer {
    handle: WriterHandle,
    /// The job running now, so shutdown can ask it to stop.
    current: Arc<Mutex<Option<String>>>,
    /// Set at shutdown: queued jobs are cancelled instead of started.
    stopping: Arc<AtomicBool>,
    /// Records cancel requests at shutdown (its own catalog connection).
    canceller: Mutex<Engine>,
    thread: Mutex<Option<JoinHandle<()>>>,
    done: Mutex<mpsc::Receiver<()>>,
}

impl Writer {
    pub fn spawn(mut engine: Engine) -> Result<Writer, EngineError> {
        let canceller = engine.try_clone()?;
        let (tx, rx) = mpsc::channel();
        let (done_tx, done_rx) = mpsc::channel();
        let current: Arc<Mutex<Option<String>>> = Arc::default();
        let stopping: Arc<AtomicBool> = Arc::default();
        let (running, stop) = (current.clone(), stopping.clone());
        let thread = std::thread::Builder::new()
            .name("lore-writer".into())
            .spawn(move || {
                run(&mut engine, rx, &running, &stop);
                let _ = done_tx.send(());
            })
            .map_err(|e| EngineError::io("starting the writer thread", e))?;
        Ok(Writer {
            handle: WriterHandle { tx },
            current,
            stopping,
            canceller: Mutex::new(canceller),
            thread: Mutex::new(Some(thread)),
            done: Mutex::new(done_rx),
        })
    }

    pub fn handle(&self) -> WriterHandle {
        self.handle.clone()
    }

    /// Asks the running job to stop at its next file boundary, cancels queued ones, then
    /// waits (up to `wait`) for the writer to finish.
    pub fn stop(&self, wait: Duration) {
        self.stopping.store(true, Ordering::Relaxed);
        let job = self.current.lock().ok().and_then(|c| c.clone());
        if let Some(id) = job
            && let Ok(engine) = self.canceller.lock()
        {
            let _ = engine.cancel_job(&id);
        }
        self.handle.send(Cmd::Stop);
        let finished = self
            .done
            .lock()
            .map(|d| d.recv_timeout(wait).is_ok())
            .unwrap_or(false);
        if finished && let Some(t) = self.thread.lock().ok().and_then(|mut t| t.take()) {
            let _ = t.join();
        }
    }
}

fn run(
    engine: &mut Engine,
    rx: mpsc::Receiver<Cmd>,
    current: &Mutex<Option<String>>,
    stopping: &AtomicBool,
) {
    while let Ok(cmd) = rx.recv() {
        match cmd {
            Cmd::Job(id) if stopping.load(Ordering::Relaxed) => {
                let _ = engine.cancel_job(&id);
            }
            Cmd::Reindex(_) | Cmd::SyncBrain if stopping.load(Ordering::Relaxed) => {}
            Cmd::Job(id) => {
                if let Ok(mut c) = current.lock() {
                    *c = Some(id.clone());
                }
                match engine.run_job(&id) {
                    Ok(job) => tracing::info!(
                        "job {id} ({}) {}{}",
                        job.kind,
                        job.status.as_str(),
                        job.error.map(|e| format!(": {e}")).unwrap_or_default()
                    ),
                    Err(e) => tracing::error!("job {id}: {e}"),
                }
                if let Ok(mut c) = current.lock() {
                    *c = None;
                }
            }
            Cmd::Reindex(name) => {
                match engine.index(std::slice::from_ref(&name), false, &NoProgress) {
                    Ok(reports) => {
                        for r in reports {
                            log_reindexed(&r.store, [r.added, r.changed, r.deleted], r.elapsed_ms);
                        }
                    }
                    Err(e) if e.kind() == lore_engine::ExitKind::NotFound => {}
                    Err(e) => tracing::warn!("re-indexing {name} failed: {e}"),
                }
            }
            Cmd::SyncBrain => match engine.brain_refresh() {
                Ok(Some(r)) => {
                    log_reindexed(BRAIN_STORE, [r.added, r.changed, r.deleted], r.elapsed_ms)
                }
                Ok(None) => {}
                Err(e) => tracing::warn!("re-indexing the brain failed: {e}"),
            },
            Cmd::Run(write) => write(engine),
            Cmd::Stop => break,
        }
    }
}

fn log_reindexed(store: &str, [added, changed, deleted]: [usize; 3], elapsed_ms: u64) {
    if added + changed + deleted > 0 {
        tracing::info!(
            "re-indexed {store}: {added} added, {changed} changed, {deleted} deleted in \
             {elapsed_ms} ms"
        );
    }
}
