//! Jobs: long work (add, index, sync) recorded in the catalog, so every process sees the same
//! list — the server that runs a job, `lore jobs` in another shell, MCP and REST clients.
//!
//! The table is bookkeeping, not index content: any process may insert a job or ask for one
//! to be cancelled; only the writer (the holder of `writer.lock`) runs them.
//!
//! Several servers may share the table (one PostgreSQL catalog). Each job names the writer
//! that runs it (`writer`: its host and data dir) and carries a heartbeat that writer renews
//! ([`Catalog::heartbeat_jobs`]); a job is failed as interrupted only when its own writer
//! starts again (so it cannot be running it) or when its heartbeat is older than
//! [`JOB_EXPIRY_SECS`], never because another server started.

use crate::IndexError;
use crate::catalog::Catalog;
use crate::sql::{Row, SqlError, args};
use lore_core::unix_now as now_secs;
use serde::Serialize;
use std::sync::atomic::{AtomicU64, Ordering};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum JobStatus {
    Pending,
    Running,
    Done,
    Failed,
    Cancelled,
}

impl JobStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            JobStatus::Pending => "pending",
            JobStatus::Running => "running",
            JobStatus::Done => "done",
            JobStatus::Failed => "failed",
            JobStatus::Cancelled => "cancelled",
        }
    }

    pub fn parse(s: &str) -> Option<JobStatus> {
        [
            JobStatus::Pending,
            JobStatus::Running,
            JobStatus::Done,
            JobStatus::Failed,
            JobStatus::Cancelled,
        ]
        .into_iter()
        .find(|j| j.as_str() == s)
    }

    /// Done, failed or cancelled: the job will not change again.
    pub fn is_finished(self) -> bool {
        matches!(
            self,
            JobStatus::Done | JobStatus::Failed | JobStatus::Cancelled
        )
    }
}

/// Counts of a running job: files read and chunked, chunks embedded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct JobProgress {
    pub files_done: u64,
    pub files_total: u64,
    pub chunks_done: u64,
    pub chunks_total: u64,
}

/// A job as recorded in the catalog.
#[derive(Debug, Clone, Serialize)]
pub struct JobRecord {
    pub id: String,
    /// `add`, `index` or `sync`.
    pub kind: String,
    /// The request that started it.
    pub spec: serde_json::Value,
    pub status: JobStatus,
    pub progress: JobProgress,
    /// The last progress note (e.g. "cloning …").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// What the job did, once done.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub cancel_requested: bool,
    /// The process that runs (or ran) it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    pub created_at: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started_at: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<i64>,
}

/// A fresh job id: 16 hex digits, unique per process and time.
pub fn new_job_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let mut key = Vec::with_capacity(32);
    key.extend_from_slice(&nanos.to_le_bytes());
    key.extend_from_slice(&std::process::id().to_le_bytes());
    key.extend_from_slice(&COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes());
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&key))
}

/// True for strings that can be job ids (checked before any lookup).
pub fn is_job_id(s: &str) -> bool {
    s.len() == 16 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// What a store's lease is for: one server at a time indexes a store, and one watches its
/// folder (see [`Catalog::take_store_lease`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lease {
    Index,
    Watch,
}

impl Lease {
    pub fn as_str(self) -> &'static str {
        match self {
            Lease::Index => "index",
            Lease::Watch => "watch",
        }
    }
}

/// A pending or running job whose heartbeat is older than this is interrupted: its writer
/// renews it every few seconds while it lives.
pub const JOB_EXPIRY_SECS: i64 = 60;

const JOB_COLUMNS: &str = "id, kind, spec, status, files_done, files_total, chunks_done, \
     chunks_total, message, result, error, cancel_requested, pid, created_at, started_at, finished_at";

