//! Index batches (PostgreSQL): the files of an index run, split into batches that any
//! `lore worker` on any machine claims, indexes and marks done. A claim is a lease: a
//! batch whose holder died (its lease ran out) is claimed again by another, and since a
//! batch writes each of its files by replacing it whole, doing one twice leaves what doing
//! it once does. The run's coordinator waits for its batches, then resolves the store's
//! code graph once from what they report.

use crate::IndexError;
use crate::catalog::{Catalog, now_secs};
use crate::sql::args;

/// One claimed batch: the files of `store_id` to index for run `run_id`.
#[derive(Debug, Clone, PartialEq)]
pub struct Batch {
    pub id: i64,
    pub store_id: i64,
    pub run_id: String,
    pub paths: Vec<String>,
    /// Read and chunk every file again, even one whose content did not change (a full
    /// run, or a new analyzer).
    pub reanalyze: bool,
    /// A repository store's commit the run indexes: a worker on another machine fetches
    /// it into a clone of its own.
    pub revision: Option<String>,
    /// How many times it was claimed, this claim included (above 1: a holder died).
    pub attempts: i64,
}

/// What a worker reports of a batch it indexed (the graph is resolved from it).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BatchDone {
    /// The files whose chunks and facts were written.
    pub changed_paths: Vec<String>,
    /// Files new to the store, edited, or read again with the same content.
    pub added: usize,
    pub changed: usize,
    pub reanalyzed: usize,
    /// Files with another size or mtime but the same content.
    pub unchanged: usize,
    /// Files no longer indexable: (path, why).
    pub skipped: Vec<(String, String)>,
    /// The symbol names whose references the graph must resolve again.
    pub dirty_names: Vec<String>,
    /// Too many names changed to list them: the graph is resolved again whole.
    #[serde(default)]
    pub resolve_all: bool,
    pub chunks_written: usize,
    pub embedded: usize,
}

/// Where a run stands.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunProgress {
    pub batches: u64,
    pub done: u64,
    /// Claimed now by a holder whose lease lives.
    pub claimed: u64,
    /// The first batch given up after [`BATCH_ATTEMPTS`] claims: its last holder and why.
    pub failed: Option<String>,
}

/// What one holder (a worker, or the run's own process) did of a run: batches done, and
/// claimed now.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct HolderShare {
    pub holder: String,
    pub done: u64,
    pub working: u64,
}

/// Claims of one batch before it is given up (each ended by an error or a dead holder).
pub const BATCH_ATTEMPTS: i64 = 3;

impl Catalog {
    fn batches_table(&self) -> Result<(), IndexError> {
        if self.holds_indexes() {
            Ok(())
        } else {
            Err(IndexError::Setup(
                "index workers share a PostgreSQL catalog: run with --database".into(),
            ))
        }
    }

    /// Records the batches of run `run_id` of `store_id`, one per element of `batches`.
    pub fn enqueue_batches(
        &self,
        store_id: i64,
        run_id: &str,
        reanalyze: bool,
        revision: Option<&str>,
        batches: &[Vec<String>],
    ) -> Result<(), IndexError> {
        self.batches_table()?;
        let now = now_secs();
        for paths in batches {
            let paths = serde_json::Value::from(paths.clone()).to_string();
            self.db.execute(
                "INSERT INTO index_batches \
                 (store_id, run_id, paths, reanalyze, revision, state, created_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5, 'pending', ?6)",
                args![store_id, run_id, paths, reanalyze, revision, now],
            )?;
        }
        Ok(())
    }

    /// Claims the oldest batch that is pending or whose holder's lease ran out, for
    /// `holder` and `lease_secs`; `run_id` limits it to one run, and the stores of
    /// `skip_stores` are left to others. Workers on any number of machines never claim one
    /// batch at once (`FOR UPDATE SKIP LOCKED`); one claimed [`BATCH_ATTEMPTS`] times is
    /// not claimed again.
    pub fn claim_batch(
        &self,
        holder: &str,
        lease_secs: i64,
        run_id: Option<&str>,
        skip_stores: &[i64],
    ) -> Result<Option<Batch>, IndexError> {
        self.batches_table()?;
        let now = now_secs();
        let skip = skip_stores
            .iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(",");
        let row = self.db.query_opt(
            "UPDATE index_batches SET state = 'claimed', holder = ?1, lease_expires = ?2, \
             attempts = attempts + 1 \
             WHERE id = (SELECT id FROM index_batches \
               WHERE (state = 'pending' OR (state = 'claimed' AND lease_expires < ?3 \
               AND attempts < ?6)) \
               AND (?4::text IS NULL OR run_id = ?4) \
               AND NOT (store_id::text = ANY(string_to_array(?5, ','))) \
               ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) \
             RETURNING id, store_id, run_id, paths, attempts, reanalyze, revision",
            args![holder, now + lease_secs, now, run_id, skip, BATCH_ATTEMPTS],
            |r| {
                Ok((
                    (r.int(0)?, r.int(1)?, r.text(2)?),
                    (r.text(3)?, r.int(4)?, r.bool(5)?, r.opt_text(6)?),
                ))
            },
        )?;
        let Some(((id, store_id, run_id), (paths, attempts, reanalyze, revision))) = row else {
            return Ok(None);
        };
        let paths = serde_json::from_str(&paths)
            .map_err(|e| IndexError::Corrupt(format!("batch {id}'s paths: {e}")))?;
        Ok(Some(Batch {
            id,
            store_id,
            run_id,
            paths,
            reanalyze,
            revision,
            attempts,
        }))
    }

