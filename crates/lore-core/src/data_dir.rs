use std::path::{Path, PathBuf};

/// The layout of a lore data dir. Path arithmetic only; creating folders is the caller's job.
/// It also names the catalog's database when that is not the data dir's own SQLite file
/// (`with_database`: a PostgreSQL URL).
#[derive(Debug, Clone)]
pub struct DataDir {
    root: PathBuf,
    /// The brain dir when it is not `<root>/brain`.
    brain: Option<PathBuf>,
    database: Option<DatabaseUrl>,
    /// A `.lore/` found upward and passed over because the user has not trusted it.
    passed_over: Option<PathBuf>,
}

/// A database URL; its `Debug` leaves the password out.
#[derive(Clone)]
pub struct DatabaseUrl(String);

impl DatabaseUrl {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for DatabaseUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let host = self.0.rsplit_once('@').map_or("", |(_, h)| h);
        let host = host.split('?').next().unwrap_or(host);
        write!(f, "DatabaseUrl(…@{host})")
    }
}

/// The name of the file `trusted_data_dirs_file` names.
const TRUSTED_DATA_DIRS: &str = "trusted-data-dirs";

/// Whether the user trusts `dir` (a `.lore/` found upward) as a data dir: its real path is a
/// line of `DataDir::trusted_data_dirs_file`.
pub fn trusted_data_dir(dir: &Path) -> bool {
    let (Some(file), Ok(real)) = (
        DataDir::trusted_data_dirs_file(),
        std::fs::canonicalize(dir),
    ) else {
        return false;
    };
    let real = real.to_string_lossy();
    std::fs::read_to_string(file).is_ok_and(|t| t.lines().any(|l| l == real))
}

impl DataDir {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        DataDir {
            root: root.into(),
            brain: None,
            database: None,
            passed_over: None,
        }
    }

    /// The same data dir with its catalog in the database `explicit` names, else
    /// `LORE_DATABASE_URL`, else (empty or unset) the data dir's SQLite file.
    pub fn with_database(mut self, explicit: Option<&str>) -> Self {
        let env = std::env::var("LORE_DATABASE_URL").ok();
        self.database = explicit
            .map(str::to_string)
            .or(env)
            .filter(|u| !u.trim().is_empty())
            .map(DatabaseUrl);
        self
    }

    /// The database holding the catalog, when it is not `db()` (PostgreSQL).
    pub fn database(&self) -> Option<&str> {
        self.database.as_ref().map(DatabaseUrl::as_str)
    }

    /// The same data dir with its brain dir from `explicit`, else `LORE_BRAIN_DIR`, else
    /// `<root>/brain`; a relative path is taken from `cwd`.
    pub fn with_brain_dir(mut self, explicit: Option<&Path>, cwd: &Path) -> Self {
        let env = std::env::var_os("LORE_BRAIN_DIR")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from);
        self.brain = explicit
            .filter(|p| !p.as_os_str().is_empty())
            .map(Path::to_path_buf)
            .or(env)
            .map(|p| cwd.join(p));
        self
    }

    /// `explicit`, else `LORE_DATA_DIR`, else a `.lore/` found upward from `cwd` that the
    /// user trusts (`trusted_data_dir`), else the platform data dir (`$XDG_DATA_HOME/lore`
    /// or `~/.local/share/lore`). A `.lore/` is content a clone may carry — a catalog whose
    /// stores read any folder — so one the user has not trusted is passed over
    /// (`passed_over` names it).
    pub fn resolve(explicit: Option<&Path>, cwd: &Path) -> Self {
        if let Some(p) = explicit {
            return DataDir::new(p);
        }
        if let Some(p) = std::env::var_os("LORE_DATA_DIR").filter(|v| !v.is_empty()) {
            return DataDir::new(PathBuf::from(p));
        }
        let mut passed_over = None;
        for dir in cwd.ancestors() {
            let candidate = dir.join(".lore");
            if candidate.is_dir() {
                if trusted_data_dir(&candidate) {
                    return DataDir::new(candidate);
                }
                passed_over = Some(candidate);
                break;
            }
        }
        let base = std::env::var_os("XDG_DATA_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local").join("share"))
            })
            .unwrap_or_else(|| cwd.to_path_buf());
        DataDir {
            passed_over,
            ..DataDir::new(base.join("lore"))
        }
    }

    /// A `.lore/` found upward that `resolve` did not use, because it is not trusted.
    pub fn passed_over(&self) -> Option<&Path> {
        self.passed_over.as_deref()
    }

    /// The user's lore configuration folder: `$XDG_CONFIG_HOME/lore`, else `~/.config/lore`.
    /// Never inside a data dir, which a repository may carry (a `.lore/` found upward): what
    /// the user trusts must not be writable by what they clone.
    pub fn config_dir() -> Option<PathBuf> {
        std::env::var_os("XDG_CONFIG_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .or_else(|| {
                std::env::var_os("HOME")
                    .filter(|v| !v.is_empty())
                    .map(|h| PathBuf::from(h).join(".config"))
            })
            .map(|c| c.join("lore"))
    }

    /// The file listing the data dirs found upward that the user trusts: one real path a
    /// line, in the config dir.
    pub fn trusted_data_dirs_file() -> Option<PathBuf> {
        Self::config_dir().map(|d| d.join(TRUSTED_DATA_DIRS))
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
    /// The markdown mirror of a web store.
    pub fn web_dir(&self, store_id: i64) -> PathBuf {
        self.root.join("web").join(store_id.to_string())
    }
    pub fn repo_dir(&self, store_id: i64) -> PathBuf {
        self.root.join("repos").join(store_id.to_string())
    }
    pub fn models(&self) -> PathBuf {
        self.root.join("models")
    }
    /// The brain dir: `<root>/brain` unless set with `with_brain_dir`.
    pub fn brain(&self) -> PathBuf {
        self.brain
            .clone()
            .unwrap_or_else(|| self.root.join("brain"))
    }
}
