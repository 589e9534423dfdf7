use std::path::{Path, PathBuf};

/// The layout of a lore data dir. Path arithmetic only; creating folders is the caller's job.
#[derive(Debug, Clone)]
pub struct DataDir {
    root: PathBuf,
}

impl DataDir {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        DataDir { root: root.into() }
    }

    /// `explicit`, else `LORE_DATA_DIR`, else a `.lore/` found upward from `cwd`,
    /// else the platform data dir (`$XDG_DATA_HOME/lore` or `~/.local/share/lore`).
    pub fn resolve(explicit: Option<&Path>, cwd: &Path) -> Self {
        if let Some(p) = explicit {
            return DataDir::new(p);
        }
        if let Some(p) = std::env::var_os("LORE_DATA_DIR").filter(|v| !v.is_empty()) {
            return DataDir::new(PathBuf::from(p));
        }
        for dir in cwd.ancestors() {
            let candidate = dir.join(".lore");
            if candidate.is_dir() {
                return DataDir::new(candidate);
            }
        }
        let base = std::env::var_os("XDG_DATA_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local").join("share"))
            })
            .unwrap_or_else(|| cwd.to_path_buf());
        DataDir::new(base.join("lore"))
    }

    pub fn root(&self) -> &Path {
        &self.root
    }
    pub fn db(&self) -> PathBuf {
        self.root.join("lore.db")
    }
    pub fn lock_file(&self) -> PathBuf {
        self.root.join("writer.lock")
    }
    pub fn store_dir(&self, store_id: i64) -> PathBuf {
        self.root.join("stores").join(store_id.to_string())
    }
    pub fn repo_dir(&self, store_id: i64) -> PathBuf {
        self.root.join("repos").join(store_id.to_string())
    }
    pub fn models(&self) -> PathBuf {
        self.root.join("models")
    }
    pub fn brain(&self) -> PathBuf {
        self.root.join("brain")
    }
}