fn job_from_row(r: &mut Row) -> Result<JobRecord, SqlError> {
    let u = |r: &Row, i| r.int(i).map(|v| v.max(0) as u64);
    Ok(JobRecord {
        id: r.text(0)?,
        kind: r.text(1)?,
        spec: serde_json::from_str(&r.text(2)?).unwrap_or(serde_json::Value::Null),
        status: JobStatus::parse(&r.text(3)?).unwrap_or(JobStatus::Failed),
        progress: JobProgress {
            files_done: u(r, 4)?,
            files_total: u(r, 5)?,
            chunks_done: u(r, 6)?,
            chunks_total: u(r, 7)?,
        },
        message: r.opt_text(8)?,
        result: r.opt_text(9)?.and_then(|j| serde_json::from_str(&j).ok()),
        error: r.opt_text(10)?,
        cancel_requested: r.bool(11)?,
        pid: r.opt_int(12)?.map(|p| p as u32),
        created_at: r.int(13)?,
        started_at: r.opt_int(14)?,
        finished_at: r.opt_int(15)?,
    })
}

impl Catalog {
    /// Records a pending job, to be run by `writer` (which renews its heartbeat meanwhile).
    pub fn create_job(
        &self,
        id: &str,
        kind: &str,
        spec: &serde_json::Value,
        writer: &str,
    ) -> Result<JobRecord, IndexError> {
        let now = now_secs();
        self.db.execute(
            "INSERT INTO jobs (id, kind, spec, status, created_at, seq, writer, heartbeat_at) \
             VALUES (?1, ?2, ?3, 'pending', ?4, (SELECT COALESCE(MAX(seq), 0) + 1 FROM jobs), ?5, ?4)",
            args![id, kind, spec.to_string(), now, writer],
        )?;
        self.job(id)?
            .ok_or_else(|| IndexError::Corrupt(format!("job {id} vanished")))
    }

    pub fn job(&self, id: &str) -> Result<Option<JobRecord>, IndexError> {
        self.db.query_opt(
            &format!("SELECT {JOB_COLUMNS} FROM jobs WHERE id = ?1"),
            args![id],
            job_from_row,
        )
    }

    /// The newest `limit` jobs, newest first.
    pub fn jobs(&self, limit: usize) -> Result<Vec<JobRecord>, IndexError> {
        self.db.query(
            &format!("SELECT {JOB_COLUMNS} FROM jobs ORDER BY created_at DESC, seq DESC LIMIT ?1"),
            args![limit],
            job_from_row,
        )
    }

    /// Moves a pending job to running (by `pid` of `writer`); `None` if it is no longer pending
    /// (cancelled meanwhile, or claimed by another writer).
    pub fn claim_job(
        &self,
        id: &str,
        pid: u32,
        writer: &str,
    ) -> Result<Option<JobRecord>, IndexError> {
        let claimed = self.db.execute(
            "UPDATE jobs SET status = 'running', started_at = ?2, heartbeat_at = ?2, pid = ?3, \
             writer = ?4 WHERE id = ?1 AND status = 'pending'",
            args![id, now_secs(), pid, writer],
        )?;
        if claimed == 0 {
            return Ok(None);
        }
        self.job(id)
    }

    /// Records progress; returns whether cancellation was requested.
    pub fn update_job_progress(
        &self,
        id: &str,
        p: &JobProgress,
        message: Option<&str>,
    ) -> Result<bool, IndexError> {
        let cancel = self.db.query_opt(
            "UPDATE jobs SET files_done = ?2, files_total = ?3, chunks_done = ?4, chunks_total = ?5,
             message = COALESCE(?6, message) WHERE id = ?1 RETURNING cancel_requested",
            args![
                id,
                p.files_done,
                p.files_total,
                p.chunks_done,
                p.chunks_total,
                message
            ],
            |r| r.bool(0),
        )?;
        Ok(cancel.unwrap_or(false))
    }

