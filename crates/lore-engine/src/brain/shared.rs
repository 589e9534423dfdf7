//! The brain when servers share one catalog (PostgreSQL). The catalog's copy of the notes,
//! pages and session lines is the truth; each server's brain dir is a mirror that people
//! read and edit by hand. Every change to the brain runs under the shared brain's lock:
//! the dir is brought in step with the shared copy (pull and push), the change is made in
//! the dir, the dir is brought in step again (so the change is shared), and the brain
//! store is indexed from the dir — which then holds exactly the shared copy, so an index
//! run from any server finds the same files and never deletes another server's note.
//!
//! In step means a three-way comparison per file against what both sides held at this
//! dir's last sync (`<data>/brain-sync.json`; rule in `lore_brain::mirror::step`). When a
//! file was changed differently on both sides since then, the shared copy wins and the
//! dir's version is kept beside it as `<path>.conflict-<host>`, neither indexed nor shared.
//! Session lines are appended to the shared copy and to the dir's log; a session's log in
//! the dir is rewritten whole, in the shared order, when the shared copy has new lines.

use crate::brain::{BrainIndexed, BrainSynced};
use crate::{Engine, EngineError};
use lore_brain::Brain;
use lore_brain::mirror::{Step, step};
use lore_embed::Embedder;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// What this dir and the shared copy held at its last sync.
#[derive(Debug, Default, Serialize, Deserialize)]
struct SyncState {
    /// The database it was synced with (a dir moved to another database starts over).
    database: String,
    /// Path → content hash.
    files: BTreeMap<String, String>,
    /// Session → its newest shared line id written to the dir.
    sessions: BTreeMap<String, i64>,
}

impl Engine {
    fn sync_state_path(&self) -> PathBuf {
        self.data.root().join("brain-sync.json")
    }

    fn load_sync_state(&self) -> SyncState {
        let database = self.catalog.label().to_string();
        std::fs::read_to_string(self.sync_state_path())
            .ok()
            .and_then(|t| serde_json::from_str::<SyncState>(&t).ok())
            .filter(|s| s.database == database)
            .unwrap_or(SyncState {
                database,
                ..SyncState::default()
            })
    }

    fn save_sync_state(&self, state: &SyncState) -> Result<(), EngineError> {
        let path = self.sync_state_path();
        let text = serde_json::to_vec_pretty(state)
            .map_err(|e| EngineError::Input(format!("encoding the brain's sync state: {e}")))?;
        write_replacing(&path, &text).map_err(|e| EngineError::io(path.display().to_string(), e))
    }

    /// Runs a change to the brain dir (`change`; nothing, for a sync) and indexes the
    /// brain. With a shared brain, under its lock and with the dir in step with the shared
    /// copy before the change (so it sees every server's notes) and after (so every server
    /// sees it). The caller holds the writer lock.
    pub(crate) fn change_brain<T>(
        &mut self,
        embedder: Option<&Embedder>,
        change: impl FnOnce(&Brain) -> Result<T, EngineError>,
    ) -> Result<(T, BrainIndexed), EngineError> {
        let brain = self.brain();
        if !self.catalog.shares_brain() {
            let done = change(&brain)?;
            return Ok((done, self.reindex_brain(embedder)?));
        }
        brain.init()?;
        self.under_brain_lock(|e| {
            let mut synced = e.mirror_brain(&brain)?;
            let done = change(&brain)?;
            synced.add(e.mirror_brain(&brain)?);
            let mut indexed = e.reindex_brain(embedder)?;
            indexed.synced = Some(synced);
            Ok((done, indexed))
        })
    }

    /// Indexes the shared brain store (`lore index brain`), only ever from a dir in step
    /// with the shared copy. The caller holds the writer lock and the store.
    pub(crate) fn index_shared_brain(
        &mut self,
        full: bool,
        embedder: Option<&Embedder>,
        progress: &dyn crate::Progress,
    ) -> Result<crate::IndexReport, EngineError> {
        let brain = self.brain();
        brain.init()?;
        self.under_brain_lock(|e| {
            e.mirror_brain(&brain)?;
            let store = e.ensure_brain_store()?;
            e.index_leased_store(&store, full, embedder, progress)
        })
    }

    /// Runs `f` holding the shared brain's lock (waiting for another server's change).
    fn under_brain_lock<T>(
        &mut self,
        f: impl FnOnce(&mut Engine) -> Result<T, EngineError>,
    ) -> Result<T, EngineError> {
        self.catalog.lock_brain()?;
        let out = f(self);
        if let Err(e) = self.catalog.unlock_brain() {
            tracing::warn!("releasing the shared brain's lock: {e}");
        }
        out
    }

