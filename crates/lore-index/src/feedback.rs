//! Feedback on results, kept in the catalog (both backends): which unit a client found
//! useful or not, opened after a search, with the query's analysed terms. Rows are keyed by
//! chunk id, which hashes the chunk's content: a unit that changes starts afresh. A store
//! keeps at most [`MAX_ROWS_PER_STORE`] rows (the oldest go first) and rows older than the
//! retention are dropped when new ones come.

use crate::IndexError;
use crate::catalog::{Catalog, now_secs};
use crate::sql::{Arg, args};
use serde::Serialize;

/// Most rows kept per store.
pub const MAX_ROWS_PER_STORE: i64 = 10_000;

/// One signal.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FeedbackRow {
    pub store_id: i64,
    pub chunk_id: i64,
    /// The query's analysed terms, space-separated (empty: no query given).
    pub terms: String,
    /// Positive for useful or opened, negative for not useful.
    pub weight: f64,
    /// `useful`, `not_useful`, `opened`.
    pub kind: String,
    /// Who sent it (a hash of the token, `local`, `cli`).
    pub client: String,
    /// Unix seconds.
    pub at: i64,
    /// An opened result's place (1-based) in the search that showed it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shown_rank: Option<i64>,
}

const COLUMNS: &str = "store_id, chunk_id, terms, weight, kind, client, at, shown_rank";

fn row(r: &mut crate::sql::Row) -> Result<FeedbackRow, crate::sql::SqlError> {
    Ok(FeedbackRow {
        store_id: r.int(0)?,
        chunk_id: r.int(1)?,
        terms: r.text(2)?,
        weight: r.opt_real(3)?.unwrap_or(0.0),
        kind: r.text(4)?,
        client: r.text(5)?,
        at: r.int(6)?,
        shown_rank: r.opt_int(7)?,
    })
}

impl Catalog {
    /// Bytes the feedback rows and their indexes take (every store's).
    pub fn feedback_bytes(&self) -> Result<u64, IndexError> {
        let sql = match self.dialect() {
            crate::Dialect::Sqlite => {
                "SELECT COALESCE(SUM(pgsize), 0) FROM dbstat \
                 WHERE name IN ('feedback', 'feedback_by_chunk', 'feedback_by_store')"
            }
            crate::Dialect::Postgres => "SELECT pg_total_relation_size('feedback')",
        };
        Ok(self.db.query_int(sql, &[])?.max(0) as u64)
    }

    /// Records `row` (its `at` set to now when 0), then trims the store to its bound and
    /// its retention (`retention_secs`; 0 keeps rows forever).
    pub fn add_feedback(&self, row: &FeedbackRow, retention_secs: i64) -> Result<(), IndexError> {
        let at = if row.at == 0 { now_secs() } else { row.at };
        self.db.execute(
            "INSERT INTO feedback (store_id, chunk_id, terms, weight, kind, client, at, shown_rank) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            args![
                row.store_id,
                row.chunk_id,
                &row.terms,
                Arg::Real(row.weight),
                &row.kind,
                &row.client,
                at,
                row.shown_rank
            ],
        )?;
        if retention_secs > 0 {
            self.db.execute(
                "DELETE FROM feedback WHERE store_id = ?1 AND at < ?2",
                args![row.store_id, at - retention_secs],
            )?;
        }
        let n = self.db.query_int(
            "SELECT COUNT(*) FROM feedback WHERE store_id = ?1",
            args![row.store_id],
        )?;
        if n > MAX_ROWS_PER_STORE {
            self.db.execute(
                "DELETE FROM feedback WHERE store_id = ?1 AND at <= (SELECT at FROM feedback \
                 WHERE store_id = ?1 ORDER BY at ASC LIMIT 1 OFFSET ?2)",
                args![row.store_id, n - MAX_ROWS_PER_STORE - 1],
            )?;
        }
        self.feedback_changed(Some(row.store_id))
    }

    /// Moves the feedback number of a store (`None`: of every store), after its rows
    /// changed: a reader that read them before sees a new number and reads them again.
    fn feedback_changed(&self, store_id: Option<i64>) -> Result<(), IndexError> {
        match store_id {
            Some(id) => self.db.execute(
                "UPDATE stores SET feedback_seq = feedback_seq + 1 WHERE id = ?1",
                args![id],
            )?,
            None => self
                .db
                .execute("UPDATE stores SET feedback_seq = feedback_seq + 1", &[])?,
        };
        Ok(())
    }

    /// Every row of a store, newest first (at most [`MAX_ROWS_PER_STORE`], so a bounded
    /// read): what searches learn from, read again when its `feedback_seq` moves.
    pub fn feedback_of_store(&self, store_id: i64) -> Result<Vec<FeedbackRow>, IndexError> {
        self.db.query(
            &format!("SELECT {COLUMNS} FROM feedback WHERE store_id = ?1 ORDER BY at DESC"),
            args![store_id],
            row,
        )
    }

    /// A store's rows, newest first (`None`: every store's).
    pub fn feedback_list(
        &self,
        store_id: Option<i64>,
        limit: usize,
    ) -> Result<Vec<FeedbackRow>, IndexError> {
        let (filter, a): (&str, Vec<Arg>) = match store_id {
            Some(id) => ("WHERE store_id = ?1", vec![id.into()]),
            None => ("", Vec::new()),
        };
        let sql = format!(
            "SELECT {COLUMNS} FROM feedback {filter} ORDER BY at DESC LIMIT {}",
            limit.max(1)
        );
        self.db.query(&sql, &a, row)
    }

    /// Forgets every row one client sent; returns how many.
    pub fn feedback_forget_client(&self, client: &str) -> Result<u64, IndexError> {
        let n = self
            .db
            .execute("DELETE FROM feedback WHERE client = ?1", args![client])?;
        self.feedback_changed(None)?;
        Ok(n)
    }

    /// Forgets a store's feedback (`None`: every store's); returns how many rows went.
    pub fn feedback_reset(&self, store_id: Option<i64>) -> Result<u64, IndexError> {
        let n = match store_id {
            Some(id) => self
                .db
                .execute("DELETE FROM feedback WHERE store_id = ?1", args![id])?,
            None => self.db.execute("DELETE FROM feedback", &[])?,
        };
        self.feedback_changed(store_id)?;
        Ok(n)
    }
}