    /// Ends a job with its outcome.
    pub fn finish_job(
        &self,
        id: &str,
        status: JobStatus,
        result: Option<&serde_json::Value>,
        error: Option<&str>,
    ) -> Result<(), IndexError> {
        // A finished job's record is what an operator reads: done, its progress is whole
        // and no note from the way there ("N batches wait for a worker") remains.
        self.db.execute(
            "UPDATE jobs SET status = ?2, result = ?3, error = ?4, finished_at = ?5,
                 message = CASE WHEN ?2 = 'done' THEN NULL ELSE message END,
                 files_done = CASE WHEN ?2 = 'done' AND files_total > files_done
                     THEN files_total ELSE files_done END,
                 chunks_done = CASE WHEN ?2 = 'done' AND chunks_total > chunks_done
                     THEN chunks_total ELSE chunks_done END
             WHERE id = ?1",
            args![
                id,
                status.as_str(),
                result.map(|r| r.to_string()),
                error,
                now_secs()
            ],
        )?;
        Ok(())
    }

    /// Asks a job to stop: a pending job is cancelled at once, a running one is flagged
    /// (its runner stops at the next commit boundary); a finished job is left as it is.
    pub fn request_job_cancel(&self, id: &str) -> Result<Option<JobRecord>, IndexError> {
        self.db.execute(
            "UPDATE jobs SET status = 'cancelled', cancel_requested = 1, finished_at = ?2
             WHERE id = ?1 AND status = 'pending'",
            args![id, now_secs()],
        )?;
        self.db.execute(
            "UPDATE jobs SET cancel_requested = 1 WHERE id = ?1 AND status = 'running'",
            args![id],
        )?;
        self.job(id)
    }

    /// Marks as failed the unfinished jobs nobody can be running: those of `writer` (called
    /// by a process that has just become that writer, so its earlier self is gone), and any
    /// whose heartbeat expired. Another writer's live jobs are left alone.
    pub fn fail_orphaned_jobs(&self, writer: &str) -> Result<usize, IndexError> {
        let now = now_secs();
        self.db
            .execute(
                "UPDATE jobs SET status = 'failed', finished_at = ?1,
                 error = 'interrupted: the lore process running it stopped; start it again'
                 WHERE status IN ('pending', 'running')
                 AND (writer IS NULL OR writer = ?2 OR heartbeat_at IS NULL OR heartbeat_at < ?3)",
                args![now, writer, now - JOB_EXPIRY_SECS],
            )
            .map(|n| n as usize)
    }

    /// Marks as failed the unfinished jobs whose heartbeat expired (their writer stopped
    /// without saying so, on any machine).
    pub fn fail_expired_jobs(&self) -> Result<usize, IndexError> {
        let now = now_secs();
        self.db
            .execute(
                "UPDATE jobs SET status = 'failed', finished_at = ?1,
                 error = 'interrupted: the lore server running it stopped answering; start it again'
                 WHERE status IN ('pending', 'running') AND heartbeat_at < ?2",
                args![now, now - JOB_EXPIRY_SECS],
            )
            .map(|n| n as usize)
    }

    /// Takes, or renews, the lease on `store_id` for `purpose` and `holder`, for `ttl_secs`
    /// from now. While another holder's lease lives, nothing changes and that holder is
    /// returned with when it took the lease. Atomic on both databases (one upsert), so of
    /// two servers asking at once exactly one gets it.
    pub fn take_store_lease(
        &self,
        store_id: i64,
        purpose: Lease,
        holder: &str,
        ttl_secs: i64,
    ) -> Result<Option<(String, i64)>, IndexError> {
        let now = now_secs();
        let taken = self.db.execute(
            "INSERT INTO store_leases (store_id, purpose, holder, since, expires_at) \
             VALUES (?1, ?2, ?3, ?4, ?5) \
             ON CONFLICT (store_id, purpose) DO UPDATE SET holder = excluded.holder, \
             since = CASE WHEN store_leases.holder = excluded.holder THEN store_leases.since \
             ELSE excluded.since END, expires_at = excluded.expires_at \
             WHERE store_leases.holder = excluded.holder OR store_leases.expires_at < ?4",
            args![store_id, purpose.as_str(), holder, now, now + ttl_secs],
        )?;
        if taken > 0 {
            return Ok(None);
        }
        self.db.query_opt(
            "SELECT holder, since FROM store_leases WHERE store_id = ?1 AND purpose = ?2",
            args![store_id, purpose.as_str()],
            |r| Ok((r.text(0)?, r.int(1)?)),
        )
    }

