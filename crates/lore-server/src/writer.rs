//! The writers: threads that own the writing engines and do every write of this process
//! in order. Serving, there are two sharing the data dir's writer lock: one runs jobs (add,
//! index, sync) and the watcher's re-indexes of folder stores, the other the short writes
//! (the brain's writes and re-indexes, store removal), so a brain write never waits behind
//! an hour of embedding. Within the process each store is written by one at a time (the
//! engine's store locks). Without the lock held for life (`lore mcp`, which takes it per
//! write), one thread does both.

use lore_engine::brain::BRAIN_STORE;
use lore_engine::{Engine, EngineError};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

pub(crate) enum Cmd {
    /// Run a pending job.
    Job(String),
    /// Re-index the brain if it changed on disk (notes edited by hand), its store created
    /// when its folder has files but no store yet: `Engine::brain_refresh`, which needs no
    /// model.
    SyncBrain,
    /// Any other write (store removal, the brain's): runs with the writer's engine, in
    /// queue order.
    Run(Box<dyn FnOnce(&mut Engine) + Send>),
    Stop,
}

impl Cmd {
    /// Long work, for the jobs thread.
    fn is_long(&self) -> bool {
        matches!(self, Cmd::Job(_))
    }
}

/// Sends work to the writer threads: long work to the jobs thread, the rest to the quick
/// one (the same thread when there is one).
#[derive(Clone)]
pub(crate) struct WriterHandle {
    jobs: mpsc::Sender<Cmd>,
    quick: mpsc::Sender<Cmd>,
}

impl WriterHandle {
    pub fn send(&self, cmd: Cmd) -> bool {
        if cmd.is_long() {
            self.jobs.send(cmd).is_ok()
        } else {
            self.quick.send(cmd).is_ok()
        }
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
    threads: Mutex<Vec<JoinHandle<()>>>,
    /// One message per thread when it ends.
    done: Mutex<mpsc::Receiver<()>>,
}

impl Writer {
    pub fn spawn(engine: Engine) -> Result<Writer, EngineError> {
        let canceller = engine.try_clone()?;
        let current: Arc<Mutex<Option<String>>> = Arc::default();
        let stopping: Arc<AtomicBool> = Arc::default();
        let (done_tx, done_rx) = mpsc::channel();
        let mut threads = Vec::new();
        let mut start = |name: &str, mut engine: Engine| {
            let (tx, rx) = mpsc::channel();
            let (running, stop, done) = (current.clone(), stopping.clone(), done_tx.clone());
            let thread = std::thread::Builder::new()
                .name(name.into())
                .spawn(move || {
                    run(&mut engine, rx, &running, &stop);
                    let _ = done.send(());
                })
                .map_err(|e| EngineError::io("starting a writer thread", e))?;
            threads.push(thread);
            Ok::<_, EngineError>(tx)
        };
        let handle = if engine.holds_writer_lock() {
            let quick = start("lore-writer", engine.try_clone_writer()?)?;
            let jobs = start("lore-jobs", engine)?;
            WriterHandle { jobs, quick }
        } else {
            let tx = start("lore-writer", engine)?;
            WriterHandle {
                jobs: tx.clone(),
                quick: tx,
            }
        };
        Ok(Writer {
            handle,
            current,
            stopping,
            canceller: Mutex::new(canceller),
            threads: Mutex::new(threads),
            done: Mutex::new(done_rx),
        })
    }

    pub fn handle(&self) -> WriterHandle {
        self.handle.clone()
    }

    /// Asks the running job to stop at its next embedding step, cancels queued ones, then
    /// waits (up to `wait` in all) for the writers to finish.
    pub fn stop(&self, wait: Duration) {
        self.stopping.store(true, Ordering::Relaxed);
        let job = self.current.lock().ok().and_then(|c| c.clone());
        if let Some(id) = job
            && let Ok(engine) = self.canceller.lock()
        {
            let _ = engine.cancel_job(&id);
        }
        let _ = self.handle.jobs.send(Cmd::Stop);
        let _ = self.handle.quick.send(Cmd::Stop);
        let Ok(mut threads) = self.threads.lock() else {
            return;
        };
        let deadline = Instant::now() + wait;
        let mut finished = 0;
        if let Ok(done) = self.done.lock() {
            while finished < threads.len() {
                let left = deadline.saturating_duration_since(Instant::now());
                if done.recv_timeout(left).is_err() {
                    break;
                }
                finished += 1;
            }
        }
        if finished == threads.len() {
            for t in threads.drain(..) {
                let _ = t.join();
            }
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
            Cmd::SyncBrain if stopping.load(Ordering::Relaxed) => {}
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
