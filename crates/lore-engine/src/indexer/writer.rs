//! The single writer of a data dir. A CLI command takes `writer.lock` for one write; a
//! server or watcher holds it for its whole life and says so in `writer.json`, so a CLI
//! write that finds the lock taken can name who holds it and what to do instead.

use crate::{Engine, EngineError};
use lore_core::DataDir;
use lore_index::{IndexError, WriterLock};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Who holds the writer lock for life, as written to `<data>/writer.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WriterInfo {
    pub pid: u32,
    /// `serve` or `watch`.
    pub role: String,
    /// Base URL of a server's REST and MCP endpoints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    pub started_at: i64,
}

/// The writer of a data dir as the jobs table names it: its host and the data dir, so two
/// servers sharing one catalog (on two machines, or two data dirs of one) never take each
/// other's jobs for their own.
pub(crate) fn writer_id(data: &DataDir) -> String {
    let root = std::fs::canonicalize(data.root()).unwrap_or_else(|_| data.root().to_path_buf());
    format!("{}:{}", crate::record::host_name(), root.display())
}

/// Removes `writer.json` when dropped (normal exit or error). After a kill -9 the file stays,
/// but it is only believed while the lock is held by its pid; the next lore process to open
/// the data dir settles it (`settle_stale_writer`).
pub struct ServerAnnouncement {
    path: PathBuf,
}

impl Drop for ServerAnnouncement {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The long-lived writer of a data dir, if one is running (read without opening it).
pub(crate) fn running_writer(data: &DataDir) -> Option<WriterInfo> {
    let path = data.root().join("writer.json");
    let info: WriterInfo = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    // Believed only while the lock is held, by its pid.
    let holder = std::fs::read_to_string(data.lock_file()).ok()?;
    (holder.trim() == info.pid.to_string() && lore_index::writer_lock_held(&data.lock_file()))
        .then_some(info)
}

/// When the long-lived writer recorded in `writer.json` died without cleaning up (kill -9, a
/// crash, a power cut), marks the jobs it was running interrupted, removes the record and
/// says so; `None` when there is no record or its writer still runs. Takes the writer lock
/// for a moment, so it is a write: CLI commands call it when they start.
pub fn settle_stale_writer(data: &DataDir) -> Result<Option<String>, EngineError> {
    let path = data.root().join("writer.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(None);
    };
    if lore_index::writer_lock_held(&data.lock_file()) {
        return Ok(None);
    }
    // Someone else may take the lock first: then it is theirs to settle.
    let Ok(_lock) = WriterLock::acquire(&data.lock_file()) else {
        return Ok(None);
    };
    let Ok(info) = serde_json::from_str::<WriterInfo>(&text) else {
        let _ = std::fs::remove_file(&path);
        return Ok(None);
    };
    let who = format!("lore {} (pid {})", info.role, info.pid);
    let reason = format!("interrupted: {who} stopped uncleanly (killed or crashed); run it again");
    let jobs = crate::open_catalog(data)?.fail_jobs_of(info.pid, &writer_id(data), &reason)?;
    std::fs::remove_file(&path).map_err(|e| EngineError::io(path.display().to_string(), e))?;
    let what = match jobs.len() {
        0 => "it was running no job".to_string(),
        1 => format!("its job {} was interrupted; run it again", jobs[0]),
        _ => format!(
            "its jobs {} were interrupted; run them again",
            jobs.join(", ")
        ),
    };
    Ok(Some(format!(
        "{who} stopped uncleanly (killed or crashed); {what}"
    )))
}

impl Engine {
    fn writer_info_path(&self) -> PathBuf {
        self.data.root().join("writer.json")
    }

    /// Takes the writer lock and keeps it until the engine is dropped; every write of this
    /// engine then reuses it. Jobs this data dir's earlier writer left unfinished are marked
    /// failed (with the lock held, it cannot be running them), and those of any writer whose
    /// heartbeat expired; other servers' live jobs are left alone.
    pub fn hold_writer_lock(&mut self) -> Result<(), EngineError> {
        if self.writer_lock.is_none() {
            let lock = WriterLock::acquire(&self.data.lock_file())
                .map_err(|e| self.explain_lock_error(e))?;
            self.writer_lock = Some(std::sync::Arc::new(lock));
            self.catalog.fail_orphaned_jobs(&self.writer_id())?;
        }
        Ok(())
    }

    pub(crate) fn writer_id(&self) -> String {
        writer_id(&self.data)
    }

    /// Takes or renews this writer's lease on watching `store`'s folder for `ttl_secs`;
    /// `Some(holder)` when another server watches it (then this one should not: each
    /// change would be indexed once per server).
    pub fn watch_lease(
        &self,
        store: &lore_index::StoreRecord,
        ttl_secs: i64,
    ) -> Result<Option<String>, EngineError> {
        let me = self.writer_id();
        Ok(self
            .catalog
            .take_store_lease(store.id, lore_index::Lease::Watch, &me, ttl_secs)?
            .map(|(holder, _)| holder))
    }

    /// Gives up this writer's lease on watching `store` (when it stops).
    pub fn release_watch(&self, store: &lore_index::StoreRecord) -> Result<(), EngineError> {
        let me = self.writer_id();
        Ok(self
            .catalog
            .release_store_lease(store.id, lore_index::Lease::Watch, &me)?)
    }

    /// Renews the heartbeat of this writer's jobs and fails those of writers that stopped
    /// renewing theirs (`lore serve` calls it every few seconds).
    pub fn heartbeat_jobs(&self) -> Result<(usize, usize), EngineError> {
        let renewed = self.catalog.heartbeat_jobs(&self.writer_id())?;
        let expired = self.catalog.fail_expired_jobs()?;
        Ok((renewed, expired))
    }

    pub fn holds_writer_lock(&self) -> bool {
        self.writer_lock.is_some()
    }

    /// Fails at once, naming the holder, if another process is the writer now.
    pub fn check_writable(&self) -> Result<(), EngineError> {
        self.lock().map(drop)
    }

    /// Records this process as the long-lived writer (`role`: serve or watch). Needs the
    /// lock held (`hold_writer_lock`).
    pub fn announce_writer(
        &self,
        role: &str,
        url: Option<&str>,
    ) -> Result<ServerAnnouncement, EngineError> {
        let info = WriterInfo {
            pid: std::process::id(),
            role: role.to_string(),
            url: url.map(str::to_string),
            started_at: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs() as i64)
                .unwrap_or(0),
        };
        let path = self.writer_info_path();
        let tmp = path.with_extension("json.tmp");
        let text = serde_json::to_string_pretty(&info).unwrap_or_default();
        std::fs::write(&tmp, text)
            .and_then(|_| std::fs::rename(&tmp, &path))
            .map_err(|e| EngineError::io(path.display().to_string(), e))?;
        Ok(ServerAnnouncement { path })
    }

    /// The long-lived writer of this data dir, if one is running.
    pub fn running_writer(&self) -> Option<WriterInfo> {
        running_writer(&self.data)
    }

    /// Turns "locked" into a message that names a running server or watcher and what to do.
    pub(crate) fn explain_lock_error(&self, e: IndexError) -> EngineError {
        let IndexError::Locked(_) = &e else {
            return e.into();
        };
        let Some(w) = self.running_writer() else {
            return e.into();
        };
        let msg = match (&w.role[..], &w.url) {
            ("serve", Some(url)) => format!(
                "lore serve (pid {}, {url}) is the writer for this data dir and re-indexes changed \
                 folders itself; ask it instead (`curl -X POST {url}/api/stores/NAME/index`, or the \
                 MCP `stores` tool), or stop it first",
                w.pid
            ),
            _ => format!(
                "lore {} (pid {}) is the writer for this data dir and re-indexes changed folders \
                 itself; stop it first to write from here",
                w.role, w.pid
            ),
        };
        EngineError::Index(IndexError::Locked(msg))
    }
}

/// The stores being written by the engines of this process, so that two writer threads
/// (a server's jobs and its quick writes) never write one store at once.
#[derive(Default)]
pub(crate) struct StoreLocks {
    busy: std::sync::Mutex<std::collections::HashSet<i64>>,
    freed: std::sync::Condvar,
}

/// A store held for writing; released when dropped.
pub(crate) struct StoreGuard {
    locks: std::sync::Arc<StoreLocks>,
    id: i64,
}

impl Drop for StoreGuard {
    fn drop(&mut self) {
        if let Ok(mut busy) = self.locks.busy.lock() {
            busy.remove(&self.id);
        }
        self.locks.freed.notify_all();
    }
}

impl StoreLocks {
    /// Holds store `id`, waiting while another writer of this process holds it.
    pub(crate) fn hold(self: &std::sync::Arc<Self>, id: i64) -> StoreGuard {
        let mut busy = self.busy.lock().unwrap_or_else(|p| p.into_inner());
        while busy.contains(&id) {
            busy = self.freed.wait(busy).unwrap_or_else(|p| p.into_inner());
        }
        busy.insert(id);
        StoreGuard {
            locks: self.clone(),
            id,
        }
    }

    /// Holds store `id` if no other writer of this process does.
    pub(crate) fn try_hold(self: &std::sync::Arc<Self>, id: i64) -> Option<StoreGuard> {
        let mut busy = self.busy.lock().unwrap_or_else(|p| p.into_inner());
        busy.insert(id).then(|| StoreGuard {
            locks: self.clone(),
            id,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_lock_names_the_server() {
        let dir = tempfile::tempdir().unwrap();
        let mut server = Engine::open(DataDir::new(dir.path())).unwrap();
        server.hold_writer_lock().unwrap();
        server.hold_writer_lock().unwrap();
        let announced = server
            .announce_writer("serve", Some("http://127.0.0.1:7411"))
            .unwrap();
        // The server's own writes reuse its lock.
        server.check_writable().unwrap();

        let cli = Engine::open(DataDir::new(dir.path())).unwrap();
        let err = cli.check_writable().unwrap_err().to_string();
        assert!(err.contains("lore serve (pid"), "{err}");
        assert!(
            err.contains("http://127.0.0.1:7411/api/stores/NAME/index"),
            "{err}"
        );
        assert_eq!(cli.running_writer().unwrap().role, "serve");

        drop(announced);
        assert!(cli.running_writer().is_none());
        drop(server);
        cli.check_writable().unwrap();
    }
}
