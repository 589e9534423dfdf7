//! Jobs: add, index and sync as background work with a status, progress and cancel.
//!
//! A job is recorded in the catalog (`submit_job`, by any engine), then run by the writer
//! (`run_job`). While it runs, a monitor thread copies its progress into the catalog a few
//! times a second and reads back whether anyone (this process, `lore jobs cancel`, MCP,
//! REST) asked it to stop; indexing then stops at the next file boundary, keeping every
//! commit made so far.

use crate::{Engine, EngineError, Phase, Progress};
use lore_core::AddStore;
use lore_index::{Catalog, JobProgress, JobRecord, JobStatus};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

/// What a job does.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum JobSpec {
    /// Create a store and index it.
    Add(AddStore),
    /// Re-index stores (all when empty), incrementally unless `full`.
    Index {
        #[serde(default)]
        stores: Vec<String>,
        #[serde(default)]
        full: bool,
    },
    /// Pull repo stores, then index incrementally.
    Sync {
        #[serde(default)]
        stores: Vec<String>,
    },
}

impl JobSpec {
    pub fn kind(&self) -> &'static str {
        match self {
            JobSpec::Add(_) => "add",
            JobSpec::Index { .. } => "index",
            JobSpec::Sync { .. } => "sync",
        }
    }

    /// Whether this job writes `store`.
    pub fn writes(&self, store: &str) -> bool {
        match self {
            JobSpec::Add(add) => add.name == store,
            JobSpec::Index { stores, .. } | JobSpec::Sync { stores } => {
                stores.is_empty() || stores.iter().any(|s| s == store)
            }
        }
    }
}

/// How often a running job's progress is saved and its cancel flag read.
const MONITOR_EVERY: Duration = Duration::from_millis(200);

/// Most jobs `jobs()` returns.
const JOB_LIST_LIMIT: usize = 100;

/// Progress of a running job, kept in memory and copied to the catalog by the monitor.
#[derive(Default)]
struct JobTracker {
    files_done: AtomicU64,
    files_total: AtomicU64,
    chunks_done: AtomicU64,
    chunks_total: AtomicU64,
    /// Pages a crawl fetched: reported in the message (the job row has no column for them).
    pages_done: AtomicU64,
    message: Mutex<Option<String>>,
    cancel: AtomicBool,
}

impl JobTracker {
    fn snapshot(&self) -> JobProgress {
        JobProgress {
            files_done: self.files_done.load(Ordering::Relaxed),
            files_total: self.files_total.load(Ordering::Relaxed),
            chunks_done: self.chunks_done.load(Ordering::Relaxed),
            chunks_total: self.chunks_total.load(Ordering::Relaxed),
        }
    }

    fn counters(&self, phase: Phase) -> Option<(&AtomicU64, &AtomicU64)> {
        match phase {
            Phase::Files => Some((&self.files_done, &self.files_total)),
            Phase::Embeddings => Some((&self.chunks_done, &self.chunks_total)),
            Phase::Queries | Phase::Pages => None,
        }
    }
}

impl Progress for JobTracker {
    // A job over several stores adds up their totals.
    fn start(&self, phase: Phase, total: u64) {
        if let Some((_, t)) = self.counters(phase) {
            t.fetch_add(total, Ordering::Relaxed);
        }
    }
    fn advance(&self, phase: Phase, n: u64) {
        if let Some((d, _)) = self.counters(phase) {
            d.fetch_add(n, Ordering::Relaxed);
        }
        if phase == Phase::Pages {
            let done = self.pages_done.fetch_add(n, Ordering::Relaxed) + n;
            self.message(&format!("crawling: {done} pages fetched"));
        }
    }
    fn message(&self, msg: &str) {
        if let Ok(mut m) = self.message.lock() {
            *m = Some(msg.to_string());
        }
    }
    fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
}

/// Copies progress to the catalog and cancel requests back, until told to stop.
fn monitor(catalog: Catalog, id: String, tracker: Arc<JobTracker>, stop: mpsc::Receiver<()>) {
    loop {
        let finished = !matches!(
            stop.recv_timeout(MONITOR_EVERY),
            Err(mpsc::RecvTimeoutError::Timeout)
        );
        let message = tracker.message.lock().ok().and_then(|mut m| m.take());
        match catalog.update_job_progress(&id, &tracker.snapshot(), message.as_deref()) {
            Ok(true) => tracker.cancel.store(true, Ordering::Relaxed),
            Ok(false) => {}
            Err(e) => tracing::warn!("job {id}: could not record progress: {e}"),
        }
        if finished {
            return;
        }
    }
}

