//! The shared brain, on PostgreSQL only: when servers share one catalog, it holds the
//! brain's notes and pages (`brain_files`, by path) and its session lines
//! (`brain_session_lines`, in the order they were logged) as the truth that each server's
//! brain dir mirrors. Every change to it is made under [`Catalog::lock_brain`], a session
//! advisory lock, which the server drops with the session if the holder dies. The embedded
//! backend has no such tables: on one machine the brain dir is the truth.

use crate::IndexError;
use crate::catalog::Catalog;
use crate::sql::args;
use std::collections::HashMap;

/// Key of the advisory lock every change to the shared brain holds ("lore_brn").
const BRAIN_LOCK_KEY: i64 = 0x6c6f_7265_5f62_726e;

impl Catalog {
    fn shared_only(&self) -> Result<(), IndexError> {
        if self.shares_brain() {
            Ok(())
        } else {
            Err(IndexError::Setup(format!(
                "{} is an embedded catalog: it keeps no shared brain",
                self.label()
            )))
        }
    }

    /// Waits for, then takes, the shared brain's lock (held until [`Catalog::unlock_brain`]
    /// or the end of this session).
    pub fn lock_brain(&self) -> Result<(), IndexError> {
        self.shared_only()?;
        self.db
            .batch(&format!("SELECT pg_advisory_lock({BRAIN_LOCK_KEY})"))
    }

    pub fn unlock_brain(&self) -> Result<(), IndexError> {
        self.shared_only()?;
        self.db
            .batch(&format!("SELECT pg_advisory_unlock({BRAIN_LOCK_KEY})"))
    }

    /// Every shared note and page: path → content hash.
    pub fn brain_hashes(&self) -> Result<HashMap<String, String>, IndexError> {
        self.shared_only()?;
        Ok(self
            .db
            .query("SELECT path, hash FROM brain_files", &[], |r| {
                Ok((r.text(0)?, r.text(1)?))
            })?
            .into_iter()
            .collect())
    }

    /// A shared file's content, if it is there.
    pub fn brain_content(&self, path: &str) -> Result<Option<String>, IndexError> {
        self.shared_only()?;
        self.db.query_opt(
            "SELECT content FROM brain_files WHERE path = ?1",
            args![path],
            |r| r.text(0),
        )
    }

    /// Shares a file (replacing its earlier content).
    pub fn put_brain_file(
        &self,
        path: &str,
        content: &str,
        hash: &str,
        writer: &str,
    ) -> Result<(), IndexError> {
        self.shared_only()?;
        self.db.execute(
            "INSERT INTO brain_files (path, content, hash, updated_at, writer) \
             VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (path) DO UPDATE SET \
             content = excluded.content, hash = excluded.hash, \
             updated_at = excluded.updated_at, writer = excluded.writer",
            args![path, content, hash, crate::catalog::now_secs(), writer],
        )?;
        Ok(())
    }

    pub fn remove_brain_file(&self, path: &str) -> Result<(), IndexError> {
        self.shared_only()?;
        self.db
            .execute("DELETE FROM brain_files WHERE path = ?1", args![path])?;
        Ok(())
    }

    /// Appends a session line (made whole by the brain, ending in a newline).
    pub fn append_session_line(
        &self,
        session_id: &str,
        line: &str,
        writer: &str,
    ) -> Result<(), IndexError> {
        self.shared_only()?;
        self.db.execute(
            "INSERT INTO brain_session_lines (session_id, line, writer) VALUES (?1, ?2, ?3)",
            args![session_id, line, writer],
        )?;
        Ok(())
    }

    /// Each session's newest line id (a session whose id moved has new lines).
    pub fn session_marks(&self) -> Result<HashMap<String, i64>, IndexError> {
        self.shared_only()?;
        Ok(self
            .db
            .query(
                "SELECT session_id, MAX(id) FROM brain_session_lines GROUP BY session_id",
                &[],
                |r| Ok((r.text(0)?, r.int(1)?)),
            )?
            .into_iter()
            .collect())
    }

    /// A session's lines, in the order they were logged.
    pub fn session_lines(&self, session_id: &str) -> Result<Vec<String>, IndexError> {
        self.shared_only()?;
        self.db.query(
            "SELECT line FROM brain_session_lines WHERE session_id = ?1 ORDER BY id",
            args![session_id],
            |r| r.text(0),
        )
    }
}
