//! The corpus (only ever read) and the scratch folder the bench indexes a copy of it in.

use crate::status;
use anyhow::{Context, bail};
use lore_engine::Engine;
use lore_source::{SourceFile, WalkOptions};
use std::path::{Path, PathBuf};

/// The corpus folder: `given`, else the cargo registry sources, where cargo keeps unpacked
/// crates.
pub(crate) fn dir(given: Option<&Path>) -> anyhow::Result<PathBuf> {
    let dir = match given {
        Some(d) => d.to_path_buf(),
        None => std::env::var_os("CARGO_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
            .context("neither CARGO_HOME nor HOME is set; pass --corpus DIR")?
            .join("registry")
            .join("src"),
    };
    if !dir.is_dir() {
        bail!(
            "corpus folder {} does not exist; pass --corpus DIR (any folder of real source files)",
            dir.display()
        );
    }
    Ok(dir)
}

/// Every file a store of the corpus would index, in walk order.
pub(crate) fn walk(dir: &Path, max_file_bytes: u64) -> anyhow::Result<Vec<SourceFile>> {
    status(&format!("walking {}", dir.display()));
    let walk = lore_source::walk(
        dir,
        &WalkOptions {
            max_file_bytes,
            ..Default::default()
        },
    )
    .with_context(|| format!("cannot walk corpus {}", dir.display()))?;
    if walk.files.is_empty() {
        bail!("corpus folder {} holds no indexable files", dir.display());
    }
    Ok(walk.files)
}

/// The scratch folder: a copy of the corpus and a data dir; removed when the bench ends
/// (unless kept).
pub(crate) struct Scratch {
    dir: PathBuf,
    keep: bool,
}

impl Scratch {
    /// A new folder name under `parent` (default: the temp dir); nothing is created yet.
    pub fn new(parent: Option<&Path>, keep: bool) -> Scratch {
        let parent = match parent {
            Some(p) => p.to_path_buf(),
            None => std::env::temp_dir(),
        };
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        Scratch {
            dir: parent.join(format!("lore-bench-{}-{nanos}", std::process::id())),
            keep,
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the copied corpus goes.
    pub fn corpus(&self) -> PathBuf {
        self.dir.join("corpus")
    }

    /// Copies `taken` into the scratch corpus.
    pub fn copy(&self, taken: &[SourceFile]) -> anyhow::Result<()> {
        let copy_root = self.corpus();
        status(&format!(
            "copying {} files to {}",
            taken.len(),
            copy_root.display()
        ));
        for f in taken {
            copy_file(f, &copy_root, "")?;
        }
        Ok(())
    }

    /// The scratch data dir `name`, for [`Scratch::open`].
    pub fn data_dir(&self, name: &str) -> lore_core::DataDir {
        lore_core::DataDir::new(self.dir.join(name))
    }

    /// Opens an engine on the scratch data dir `name` with `engine`'s config and model,
    /// embeddings on or off.
    pub fn open(&self, engine: &Engine, name: &str, embed: bool) -> anyhow::Result<Engine> {
        self.open_on(engine, name, embed, None)
    }

    /// [`Scratch::open`] with the catalog in the PostgreSQL database `database` names.
    pub fn open_on(
        &self,
        engine: &Engine,
        name: &str,
        embed: bool,
        database: Option<&str>,
    ) -> anyhow::Result<Engine> {
        let data_root = self.dir.join(name);
        std::fs::create_dir_all(data_root.join("models"))
            .with_context(|| format!("cannot create {}", data_root.display()))?;
        link_model(
            &engine.model_dir(),
            &data_root.join("models").join(lore_embed::MODEL_NAME),
        );
        let mut config = engine.config().clone();
        config.embed = embed;
        let data = match database {
            Some(url) => self.data_dir(name).with_database(Some(url)),
            None => self.data_dir(name),
        };
        Engine::open_with(data, config)
            .with_context(|| format!("cannot open scratch data dir {}", data_root.display()))
    }

    /// Removes the scratch data dir `name` once what it held is measured (kept with
    /// `--keep-scratch`).
    pub fn remove(&self, name: &str) {
        if !self.keep {
            let _ = std::fs::remove_dir_all(self.dir.join(name));
        }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if self.keep {
            status(&format!("scratch kept at {}", self.dir.display()));
        } else if let Err(e) = std::fs::remove_dir_all(&self.dir) {
            status(&format!(
                "could not remove scratch {}: {e}",
                self.dir.display()
            ));
        }
    }
}

/// Copies a corpus file to `root/prefix/rel`.
pub(crate) fn copy_file(f: &SourceFile, root: &Path, prefix: &str) -> anyhow::Result<u64> {
    let dest = if prefix.is_empty() {
        root.join(&f.rel)
    } else {
        root.join(prefix).join(&f.rel)
    };
    if let Some(parent) = dest.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    std::fs::copy(&f.abs, &dest)
        .with_context(|| format!("cannot copy {} to {}", f.abs.display(), dest.display()))
}

/// Lets the scratch engine find the model the user's engine uses (no effect when
/// LORE_MODEL_DIR is set: both engines use it).
fn link_model(model: &Path, dest: &Path) {
    if !model.is_dir() {
        return;
    }
    #[cfg(unix)]
    let _ = std::os::unix::fs::symlink(model, dest);
    #[cfg(not(unix))]
    if std::fs::create_dir_all(dest).is_ok() {
        for f in lore_embed::MODEL_FILES {
            let _ = std::fs::copy(model.join(f), dest.join(f));
        }
    }
}