    /// Renews `holder`'s lease on batch `id`; false when it is no longer theirs (it ran
    /// out and another holder claimed it, or the run was dropped).
    pub fn renew_batch(&self, id: i64, holder: &str, lease_secs: i64) -> Result<bool, IndexError> {
        Ok(self.db.execute(
            "UPDATE index_batches SET lease_expires = ?3 \
             WHERE id = ?1 AND holder = ?2 AND state = 'claimed'",
            args![id, holder, now_secs() + lease_secs],
        )? == 1)
    }

    /// Marks batch `id` done with what it wrote; false when it was not `holder`'s any more
    /// (another holder redoes it, which writes the same).
    pub fn finish_batch(
        &self,
        id: i64,
        holder: &str,
        done: &BatchDone,
    ) -> Result<bool, IndexError> {
        let report = serde_json::to_value(done).unwrap_or_default().to_string();
        Ok(self.db.execute(
            "UPDATE index_batches SET state = 'done', report = ?3, finished_at = ?4 \
             WHERE id = ?1 AND holder = ?2 AND state = 'claimed'",
            args![id, holder, report, now_secs()],
        )? == 1)
    }

    /// Hands batch `id` back because `holder` could not index it (`why`): pending again for
    /// another claim, or failed once it was claimed [`BATCH_ATTEMPTS`] times. `counted`
    /// false gives this claim back too (the holder cannot see the store's files, and says
    /// nothing of the batch). False when it was not `holder`'s any more.
    pub fn give_back_batch(
        &self,
        id: i64,
        holder: &str,
        why: &str,
        counted: bool,
    ) -> Result<bool, IndexError> {
        Ok(self.db.execute(
            "UPDATE index_batches SET attempts = attempts - ?4, \
             state = CASE WHEN attempts - ?4 >= ?5 THEN 'failed' ELSE 'pending' END, \
             report = ?3, lease_expires = NULL, finished_at = ?6 \
             WHERE id = ?1 AND holder = ?2 AND state = 'claimed'",
            args![
                id,
                holder,
                why,
                i64::from(!counted),
                BATCH_ATTEMPTS,
                now_secs()
            ],
        )? == 1)
    }

    pub fn run_progress(&self, run_id: &str) -> Result<RunProgress, IndexError> {
        self.batches_table()?;
        let failed = self.db.query_opt(
            "SELECT id, holder, report FROM index_batches \
             WHERE run_id = ?1 AND state = 'failed' ORDER BY id LIMIT 1",
            args![run_id],
            |r| Ok((r.int(0)?, r.opt_text(1)?, r.opt_text(2)?)),
        )?;
        let failed = failed.map(|(id, holder, why)| {
            format!(
                "batch {id} failed {BATCH_ATTEMPTS} times, last on {}: {}",
                holder.as_deref().unwrap_or("?"),
                why.as_deref().unwrap_or("no reason given")
            )
        });
        Ok(self
            .db
            .query_opt(
                "SELECT COUNT(*), COUNT(*) FILTER (WHERE state = 'done'), \
                 COUNT(*) FILTER (WHERE state = 'claimed' AND lease_expires >= ?2) \
                 FROM index_batches WHERE run_id = ?1",
                args![run_id, now_secs()],
                |r| {
                    Ok(RunProgress {
                        batches: r.int(0)? as u64,
                        done: r.int(1)? as u64,
                        claimed: r.int(2)? as u64,
                        failed: failed.clone(),
                    })
                },
            )?
            .unwrap_or_default())
    }

    /// Who did (and does) a run's batches, by holder name.
    pub fn run_holders(&self, run_id: &str) -> Result<Vec<HolderShare>, IndexError> {
        self.batches_table()?;
        self.db.query(
            "SELECT holder, COUNT(*) FILTER (WHERE state = 'done'), \
             COUNT(*) FILTER (WHERE state = 'claimed' AND lease_expires >= ?2) \
             FROM index_batches WHERE run_id = ?1 AND holder IS NOT NULL \
             GROUP BY holder ORDER BY holder",
            args![run_id, now_secs()],
            |r| {
                Ok(HolderShare {
                    holder: r.text(0)?,
                    done: r.int(1)? as u64,
                    working: r.int(2)? as u64,
                })
            },
        )
    }

    /// What the done batches of a run report, in batch order.
    pub fn run_reports(&self, run_id: &str) -> Result<Vec<BatchDone>, IndexError> {
        self.batches_table()?;
        let rows = self.db.query(
            "SELECT id, report FROM index_batches WHERE run_id = ?1 AND state = 'done' ORDER BY id",
            args![run_id],
            |r| Ok((r.int(0)?, r.opt_text(1)?)),
        )?;
        rows.into_iter()
            .map(|(id, report)| {
                serde_json::from_str(report.as_deref().unwrap_or("{}"))
                    .map_err(|e| IndexError::Corrupt(format!("batch {id}'s report: {e}")))
            })
            .collect()
    }

    /// Forgets the batches of every run of `store_id` (a run starting under the store's
    /// lease knows any other is dead: its coordinator stopped before dropping them).
    pub fn drop_store_runs(&self, store_id: i64) -> Result<(), IndexError> {
        self.batches_table()?;
        self.db.execute(
            "DELETE FROM index_batches WHERE store_id = ?1",
            args![store_id],
        )?;
        Ok(())
    }

    /// Forgets a run's batches (it finished, or its coordinator gave up).
    pub fn drop_run(&self, run_id: &str) -> Result<(), IndexError> {
        self.batches_table()?;
        self.db
            .execute("DELETE FROM index_batches WHERE run_id = ?1", args![run_id])?;
        Ok(())
    }
}
