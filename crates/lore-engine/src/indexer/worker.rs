//! Indexing through batches that `lore worker`s on any machine share (PostgreSQL). The
//! run's coordinator plans it and lands its deletions, then enqueues its files in batches;
//! a worker (and the coordinator too, with `Workers::Share`) claims a batch, reads,
//! chunks and embeds its files and commits them as a local run commits a batch; the
//! coordinator waits for every batch, then resolves the code graph once from what they
//! report. A worker reads a folder store's files at the store's root on its own machine:
//! a path shared by every machine (a network mount), since shipping contents through the
//! database would send every byte twice and still need the same paths for the graph.

use super::commit::Commits;
use super::plan::Plan;
use super::prepare::{EMBED_STEP, Prepared, prepare_all};
use super::{IndexReport, SkippedFile};
use crate::{Engine, EngineError, NoProgress, Phase, Progress};
use lore_core::StoreKind;
use lore_embed::Embedder;
use lore_index::{Batch, BatchDone, IndexError, StoreRecord};
use lore_source::{SourceFile, Walk, git};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How an index run on PostgreSQL shares its work with `lore worker`s.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Workers {
    /// This process indexes alone (the default).
    #[default]
    None,
    /// The run's files go to batches that this process and any worker claim.
    Share,
    /// The run's files go to batches for workers only; this process plans, waits and
    /// resolves the graph.
    Only,
}

impl Workers {
    pub const ALL: [Workers; 3] = [Workers::None, Workers::Share, Workers::Only];

    pub fn as_str(self) -> &'static str {
        match self {
            Workers::None => "none",
            Workers::Share => "share",
            Workers::Only => "only",
        }
    }
}

/// How long a claimed batch stays its holder's without a renewal (renewed between
/// steps; a killed worker's batch is claimed again after it).
pub const BATCH_LEASE_SECS: i64 = 60;

/// Files per batch at most: small enough that several workers share a store of a few
/// hundred files, large enough that a claim's round trips stay a small part of it.
const BATCH_FILES: usize = 50;

/// How often a waiting coordinator or an idle worker looks for batches.
const POLL: Duration = Duration::from_millis(250);

/// How long a worker waits after a failed batch or an unreachable database.
const UNREACHABLE_WAIT: Duration = Duration::from_secs(2);
/// How long a worker leaves the batches of a store it could not see to other workers
/// before it looks again (a shared path mounted, a clone made reachable).
const ELSEWHERE_RECHECK: Duration = Duration::from_secs(60);

/// What a run's commits did that the code graph needs, merged.
pub(super) struct Committed {
    pub changed_paths: Vec<String>,
    pub dirty_names: Vec<String>,
    /// A file indexed before is no longer indexable, or too many names changed to list
    /// them: the whole graph is resolved again.
    pub resolve_all: bool,
}

/// What `lore worker` did until it stopped.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct WorkerReport {
    pub batches: usize,
    pub files: usize,
    pub chunks_written: usize,
    pub embedded: usize,
    /// Batches claimed after another holder's lease ran out.
    pub reclaimed: usize,
    /// Batches this worker could not index (given back for another claim).
    pub failed: usize,
    /// Batches whose lease ran out while this worker had them (another took them over).
    pub lost: usize,
}