impl Engine {
    /// Checks a job's request and records it as pending. Bad input (a bad name, an existing
    /// store, a missing folder, an unknown store) fails here, before any job exists.
    pub fn submit_job(&self, spec: &JobSpec) -> Result<JobRecord, EngineError> {
        match spec {
            JobSpec::Add(add) => {
                self.check_add(add)?;
            }
            JobSpec::Index { stores, .. } | JobSpec::Sync { stores } => {
                self.select_stores(stores)?;
            }
        }
        let value = serde_json::to_value(spec)
            .map_err(|e| EngineError::Input(format!("job request cannot be recorded: {e}")))?;
        Ok(self.catalog.create_job(
            &lore_index::new_job_id(),
            spec.kind(),
            &value,
            &self.writer_id(),
        )?)
    }

    /// Runs a pending job to its end and returns its final record. A job that is no longer
    /// pending (cancelled before it started) is returned as it is. The job's own failure is
    /// recorded in it, not returned; `Err` means the catalog itself failed.
    pub fn run_job(&mut self, id: &str) -> Result<JobRecord, EngineError> {
        let Some(job) = self
            .catalog
            .claim_job(id, std::process::id(), &self.writer_id())?
        else {
            return self.job(id);
        };
        let spec: JobSpec = match serde_json::from_value(job.spec.clone()) {
            Ok(s) => s,
            Err(e) => {
                let msg = format!("job request is unreadable: {e}");
                self.catalog
                    .finish_job(id, JobStatus::Failed, None, Some(&msg))?;
                return self.job(id);
            }
        };
        let tracker = Arc::new(JobTracker::default());
        let (stop_tx, stop_rx) = mpsc::channel();
        let monitor_catalog = crate::open_catalog(&self.data)?;
        let monitor = {
            let (id, tracker) = (id.to_string(), tracker.clone());
            std::thread::Builder::new()
                .name("lore-job-monitor".into())
                .spawn(move || monitor(monitor_catalog, id, tracker, stop_rx))
                .map_err(|e| EngineError::io("starting a job monitor thread", e))?
        };
        let outcome = self.run_spec(&spec, tracker.as_ref());
        let _ = stop_tx.send(());
        let _ = monitor.join();
        match outcome {
            Ok(result) => self
                .catalog
                .finish_job(id, JobStatus::Done, Some(&result), None)?,
            Err(EngineError::Cancelled) => self.catalog.finish_job(
                id,
                JobStatus::Cancelled,
                None,
                Some(&EngineError::Cancelled.to_string()),
            )?,
            Err(e) => self
                .catalog
                .finish_job(id, JobStatus::Failed, None, Some(&e.to_string()))?,
        }
        self.job(id)
    }

    fn run_spec(
        &mut self,
        spec: &JobSpec,
        progress: &dyn Progress,
    ) -> Result<serde_json::Value, EngineError> {
        let json = |v: Result<serde_json::Value, serde_json::Error>| {
            v.map_err(|e| EngineError::Input(format!("job result cannot be recorded: {e}")))
        };
        match spec {
            JobSpec::Add(add) => {
                let (store, report) = self.add_store(add, progress)?;
                json(Ok(serde_json::json!({ "store": store, "report": report })))
            }
            JobSpec::Index { stores, full } => {
                json(serde_json::to_value(self.index(stores, *full, progress)?))
            }
            JobSpec::Sync { stores } => json(serde_json::to_value(self.sync(stores, progress)?)),
        }
    }

    pub fn job(&self, id: &str) -> Result<JobRecord, EngineError> {
        let id = id.trim();
        if !lore_index::is_job_id(id) {
            return Err(EngineError::Input(format!(
                "{id:?} is not a job id (16 hex digits, see `lore jobs`)"
            )));
        }
        self.catalog.job(id)?.ok_or_else(|| {
            EngineError::NotFound(format!(
                "no job {id} (finished jobs are kept for a day; see `lore jobs`)"
            ))
        })
    }

    /// The newest jobs, newest first.
    pub fn jobs(&self) -> Result<Vec<JobRecord>, EngineError> {
        Ok(self.catalog.jobs(JOB_LIST_LIMIT)?)
    }

    /// The oldest pending or running job that writes `store` (an add naming it, an index or
    /// sync naming it or every store), if any.
    pub fn active_job_for(&self, store: &str) -> Result<Option<JobRecord>, EngineError> {
        let jobs = self.catalog.jobs(JOB_LIST_LIMIT)?;
        Ok(jobs.into_iter().rev().find(|j| {
            matches!(j.status, JobStatus::Pending | JobStatus::Running)
                && serde_json::from_value::<JobSpec>(j.spec.clone()).is_ok_and(|s| s.writes(store))
        }))
    }

    /// Asks a job to stop (see `Catalog::request_job_cancel`); returns it as it is now.
    pub fn cancel_job(&self, id: &str) -> Result<JobRecord, EngineError> {
        self.job(id)?;
        self.catalog.request_job_cancel(id.trim())?;
        self.job(id)
    }

