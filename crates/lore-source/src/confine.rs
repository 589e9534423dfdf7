//! Where local files may be read from: anywhere (the CLI, an agent's own stdio server) or
//! only under some folders (`lore serve --allow-path`). Every check is on real paths
//! (symlinks resolved) and runs before anything is read — when a store is added and again
//! on every index, sync and watch run, since a folder may have been swapped for a symlink
//! meanwhile. A local git repository is checked whole: its git dir (a `.git` gitfile may
//! point elsewhere, as every `git worktree` does), its common dir, its object store and
//! every alternate object store, recursively, and no symlink inside them may lead out.

use crate::SourceError;
use std::path::{Path, PathBuf};

/// How deep alternates may chain (git's own limit is 5).
const MAX_ALTERNATE_DEPTH: usize = 5;

/// Where local files may be read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Reads {
    /// Anything the process can read.
    #[default]
    Anywhere,
    /// Only under these folders (real paths); none at all when empty.
    Within(Vec<PathBuf>),
}

impl Reads {
    /// The given folders, each resolved to its real path; `flag` names them in errors.
    pub fn within(dirs: &[PathBuf], flag: &str) -> Result<Reads, String> {
        let mut real = Vec::with_capacity(dirs.len());
        for d in dirs {
            let r = std::fs::canonicalize(d).map_err(|e| format!("{flag} {}: {e}", d.display()))?;
            if !r.is_dir() {
                return Err(format!("{flag} {}: not a folder", d.display()));
            }
            real.push(r);
        }
        Ok(Reads::Within(real))
    }

    /// `path` (absolute) as the real path to read, when it may be read. A path that does not
    /// resolve is refused like one outside, unless it is under an allowed folder, so a
    /// refusal says nothing of what exists. Outside: `SourceError::Refused`; under an
    /// allowed folder but unopenable: `SourceError::Io`.
    pub fn check(&self, path: &Path, what: &str) -> Result<PathBuf, SourceError> {
        let dirs = match self {
            Reads::Anywhere => return Ok(path.to_path_buf()),
            Reads::Within(dirs) => dirs,
        };
        let target = format!("{what} {}", path.display());
        if dirs.is_empty() {
            return Err(SourceError::Refused {
                target,
                reason: "this server reads no local files; its operator lets it read a folder \
                         with `lore serve --allow-path DIR`"
                    .into(),
            });
        }
        match std::fs::canonicalize(path) {
            Ok(real) if self.allows(&real) => Ok(real),
            Err(e) if self.allows(path) => Err(SourceError::Io(target, e)),
            _ => Err(self.outside(target)),
        }
    }

    /// `path` (absolute) as the real path lore may create and write, when it may: its
    /// nearest existing ancestor resolved (symlinks followed), the rest plain names (no
    /// `..`), and the whole under an allowed folder. For a folder lore makes (a brain dir).
    pub fn check_new(&self, path: &Path, what: &str) -> Result<PathBuf, SourceError> {
        if *self == Reads::Anywhere {
            return Ok(path.to_path_buf());
        }
        let target = format!("{what} {}", path.display());
        let mut base = path;
        let mut rest = Vec::new();
        let real = loop {
            match std::fs::canonicalize(base) {
                Ok(real) => break real,
                Err(_) => match (base.parent(), base.file_name()) {
                    (Some(parent), Some(name)) => {
                        rest.push(name);
                        base = parent;
                    }
                    _ => return Err(self.outside(target)),
                },
            }
        };
        let plain = path
            .components()
            .all(|c| !matches!(c, std::path::Component::ParentDir));
        let full = rest.iter().rev().fold(real, |p, n| p.join(n));
        if plain && self.allows(&full) {
            Ok(full)
        } else {
            Err(self.outside(target))
        }
    }

    fn allows(&self, real: &Path) -> bool {
        match self {
            Reads::Anywhere => true,
            Reads::Within(dirs) => dirs.iter().any(|d| real.starts_with(d)),
        }
    }

    fn outside(&self, target: String) -> SourceError {
        let allowed: Vec<String> = match self {
            Reads::Anywhere => Vec::new(),
            Reads::Within(dirs) => dirs.iter().map(|d| d.display().to_string()).collect(),
        };
        SourceError::Refused {
            target,
            reason: format!(
                "outside the folders this server may read ({}; symlinks are followed before \
                 checking); its operator allows more with `lore serve --allow-path DIR`",
                allowed.join(", ")
            ),
        }
    }