impl Engine {
    /// Runs `plan` through batches (see the module): lands the deletions here, enqueues
    /// the files to read, works batches here too with `Workers::Share`, and waits for the
    /// rest. Fills `report` from the batches' reports.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn index_by_batches(
        &mut self,
        store: &StoreRecord,
        plan: &Plan,
        full: bool,
        generation: i64,
        embedder: Option<&Embedder>,
        progress: &dyn Progress,
        report: &mut IndexReport,
    ) -> Result<Committed, EngineError> {
        let mut run = Commits::new(None, generation, full, plan);
        self.commit_batch(store, plan, &mut run, &[], &[], report)?;
        let paths: Vec<String> = plan.todo().map(|f| f.rel.clone()).collect();
        let batches: Vec<Vec<String>> = paths
            .chunks(self.config.commit_every_files.clamp(1, BATCH_FILES))
            .map(<[String]>::to_vec)
            .collect();
        let run_id = lore_index::new_job_id();
        self.catalog.drop_store_runs(store.id)?;
        // A repository's commit, for workers that fetch it into a clone of their own.
        let revision = (store.kind == StoreKind::Repo)
            .then(|| git::head(&store.root).ok())
            .flatten();
        self.catalog.enqueue_batches(
            store.id,
            &run_id,
            plan.reanalyze,
            revision.as_deref(),
            &batches,
        )?;
        let holder = worker_name("index");
        progress.start(Phase::Files, paths.len() as u64);
        let outcome = self.await_batches(store, &run_id, &batches, &holder, embedder, progress);
        progress.finish(Phase::Files);
        let reports = self.catalog.run_reports(&run_id);
        if let Ok(holders) = self.catalog.run_holders(&run_id) {
            report.workers = holders.into_iter().filter(|h| h.done > 0).collect();
        }
        // A dropped run's batches are gone: a worker still on one commits its files
        // (the same they would be) and is told the batch is no longer its.
        self.catalog.drop_run(&run_id)?;
        outcome?;
        let mut out = Committed {
            changed_paths: run.changed_paths,
            dirty_names: run.dirty_names,
            resolve_all: run.all_dirty,
        };
        for done in reports? {
            report.added += done.added;
            report.changed += done.changed;
            report.reanalyzed += done.reanalyzed;
            report.unchanged += done.unchanged;
            report.chunks_written += done.chunks_written;
            report.embedded += done.embedded;
            out.resolve_all |= !done.skipped.is_empty() || done.resolve_all;
            report.skipped.extend(
                done.skipped
                    .into_iter()
                    .map(|(path, reason)| SkippedFile { path, reason }),
            );
            out.changed_paths.extend(done.changed_paths);
            super::commit::note_dirty(&mut out.dirty_names, &mut out.resolve_all, done.dirty_names);
        }
        Ok(out)
    }

    /// Works the run's batches here (with `Workers::Share`) and waits until every one is
    /// done, showing their files as done; a batch given up by the workers ends the run.
    fn await_batches(
        &mut self,
        store: &StoreRecord,
        run_id: &str,
        batches: &[Vec<String>],
        holder: &str,
        embedder: Option<&Embedder>,
        progress: &dyn Progress,
    ) -> Result<(), EngineError> {
        let mut shown = 0;
        let mut waiting_said = false;
        let mut by_worker = String::new();
        loop {
            if progress.cancelled() {
                return Err(EngineError::Cancelled);
            }
            let claimed = match self.config.workers {
                Workers::Share => {
                    self.catalog
                        .claim_batch(holder, BATCH_LEASE_SECS, Some(run_id), &[])?
                }
                _ => None,
            };
            let worked = claimed.is_some();
            if let Some(batch) = claimed
                && let Some(done) =
                    self.work_batch(&batch, &store.root, holder, BATCH_LEASE_SECS, embedder)?
            {
                self.catalog.finish_batch(batch.id, holder, &done)?;
            }
            let now = self.catalog.run_progress(run_id)?;
            if let Some(why) = now.failed {
                return Err(EngineError::Input(format!(
                    "store {}: {why}; fix that and run `lore index {}` again",
                    store.name, store.name
                )));
            }
            if now.done == now.batches {
                return Ok(());
            }
            if now.claimed == 0 && !waiting_said && self.config.workers == Workers::Only {
                progress.message(&format!(
                    "{} batches wait for a `lore worker` on this database",
                    now.batches - now.done
                ));
                waiting_said = true;
            }
            // Who works on the run, as the job's message (`lore jobs show`).
            let holders = self.catalog.run_holders(run_id)?;
            let said: Vec<String> = holders
                .iter()
                .filter(|h| h.done + h.working > 0)
                .map(|h| format!("{} {} done, {} working", h.holder, h.done, h.working))
                .collect();
            if !said.is_empty() {
                let line = format!(
                    "{}/{} batches done; by worker: {}",
                    now.done,
                    now.batches,
                    said.join("; ")
                );
                if line != by_worker {
                    progress.message(&line);
                    by_worker = line;
                }
            }
            let files: usize = batches[..(now.done as usize).min(batches.len())]
                .iter()
                .map(Vec::len)
                .sum();
            progress.advance(Phase::Files, files.saturating_sub(shown) as u64);
            shown = shown.max(files);
            self.renew_store_lease(store)?;
            if !worked {
                std::thread::sleep(POLL);
            }
        }
    }

    /// Indexes one claimed batch: reads its files under `root` (the store's, or a worker's
    /// own clone of its repository), chunks them, embeds the chunks that have no vector yet
    /// and commits, as a local run commits a batch. `None` when the batch stopped being
    /// `holder`'s meanwhile (nothing written then).
    fn work_batch(
        &mut self,
        batch: &Batch,
        root: &Path,
        holder: &str,
        lease_secs: i64,
        embedder: Option<&Embedder>,
    ) -> Result<Option<BatchDone>, EngineError> {
        let store = self
            .catalog
            .store_by_id(batch.store_id)?
            .ok_or_else(|| IndexError::StoreNotFound(format!("#{}", batch.store_id)))?;
        let embedder = embedder.filter(|_| !crate::record::lexical_only(&store));
        if let Some(e) = embedder {
            self.check_embedder(&store, e, true)?;
        }
        let wanted: Vec<&str> = batch.paths.iter().map(String::as_str).collect();
        let manifest = self.catalog.file_records(store.id, &wanted)?;
        // Read beneath the root's handle, as a walk reads (no link followed).
        let tree = lore_source::Tree::open(root, &self.walk_options(&store).reads)?;
        let mut files = Vec::new();
        for rel in &batch.paths {
            // Gone since the run was planned: the next run deletes it.
            let Some((size, mtime_ns)) = tree.file_stat(rel) else {
                continue;
            };
            files.push(SourceFile {
                rel: rel.clone(),
                abs: tree.real().join(rel),
                size,
                mtime_ns,
            });
        }
        let plan = Plan {
            todo: (0..files.len()).collect(),
            walk: Walk {
                tree: Some(std::sync::Arc::new(tree)),
                files,
                ..Walk::default()
            },
            manifest,
            reanalyze: batch.reanalyze,
            rebuild: false,
            deleted: Vec::new(),
        };
        let prepared = prepare_all(&plan, store.max_file_bytes, &self.config.chunk, &NoProgress);
        // The vectors each changed file's chunks have already, then the rest embedded
        // across the batch in steps, the lease renewed after each.
        let mut vectors: Vec<Vec<Option<Vec<f32>>>> = Vec::with_capacity(prepared.len());
        let mut missing: Vec<(usize, usize, String)> = Vec::new();
        for (i, p) in prepared.iter().enumerate() {
            vectors.push(match p {
                Prepared::Changed { file, chunks, .. } if embedder.is_some() => {
                    // A worker's batch deletes nothing: the planner's run does.
                    let known =
                        self.known_vectors(store.id, &file.path, chunks, &Default::default())?;
                    for (j, v) in known.iter().enumerate() {
                        if v.is_none() {
                            missing.push((i, j, chunks[j].index_text()));
                        }
                    }
                    known
                }
                _ => Vec::new(),
            });
        }
        if !self.catalog.renew_batch(batch.id, holder, lease_secs)? {
            return Ok(None);
        }
        if let Some(e) = embedder {
            for step in missing.chunks(EMBED_STEP) {
                let texts: Vec<&str> = step.iter().map(|m| m.2.as_str()).collect();
                for ((i, j, _), v) in step.iter().zip(e.embed(&texts)?) {
                    vectors[*i][*j] = Some(v);
                }
                if !self.catalog.renew_batch(batch.id, holder, lease_secs)? {
                    return Ok(None);
                }
            }
        }
        let generation = self
            .catalog
            .store_by_id(store.id)?
            .map_or(store.generation, |s| s.generation);
        let mut run = Commits::new(None, generation, false, &plan);
        let mut report = IndexReport::default();
        self.commit_batch(&store, &plan, &mut run, &prepared, &vectors, &mut report)?;
        Ok(Some(BatchDone {
            changed_paths: run.changed_paths,
            dirty_names: run.dirty_names,
            resolve_all: run.all_dirty,
            added: report.added,
            changed: report.changed,
            reanalyzed: report.reanalyzed,
            unchanged: report.unchanged,
            skipped: report
                .skipped
                .into_iter()
                .map(|s| (s.path, s.reason))
                .collect(),
            chunks_written: report.chunks_written,
            embedded: if embedder.is_some() { missing.len() } else { 0 },
        }))
    }

    /// `lore worker`: claims batches of any store's index runs on this database and
    /// indexes them, until `stop` says so (or, with `until_idle`, until none is left).
    pub fn run_worker(
        &mut self,
        lease_secs: i64,
        until_idle: bool,
        stop: &dyn Fn() -> bool,
        progress: &dyn Progress,
    ) -> Result<WorkerReport, EngineError> {
        if !self.catalog.holds_indexes() {
            return Err(IndexError::Setup(
                "lore worker indexes for a PostgreSQL catalog: run it with --database".into(),
            )
            .into());
        }
        // The model is loaded (fetched if need be) for the first batch of a store kept
        // with vectors, not before: a worker for `--embed none` stores needs none. Without
        // it the batches are committed unembedded; the run's coordinator embeds what is
        // left at its end.
        let mut embedder = None;
        let mut model_tried = !self.config.embed;
        let holder = worker_name("worker");
        tracing::info!(
            worker = %holder,
            lease_secs,
            "worker started: claiming batches of index runs on this database"
        );
        let mut report = WorkerReport::default();
        // Stores whose files are not at their root on this machine: left to other workers.
        let mut elsewhere: Vec<i64> = Vec::new();
        let mut elsewhere_since = Instant::now();
        // When the database stopped answering (logged once per outage, and when it is back).
        let mut outage: Option<Instant> = None;
        while !stop() {
            if !elsewhere.is_empty() && elsewhere_since.elapsed() >= ELSEWHERE_RECHECK {
                elsewhere.clear();
            }
            let claimed = self
                .catalog
                .claim_batch(&holder, lease_secs, None, &elsewhere);
            if let (Some(since), Ok(_)) = (outage, &claimed) {
                tracing::info!(
                    down_secs = since.elapsed().as_secs(),
                    "the database answers again"
                );
                outage = None;
            }
            let batch = match claimed {
                Ok(Some(batch)) => batch,
                Ok(None) if until_idle => break,
                Ok(None) => {
                    std::thread::sleep(POLL);
                    continue;
                }
                // The database restarts or the network drops: wait for it, as a server does.
                Err(e) if e.is_unreachable() => {
                    if outage.is_none() {
                        tracing::warn!(error = %e, "the database does not answer; trying again");
                        outage = Some(Instant::now());
                    }
                    std::thread::sleep(UNREACHABLE_WAIT);
                    continue;
                }
                Err(e) => return Err(e.into()),
            };
            tracing::info!(
                batch = batch.id,
                store = batch.store_id,
                files = batch.paths.len(),
                attempt = batch.attempts,
                "claimed batch {}",
                batch.id
            );
            let root = match self.batch_root(&batch, progress) {
                Ok(Ok(root)) => Ok(root),
                Ok(Err(why)) => {
                    tracing::warn!(
                        batch = batch.id,
                        store = batch.store_id,
                        "gave back batch {}: {why}; other workers may take it",
                        batch.id
                    );
                    self.catalog
                        .give_back_batch(batch.id, &holder, &why, false)?;
                    if elsewhere.is_empty() {
                        elsewhere_since = Instant::now();
                    }
                    elsewhere.push(batch.store_id);
                    continue;
                }
                Err(e) => Err(e),
            };
            if !model_tried && self.batch_wants_vectors(&batch)? {
                model_tried = true;
                embedder = match self.embedder(true, progress) {
                    Ok(e) => Some(e),
                    Err(e) => {
                        tracing::warn!(
                            "no embedding model ({e}): committing chunks without vectors"
                        );
                        None
                    }
                };
            }
            let done = match root.and_then(|root: PathBuf| {
                self.work_batch(&batch, &root, &holder, lease_secs, embedder.as_deref())
            }) {
                Ok(Some(done)) => done,
                Ok(None) => {
                    tracing::warn!(
                        batch = batch.id,
                        "batch {}: its lease was lost (another worker has it now)",
                        batch.id
                    );
                    report.lost += 1;
                    continue;
                }
                Err(e) => {
                    // Another claim may succeed (another machine, the embedder back); the
                    // third failure ends the run with this message.
                    let why = e.to_string();
                    tracing::warn!(
                        batch = batch.id,
                        store = batch.store_id,
                        "batch {} failed: {why}; given back to be retried",
                        batch.id
                    );
                    if let Err(e) = self.catalog.give_back_batch(batch.id, &holder, &why, true) {
                        tracing::warn!(
                            batch = batch.id,
                            "batch {}: {e} (its lease runs out)",
                            batch.id
                        );
                    }
                    report.failed += 1;
                    std::thread::sleep(UNREACHABLE_WAIT);
                    continue;
                }
            };
            if self.catalog.finish_batch(batch.id, &holder, &done)? {
                report.batches += 1;
                report.reclaimed += usize::from(batch.attempts > 1);
                report.files += batch.paths.len();
                report.chunks_written += done.chunks_written;
                report.embedded += done.embedded;
                tracing::info!(
                    batch = batch.id,
                    store = batch.store_id,
                    files = batch.paths.len(),
                    chunks = done.chunks_written,
                    embedded = done.embedded,
                    "finished batch {}",
                    batch.id
                );
            } else {
                tracing::warn!(
                    batch = batch.id,
                    "batch {}: its lease was lost before it was finished (another worker has it now)",
                    batch.id
                );
                report.lost += 1;
            }
        }
        tracing::info!(
            batches = report.batches,
            files = report.files,
            chunks = report.chunks_written,
            failed = report.failed,
            lost = report.lost,
            "worker stopping"
        );
        Ok(report)
    }
}