    /// Deletes finished jobs older than `max_age`.
    pub fn clean_jobs(&self, max_age: Duration) -> Result<usize, EngineError> {
        Ok(self
            .catalog
            .delete_finished_jobs(max_age.as_secs().min(i64::MAX as u64) as i64)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lore_core::DataDir;

    fn engine(dir: &std::path::Path) -> Engine {
        let mut config = crate::EngineConfig {
            embed: false,
            commit_every_files: 2,
            ..Default::default()
        };
        config.chunk = Default::default();
        Engine::open_with(DataDir::new(dir.join("data")), config).unwrap()
    }

    fn folder(dir: &std::path::Path, files: usize) -> std::path::PathBuf {
        let src = dir.join("src");
        std::fs::create_dir_all(&src).unwrap();
        for i in 0..files {
            std::fs::write(
                src.join(format!("f{i}.md")),
                format!("# File {i}\n\nword{i} text\n"),
            )
            .unwrap();
        }
        src
    }

    #[test]
    fn an_add_spec_with_a_store_type_round_trips() {
        for kind in [
            lore_core::StoreKind::Folder,
            lore_core::StoreKind::Repo,
            lore_core::StoreKind::Web,
        ] {
            let spec = JobSpec::Add(AddStore {
                name: "n".into(),
                source: "s".into(),
                kind: Some(kind),
                ..AddStore::default()
            });
            let json = serde_json::to_string(&spec).unwrap();
            match serde_json::from_str::<JobSpec>(&json) {
                Ok(JobSpec::Add(a)) => assert_eq!(a.kind, Some(kind), "{json}"),
                other => panic!("{json} read back as {other:?}"),
            }
        }
    }

    #[test]
    fn a_job_runs_to_done_with_progress() {
        let dir = tempfile::tempdir().unwrap();
        let src = folder(dir.path(), 5);
        let mut e = engine(dir.path());
        let spec = JobSpec::Add(AddStore {
            name: "notes".into(),
            source: src.display().to_string(),
            ..Default::default()
        });
        let job = e.submit_job(&spec).unwrap();
        assert_eq!(job.status, JobStatus::Pending);
        assert_eq!(job.kind, "add");
        let done = e.run_job(&job.id).unwrap();
        assert_eq!(done.status, JobStatus::Done, "{done:?}");
        assert_eq!(done.progress.files_done, 5);
        assert_eq!(done.progress.files_total, 5);
        assert_eq!(done.result.as_ref().unwrap()["report"]["added"], 5);

        // Bad input fails before a job exists.
        assert!(matches!(
            e.submit_job(&spec),
            Err(EngineError::Index(lore_index::IndexError::StoreExists(_)))
        ));
        let missing = JobSpec::Index {
            stores: vec!["nope".into()],
            full: false,
        };
        assert_eq!(
            e.submit_job(&missing).unwrap_err().kind(),
            crate::ExitKind::NotFound
        );
        assert_eq!(e.jobs().unwrap().len(), 1);
        assert!(e.job("../etc").is_err());
    }

    #[test]
    fn a_cancelled_job_keeps_its_commits() {
        let dir = tempfile::tempdir().unwrap();
        let src = folder(dir.path(), 6);
        let mut e = engine(dir.path());
        let add = e
            .submit_job(&JobSpec::Add(AddStore {
                name: "notes".into(),
                source: src.display().to_string(),
                ..Default::default()
            }))
            .unwrap();
        e.run_job(&add.id).unwrap();
        for i in 0..6 {
            std::fs::write(src.join(format!("f{i}.md")), format!("# Changed {i}\n")).unwrap();
        }
        // Cancelled while pending: never runs.
        let job = e
            .submit_job(&JobSpec::Index {
                stores: vec![],
                full: false,
            })
            .unwrap();
        assert_eq!(e.cancel_job(&job.id).unwrap().status, JobStatus::Cancelled);
        assert_eq!(e.run_job(&job.id).unwrap().status, JobStatus::Cancelled);

        // Cancelled while running: stops at a file boundary; what was committed stays.
        struct StopAfter(AtomicU64);
        impl Progress for StopAfter {
            fn cancelled(&self) -> bool {
                self.0.fetch_add(1, Ordering::Relaxed) >= 3
            }
        }
        let err = e.index(&[], false, &StopAfter(AtomicU64::new(0)));
        assert!(matches!(err, Err(EngineError::Cancelled)), "{err:?}");
        let mut req = crate::SearchRequest::new("changed");
        req.mode = crate::Mode::Fts;
        req.limit = 10;
        let found = e.search(&req).unwrap().results.len();
        assert!(
            (1..6).contains(&found),
            "{found} of 6 changed files indexed"
        );
        // The next run finishes the rest.
        e.index(&[], false, &crate::NoProgress).unwrap();
        assert_eq!(e.search(&req).unwrap().results.len(), 6);
    }
}