    /// Checks a local git repository (a work tree or a bare repository) as a whole, before
    /// git reads it: the repository, its git dir, common dir, object store and alternates
    /// must all resolve under an allowed folder. Returns the repository's real path.
    pub fn check_repo(&self, path: &Path) -> Result<PathBuf, SourceError> {
        let real = self.check(path, "repository")?;
        if *self == Reads::Anywhere {
            return Ok(real);
        }
        let git_dir = self.git_dir(&real)?;
        let common = match read_pointer(&git_dir.join("commondir"))? {
            Some(p) => self.resolve_under(&git_dir, &p, "its common git dir")?,
            None => git_dir.clone(),
        };
        self.no_symlink_out(&git_dir)?;
        if common != git_dir {
            self.no_symlink_out(&common)?;
        }
        let objects = self.resolve_under(&common, Path::new("objects"), "its object store")?;
        self.check_alternates(&objects, 0)?;
        Ok(real)
    }

    /// The real git dir of `repo`: `.git` (a folder, or a gitfile naming one), else the
    /// repository itself (bare).
    fn git_dir(&self, repo: &Path) -> Result<PathBuf, SourceError> {
        let dotgit = repo.join(".git");
        match std::fs::symlink_metadata(&dotgit) {
            Ok(m) if m.is_file() => {
                let text = std::fs::read_to_string(&dotgit)
                    .map_err(|e| SourceError::Io(dotgit.display().to_string(), e))?;
                let Some(dir) = text.trim().strip_prefix("gitdir:") else {
                    return Err(SourceError::Refused {
                        target: dotgit.display().to_string(),
                        reason: "a .git file that names no git dir (`gitdir: PATH`)".into(),
                    });
                };
                self.resolve_under(repo, Path::new(dir.trim()), "its git dir (.git file)")
            }
            Ok(_) => self.resolve_under(repo, Path::new(".git"), "its git dir"),
            Err(_) => Ok(repo.to_path_buf()),
        }
    }

    /// `rel` (absolute, or relative to `base`) as a real path under an allowed folder.
    fn resolve_under(&self, base: &Path, rel: &Path, what: &str) -> Result<PathBuf, SourceError> {
        let path = base.join(rel);
        let target = format!("{what} {}", path.display());
        match std::fs::canonicalize(&path) {
            Ok(real) if self.allows(&real) => Ok(real),
            Ok(_) => Err(self.outside(target)),
            Err(e) => Err(SourceError::Io(target, e)),
        }
    }

    /// Each alternate object store of `objects`, and theirs in turn, must be allowed.
    fn check_alternates(&self, objects: &Path, depth: usize) -> Result<(), SourceError> {
        if depth > 0 {
            self.no_symlink_out(objects)?;
        }
        let file = objects.join("info/alternates");
        let text = match std::fs::read_to_string(&file) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(SourceError::Io(file.display().to_string(), e)),
        };
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if depth >= MAX_ALTERNATE_DEPTH {
                return Err(SourceError::Refused {
                    target: file.display().to_string(),
                    reason: format!("alternates chain deeper than {MAX_ALTERNATE_DEPTH}"),
                });
            }
            let alt = self.resolve_under(objects, Path::new(line), "an alternate object store")?;
            self.check_alternates(&alt, depth + 1)?;
        }
        Ok(())
    }

    /// No symlink under `dir` (a git dir or an object store) leads outside the allowed
    /// folders.
    fn no_symlink_out(&self, dir: &Path) -> Result<(), SourceError> {
        let entries =
            std::fs::read_dir(dir).map_err(|e| SourceError::Io(dir.display().to_string(), e))?;
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_symlink() {
                let what = format!("a symlink in {}", dir.display());
                self.resolve_under(dir, Path::new(&entry.file_name()), &what)?;
            } else if kind.is_dir() {
                self.no_symlink_out(&entry.path())?;
            }
        }
        Ok(())
    }
}

/// The path a git pointer file (`commondir`) holds, if it exists.
fn read_pointer(file: &Path) -> Result<Option<PathBuf>, SourceError> {
    match std::fs::read_to_string(file) {
        Ok(t) => Ok(Some(PathBuf::from(t.trim()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(SourceError::Io(file.display().to_string(), e)),
    }
}
