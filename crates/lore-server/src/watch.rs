//! Keeps folder stores fresh: file-system events (`notify`), debounced per store, become an
//! incremental re-index on the writer. The data dir and hidden paths are ignored; the list
//! of stores is re-read every few seconds, so stores added or removed meanwhile are
//! picked up.

use crate::writer::{Cmd, WriterHandle};
use lore_core::StoreKind;
use lore_engine::Engine;
use notify::{EventKind, RecursiveMode, Watcher as _};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Quiet time after the last event before a store is re-indexed.
const DEBOUNCE: Duration = Duration::from_millis(400);
/// Longest a store waits under a steady stream of events.
const MAX_DELAY: Duration = Duration::from_secs(3);
/// How often the list of stores is re-read.
const REFRESH_EVERY: Duration = Duration::from_secs(2);
const TICK: Duration = Duration::from_millis(100);

enum Msg {
    Fs(notify::Result<notify::Event>),
    Stop,
}

pub(crate) struct Watcher {
    tx: mpsc::Sender<Msg>,
    thread: Option<JoinHandle<()>>,
}

impl Watcher {
    /// Watches the folder stores named in `only` (all when empty). Each store is re-indexed
    /// once when first watched, to catch up with changes made while nobody watched.
    pub fn spawn(
        engine: Engine,
        writer: WriterHandle,
        only: Vec<String>,
    ) -> Result<Watcher, notify::Error> {
        let (tx, rx) = mpsc::channel();
        let events = tx.clone();
        let fs = notify::recommended_watcher(move |res| {
            let _ = events.send(Msg::Fs(res));
        })?;
        let thread = std::thread::Builder::new()
            .name("lore-watcher".into())
            .spawn(move || {
                let data = std::fs::canonicalize(engine.data_dir().root())
                    .unwrap_or_else(|_| engine.data_dir().root().to_path_buf());
                Loop {
                    engine,
                    writer,
                    only,
                    data,
                    fs,
                    watched: HashMap::new(),
                    pending: HashMap::new(),
                }
                .run(rx)
            })
            .map_err(notify::Error::io)?;
        Ok(Watcher {
            tx,
            thread: Some(thread),
        })
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.tx.send(Msg::Stop);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

struct Loop {
    engine: Engine,
    writer: WriterHandle,
    only: Vec<String>,
    data: PathBuf,
    fs: notify::RecommendedWatcher,
    /// Store name → watched root.
    watched: HashMap<String, PathBuf>,
    /// Store name → (first, last) event not yet handed to the writer.
    pending: HashMap<String, (Instant, Instant)>,
}

impl Loop {
    fn run(mut self, rx: mpsc::Receiver<Msg>) {
        self.refresh();
        let mut refreshed = Instant::now();
        loop {
            match rx.recv_timeout(TICK) {
                Ok(Msg::Fs(Ok(event))) => self.note(&event),
                Ok(Msg::Fs(Err(e))) => tracing::warn!("watcher: {e}"),
                Ok(Msg::Stop) | Err(mpsc::RecvTimeoutError::Disconnected) => return,
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
            let now = Instant::now();
            let due: Vec<String> = self
                .pending
                .iter()
                .filter(|(_, (first, last))| now - *last >= DEBOUNCE || now - *first >= MAX_DELAY)
                .map(|(name, _)| name.clone())
                .collect();
            for name in due {
                self.pending.remove(&name);
                tracing::debug!("{name} changed on disk; re-indexing");
                if !self.writer.send(Cmd::Reindex(name)) {
                    return;
                }
            }
            if refreshed.elapsed() >= REFRESH_EVERY {
                self.refresh();
                refreshed = Instant::now();
            }
        }
    }

    /// Records which stores an event touches.
    fn note(&mut self, event: &notify::Event) {
        if matches!(event.kind, EventKind::Access(_) | EventKind::Other) {
            return;
        }
        for path in &event.paths {
            if path.starts_with(&self.data) {
                continue;
            }
            for (name, root) in &self.watched {
                let Ok(rel) = path.strip_prefix(root) else {
                    continue;
                };
                if is_hidden(rel) {
                    continue;
                }
                let now = Instant::now();
                self.pending
                    .entry(name.clone())
                    .and_modify(|(_, last)| *last = now)
                    .or_insert((now, now));
            }
        }
    }

    /// Watches new folder stores and forgets removed ones.
    fn refresh(&mut self) {
        let stores = match self.engine.stores() {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!("watcher: cannot list stores: {e}");
                return;
            }
        };
        let wanted: HashMap<String, PathBuf> = stores
            .into_iter()
            .map(|s| s.store)
            .filter(|s| s.kind == StoreKind::Folder)
            .filter(|s| self.only.is_empty() || self.only.contains(&s.name))
            .map(|s| (s.name, s.root))
            .collect();
        let gone: Vec<String> = self
            .watched
            .iter()
            .filter(|(name, root)| wanted.get(*name) != Some(root))
            .map(|(name, _)| name.clone())
            .collect();
        for name in gone {
            if let Some(root) = self.watched.remove(&name) {
                let _ = self.fs.unwatch(&root);
                self.pending.remove(&name);
            }
        }
        for (name, root) in wanted {
            if self.watched.contains_key(&name) {
                continue;
            }
            match self.fs.watch(&root, RecursiveMode::Recursive) {
                Ok(()) => tracing::info!("watching {name} ({})", root.display()),
                Err(e) => {
                    tracing::warn!("cannot watch {name} ({}): {e}", root.display());
                    continue;
                }
            }
            self.writer.send(Cmd::Reindex(name.clone()));
            self.watched.insert(name, root);
        }
    }
}

/// Hidden files and folders are never indexed (the walker skips them), so their events
/// are noise — `.git/` above all.
fn is_hidden(rel: &Path) -> bool {
    rel.components()
        .any(|c| c.as_os_str().to_string_lossy().starts_with('.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_paths() {
        assert!(is_hidden(Path::new(".git/index")));
        assert!(is_hidden(Path::new("src/.cache/x")));
        assert!(!is_hidden(Path::new("src/lib.rs")));
    }
}