impl Engine {
    /// Whether `batch`'s store keeps vectors (not `--embed none`).
    fn batch_wants_vectors(&self, batch: &Batch) -> Result<bool, EngineError> {
        Ok(self
            .catalog
            .store_by_id(batch.store_id)?
            .is_some_and(|s| !crate::record::lexical_only(&s)))
    }

    /// Where a worker reads a batch's files: the store's root when this machine sees it
    /// (a folder on a shared path; a repository cloned here), else, for a repository, a
    /// clone of its own in this data dir, brought to the run's commit. `Ok(Err(why))`:
    /// not on this machine (other workers may see it).
    fn batch_root(
        &self,
        batch: &Batch,
        progress: &dyn Progress,
    ) -> Result<Result<PathBuf, String>, EngineError> {
        let store = self
            .catalog
            .store_by_id(batch.store_id)?
            .ok_or_else(|| IndexError::StoreNotFound(format!("#{}", batch.store_id)))?;
        let here = store
            .host
            .as_deref()
            .is_none_or(|h| h == crate::record::host_name());
        let (Some(revision), StoreKind::Repo, false) = (&batch.revision, store.kind, here) else {
            if !store.root.is_dir() {
                return Ok(Err(format!(
                    "store {}'s files are not at {} on {}",
                    store.name,
                    store.root.display(),
                    crate::record::host_name()
                )));
            }
            self.check_source(&store)?;
            // On another machine than the store's, an empty mount point is a folder too:
            // the planner saw these files there, so a root that holds none of them is not
            // the folder it saw.
            if !here
                && !batch.paths.is_empty()
                && !batch
                    .paths
                    .iter()
                    .any(|p| std::fs::symlink_metadata(store.root.join(p)).is_ok())
            {
                return Ok(Err(format!(
                    "store {}'s folder {} on {} holds none of the {} files planned (a share \
                     not mounted here?)",
                    store.name,
                    store.root.display(),
                    crate::record::host_name(),
                    batch.paths.len()
                )));
            }
            return Ok(Ok(store.root));
        };
        if git::is_local(&store.source) && !Path::new(&store.source).exists() {
            return Ok(Err(format!(
                "store {}'s repository {} is on {}, not here",
                store.name,
                store.source,
                store.host.as_deref().unwrap_or("another machine")
            )));
        }
        let clone = self.data.repo_dir(store.id);
        let branch = store.branch.as_deref();
        let head = if clone.join(".git").is_dir() {
            git::head(&clone).ok()
        } else {
            None
        };
        if head.as_deref() != Some(revision.as_str()) {
            progress.message(&format!("fetching {} at {revision}", store.source));
            let _ = std::fs::remove_dir_all(&clone);
            git::clone(&store.source, &clone, branch, self.config.fetch)?;
            let head = git::head(&clone)?;
            if head != *revision {
                return Err(EngineError::Input(format!(
                    "store {}: {} is at {head} now, the run indexes {revision}; run `lore                      index {}` again to index the new commit",
                    store.name, store.source, store.name
                )));
            }
        }
        Ok(Ok(clone))
    }
}

/// A claimer's name in the batches table: machine, process and role.
fn worker_name(role: &str) -> String {
    format!(
        "{}:{}:{role}",
        crate::record::host_name(),
        std::process::id()
    )
}