    /// The live lease on `store_id` for `purpose`, if any: its holder and since when.
    pub fn store_lease(
        &self,
        store_id: i64,
        purpose: Lease,
    ) -> Result<Option<(String, i64)>, IndexError> {
        self.db.query_opt(
            "SELECT holder, since FROM store_leases \
             WHERE store_id = ?1 AND purpose = ?2 AND expires_at >= ?3",
            args![store_id, purpose.as_str(), now_secs()],
            |r| Ok((r.text(0)?, r.int(1)?)),
        )
    }

    /// Gives up `holder`'s lease on `store_id` for `purpose` (nothing when another holds it).
    pub fn release_store_lease(
        &self,
        store_id: i64,
        purpose: Lease,
        holder: &str,
    ) -> Result<(), IndexError> {
        self.db.execute(
            "DELETE FROM store_leases WHERE store_id = ?1 AND purpose = ?2 AND holder = ?3",
            args![store_id, purpose.as_str(), holder],
        )?;
        Ok(())
    }

    /// Renews the heartbeat of the jobs `writer` has pending or running.
    pub fn heartbeat_jobs(&self, writer: &str) -> Result<usize, IndexError> {
        self.db
            .execute(
                "UPDATE jobs SET heartbeat_at = ?1 WHERE writer = ?2 \
                 AND status IN ('pending', 'running')",
                args![now_secs(), writer],
            )
            .map(|n| n as usize)
    }

    /// Marks the jobs process `pid` of `writer` was running as failed with `reason` (it died without
    /// finishing them); returns their ids.
    pub fn fail_jobs_of(
        &self,
        pid: u32,
        writer: &str,
        reason: &str,
    ) -> Result<Vec<String>, IndexError> {
        let ids = self.db.query(
            "SELECT id FROM jobs WHERE status = 'running' AND pid = ?1 \
             AND (writer IS NULL OR writer = ?2) ORDER BY seq",
            args![pid, writer],
            |r| r.text(0),
        )?;
        self.db.execute(
            "UPDATE jobs SET status = 'failed', finished_at = ?1, error = ?2 \
             WHERE status = 'running' AND pid = ?3 AND (writer IS NULL OR writer = ?4)",
            args![now_secs(), reason, pid, writer],
        )?;
        Ok(ids)
    }