    /// Brings the brain dir in step with the shared copy (the caller holds its lock).
    fn mirror_brain(&mut self, brain: &Brain) -> Result<BrainSynced, EngineError> {
        let mut state = self.load_sync_state();
        let mut done = BrainSynced::default();
        // What is shared is what the brain store indexes: the same walk.
        let store = self.ensure_brain_store()?;
        let walk = lore_source::walk(&store.root, &self.walk_options(&store))?;
        done.skipped = walk
            .skipped
            .iter()
            .map(|(p, why)| format!("{p}: {why}"))
            .collect();
        let mut local: HashMap<String, (String, String)> = HashMap::new();
        let Some(tree) = walk.tree.as_deref() else {
            return Ok(done);
        };
        for f in &walk.files {
            match tree.read_text(&f.rel, store.max_file_bytes) {
                Ok(content) => {
                    local.insert(
                        f.rel.clone(),
                        (lore_index::content_hash(content.as_bytes()), content),
                    );
                }
                Err(why) => done.skipped.push(format!("{}: {why}", f.rel)),
            }
        }
        if local.is_empty() && !state.files.is_empty() {
            // A dir emptied since its last sync (a new volume, a wiped folder) is refilled
            // from the shared copy, never taken as the deletion of every note.
            tracing::warn!("the brain dir is empty: filling it from the shared copy");
            state.files.clear();
        }
        let remote = self.catalog.brain_hashes()?;
        let writer = self.writer_id();
        let mut paths: Vec<&String> = local.keys().chain(remote.keys()).collect();
        paths.sort();
        paths.dedup();
        for path in paths {
            let l = local.get(path);
            let r = remote.get(path).map(String::as_str);
            let action = step(
                state.files.get(path).map(String::as_str),
                l.map(|(h, _)| h.as_str()),
                r,
            );
            match action {
                Step::Same => {}
                Step::Pull | Step::Conflict => {
                    if action == Step::Conflict {
                        let host = writer.split(':').next().unwrap_or("here");
                        done.conflicts.push(brain.mirror_keep_conflict(path, host)?);
                    }
                    match self.catalog.brain_content(path)? {
                        Some(content) => brain.mirror_put(path, &content)?,
                        None => brain.mirror_remove(path)?,
                    }
                    done.pulled += 1;
                }
                Step::PullDelete => {
                    brain.mirror_remove(path)?;
                    done.pulled += 1;
                }
                Step::Push => {
                    if let Some((hash, content)) = l {
                        self.catalog.put_brain_file(path, content, hash, &writer)?;
                        done.pushed += 1;
                    }
                }
                Step::PushDelete => {
                    self.catalog.remove_brain_file(path)?;
                    done.pushed += 1;
                }
            }
            let now = match action {
                Step::Push => l.map(|(h, _)| h.clone()),
                Step::Same => r.map(str::to_string),
                Step::PushDelete | Step::PullDelete => None,
                Step::Pull | Step::Conflict => r.map(str::to_string),
            };
            match now {
                Some(h) => state.files.insert(path.clone(), h),
                None => state.files.remove(path),
            };
        }
        done.sessions = self.mirror_sessions(brain, &mut state)?;
        self.save_sync_state(&state)?;
        Ok(done)
    }

    /// Shares the lines of session logs this dir never synced (kept before the brain was
    /// shared), then rewrites each log whose shared copy has new lines.
    fn mirror_sessions(&self, brain: &Brain, state: &mut SyncState) -> Result<usize, EngineError> {
        let writer = self.writer_id();
        let mut marks = self.catalog.session_marks()?;
        for id in local_sessions(brain) {
            if state.sessions.contains_key(&id) {
                continue;
            }
            let path = brain
                .root()
                .join(lore_brain::SESSIONS)
                .join(format!("{id}.jsonl"));
            let text = std::fs::read_to_string(&path)
                .map_err(|e| EngineError::io(path.display().to_string(), e))?;
            let shared: HashSet<String> = self.catalog.session_lines(&id)?.into_iter().collect();
            let mut new = false;
            for line in text.split_inclusive('\n').filter(|l| !l.trim().is_empty()) {
                let line = if line.ends_with('\n') {
                    line.to_string()
                } else {
                    format!("{line}\n")
                };
                if !shared.contains(&line) {
                    self.catalog.append_session_line(&id, &line, &writer)?;
                    new = true;
                }
            }
            if new {
                marks = self.catalog.session_marks()?;
            }
        }
        let mut rewritten = 0;
        for (id, mark) in marks {
            if state.sessions.get(&id) == Some(&mark) {
                continue;
            }
            let lines = self.catalog.session_lines(&id)?;
            brain.mirror_session(&id, &lines)?;
            state.sessions.insert(id, mark);
            rewritten += 1;
        }
        Ok(rewritten)
    }

    /// Whether the shared brain changed since this dir last synced with it (two small
    /// queries; `false` when the brain is not shared). A server asks every few seconds.
    pub fn brain_changed_elsewhere(&self) -> Result<bool, EngineError> {
        if !self.catalog.shares_brain() {
            return Ok(false);
        }
        let state = self.load_sync_state();
        let remote = self.catalog.brain_hashes()?;
        let files_differ = remote.len() != state.files.len()
            || remote.iter().any(|(p, h)| state.files.get(p) != Some(h));
        if files_differ {
            return Ok(true);
        }
        let marks = self.catalog.session_marks()?;
        Ok(marks
            .iter()
            .any(|(id, m)| state.sessions.get(id) != Some(m)))
    }

    /// Logs a session line: to the shared copy first when there is one, then to the dir.
    pub(crate) fn log_session_line(
        &self,
        entry: &lore_brain::SessionEntry,
    ) -> Result<lore_brain::Logged, EngineError> {
        let (line, logged) = lore_brain::session_line(entry)?;
        if self.catalog.shares_brain() {
            self.catalog
                .append_session_line(&entry.session_id, &line, &self.writer_id())?;
        }
        self.brain().append_session_line(&entry.session_id, &line)?;
        Ok(logged)
    }
}

/// The session ids with a log in the dir.
fn local_sessions(brain: &Brain) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(brain.root().join(lore_brain::SESSIONS)) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let id = name.strip_suffix(".jsonl")?;
            lore_brain::validate_session_id(id).ok()?;
            Some(id.to_string())
        })
        .collect()
}

/// Writes `path` whole: a temp file beside it, then a rename over it.
fn write_replacing(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let temp = path.with_extension(format!("tmp-{}", std::process::id()));
    std::fs::write(&temp, bytes)?;
    std::fs::rename(&temp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&temp);
    })
}
