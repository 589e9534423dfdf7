//! Result files: JSONL written beside its final name (`.jsonl.part`) and renamed when
//! complete, so a stopped run never leaves a file that looks finished.

use anyhow::Context;
use lore_engine::Engine;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

pub(crate) struct JsonlOut {
    out: PathBuf,
    tmp: PathBuf,
    w: BufWriter<File>,
}

impl JsonlOut {
    /// At `chosen`, else `<data>/eval/<stem>-<unix time>.jsonl`.
    pub(crate) fn create(
        engine: &Engine,
        chosen: Option<&Path>,
        stem: &str,
    ) -> anyhow::Result<JsonlOut> {
        let out = match chosen {
            Some(p) => p.to_path_buf(),
            None => {
                let ts = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_secs())
                    .unwrap_or(0);
                engine
                    .data_dir()
                    .root()
                    .join("eval")
                    .join(format!("{stem}-{ts}.jsonl"))
            }
        };
        if let Some(parent) = out.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        let tmp = out.with_extension("jsonl.part");
        let w = BufWriter::new(
            File::create(&tmp).with_context(|| format!("cannot write {}", tmp.display()))?,
        );
        Ok(JsonlOut { out, tmp, w })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.out
    }

    /// Writes one line through to the `.part` file: a long run's results so far can be
    /// read while it goes on, and a killed run keeps every finished line.
    pub(crate) fn line(&mut self, v: &serde_json::Value) -> anyhow::Result<()> {
        writeln!(self.w, "{v}")
            .and_then(|()| self.w.flush())
            .with_context(|| format!("cannot write {}", self.tmp.display()))
    }

    /// Renames the finished file into place; returns its path.
    pub(crate) fn finish(mut self) -> anyhow::Result<PathBuf> {
        self.w
            .flush()
            .with_context(|| format!("cannot write {}", self.tmp.display()))?;
        drop(self.w);
        std::fs::rename(&self.tmp, &self.out)
            .with_context(|| format!("cannot write {}", self.out.display()))?;
        Ok(self.out)
    }

    /// Removes the unfinished file.
    pub(crate) fn discard(self) {
        drop(self.w);
        let _ = std::fs::remove_file(&self.tmp);
    }
}