    /// Deletes finished jobs that ended more than `max_age_secs` ago.
    pub fn delete_finished_jobs(&self, max_age_secs: i64) -> Result<usize, IndexError> {
        self.db
            .execute(
                "DELETE FROM jobs WHERE status IN ('done', 'failed', 'cancelled') AND finished_at < ?1",
                args![now_secs() - max_age_secs],
            )
            .map(|n| n as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn job_lifecycle() {
        let dir = tempfile::tempdir().unwrap();
        let catalog = Catalog::open(&dir.path().join("lore.db")).unwrap();
        let id = new_job_id();
        assert!(is_job_id(&id));
        assert!(!is_job_id("../../etc/passwd"));
        let job = catalog
            .create_job(&id, "index", &json!({"stores": ["a"]}), "w")
            .unwrap();
        assert_eq!(job.status, JobStatus::Pending);
        assert_eq!(job.spec["stores"][0], "a");

        let running = catalog.claim_job(&id, 7, "w").unwrap().unwrap();
        assert_eq!(running.status, JobStatus::Running);
        assert_eq!(running.pid, Some(7));
        assert!(
            catalog.claim_job(&id, 8, "w").unwrap().is_none(),
            "claimed once"
        );

        let p = JobProgress {
            files_done: 3,
            files_total: 10,
            ..Default::default()
        };
        assert!(!catalog.update_job_progress(&id, &p, Some("x")).unwrap());
        let flagged = catalog.request_job_cancel(&id).unwrap().unwrap();
        assert_eq!(flagged.status, JobStatus::Running);
        assert!(catalog.update_job_progress(&id, &p, None).unwrap());
        catalog
            .finish_job(&id, JobStatus::Cancelled, None, None)
            .unwrap();
        let done = catalog.job(&id).unwrap().unwrap();
        assert_eq!(done.status, JobStatus::Cancelled);
        assert_eq!(done.progress.files_done, 3);
        assert_eq!(done.message.as_deref(), Some("x"));

        // Done, a job's progress is whole and its last note from the way is gone.
        let finished = new_job_id();
        catalog
            .create_job(&finished, "index", &json!({}), "w")
            .unwrap();
        catalog
            .update_job_progress(&finished, &p, Some("2 batches wait"))
            .unwrap();
        catalog
            .finish_job(&finished, JobStatus::Done, Some(&json!({})), None)
            .unwrap();
        let done = catalog.job(&finished).unwrap().unwrap();
        assert_eq!(
            (done.progress.files_done, done.progress.files_total),
            (10, 10)
        );
        assert_eq!(done.message, None);

        // A pending job is cancelled at once.
        let other = new_job_id();
        catalog.create_job(&other, "sync", &json!({}), "w").unwrap();
        let c = catalog.request_job_cancel(&other).unwrap().unwrap();
        assert_eq!(c.status, JobStatus::Cancelled);
        assert!(catalog.claim_job(&other, 1, "w").unwrap().is_none());

        // Orphans fail; old finished jobs are deleted.
        let orphan = new_job_id();
        catalog.create_job(&orphan, "add", &json!({}), "w").unwrap();
        // Another writer's live job is not failed by this one starting, …
        let theirs = new_job_id();
        catalog
            .create_job(&theirs, "add", &json!({}), "other")
            .unwrap();
        catalog.claim_job(&theirs, 9, "other").unwrap();
        assert_eq!(catalog.heartbeat_jobs("other").unwrap(), 1);
        assert_eq!(catalog.fail_orphaned_jobs("w").unwrap(), 1);
        assert_eq!(
            catalog.job(&theirs).unwrap().unwrap().status,
            JobStatus::Running
        );
        assert!(catalog.fail_jobs_of(9, "w", "gone").unwrap().is_empty());
        // … until its heartbeat expires.
        catalog
            .sql()
            .execute(
                "UPDATE jobs SET heartbeat_at = heartbeat_at - ?1 WHERE id = ?2",
                args![JOB_EXPIRY_SECS + 1, theirs.as_str()],
            )
            .unwrap();
        assert_eq!(catalog.fail_orphaned_jobs("w").unwrap(), 1);
        assert_eq!(
            catalog.job(&orphan).unwrap().unwrap().status,
            JobStatus::Failed
        );
        // One index run per store: a live lease of another holder is reported, not taken.
        let (i, w) = (Lease::Index, Lease::Watch);
        assert_eq!(catalog.take_store_lease(1, i, "a", 60).unwrap(), None);
        assert_eq!(
            catalog.take_store_lease(1, i, "a", 60).unwrap(),
            None,
            "renewed"
        );
        let (holder, _) = catalog.take_store_lease(1, i, "b", 60).unwrap().unwrap();
        assert_eq!(holder, "a");
        assert_eq!(
            catalog.take_store_lease(1, w, "b", 60).unwrap(),
            None,
            "another purpose"
        );
        catalog.release_store_lease(1, i, "b").unwrap();
        assert!(catalog.take_store_lease(1, i, "b", 60).unwrap().is_some());
        catalog.release_store_lease(1, i, "a").unwrap();
        assert_eq!(catalog.take_store_lease(1, i, "b", -1).unwrap(), None);
        assert_eq!(
            catalog.take_store_lease(1, i, "a", 60).unwrap(),
            None,
            "b's expired"
        );
        assert!(catalog.take_store_lease(1, w, "a", 60).unwrap().is_some());
        assert_eq!(catalog.jobs(10).unwrap().len(), 5);
        assert_eq!(catalog.delete_finished_jobs(3600).unwrap(), 0);
        assert_eq!(catalog.delete_finished_jobs(-10).unwrap(), 5);
        assert!(catalog.jobs(10).unwrap().is_empty());
    }
}
