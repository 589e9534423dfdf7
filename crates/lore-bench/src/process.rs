//! Phase 5b: the memory of a search process — `lore search` run as its own process on the
//! query store, once per mode, as a user or an agent's shell runs it (model, BM25 index and
//! mapped vector snapshot opened from cold) — and its wall time. Its peak memory is its
//! VmHWM, sampled every 2 ms until it exits (a lower bound, close: the peak is the search).

use crate::report::ProcessRun;
use anyhow::{Context, bail};
use lore_core::DataDir;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A natural-language query: every mode has work to do on it.
const QUERY: &str = "read a file line by line";

pub(crate) fn measure(
    exe: &Path,
    data: &DataDir,
    store: &str,
    vectors: bool,
) -> anyhow::Result<Vec<ProcessRun>> {
    let modes: &[&'static str] = if vectors {
        &["fts", "vector", "hybrid"]
    } else {
        &["fts"]
    };
    let mut runs = Vec::new();
    let out_path = data.root().join("search-process.json");
    for &mode in modes {
        crate::status(&format!("a search process, {mode} mode"));
        let out = std::fs::File::create(&out_path)
            .with_context(|| format!("cannot create {}", out_path.display()))?;
        let started = Instant::now();
        let mut child = Command::new(exe)
            .arg("--data-dir")
            .arg(data.root())
            .args(["--json", "search", QUERY, "--stores", store, "--mode", mode])
            .env_remove("LORE_DATABASE_URL")
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("cannot run {}", exe.display()))?;
        // The child's own high-water mark, read until it exits. (`wait4`'s ru_maxrss would
        // report this process's size: a spawned child inherits it until its exec.)
        let mut peak = None;
        let status = loop {
            let hwm = crate::stats::proc_status_bytes(&child.id().to_string(), "VmHWM:");
            peak = peak.max(hwm);
            if let Some(status) = child.try_wait().context("waiting for lore search")? {
                break status;
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        let wall_ms = started.elapsed().as_secs_f64() * 1000.0;
        let mut err = String::new();
        if let Some(mut e) = child.stderr.take() {
            let _ = e.read_to_string(&mut err);
        }
        if !status.success() {
            bail!("lore search --mode {mode} failed: {}", err.trim());
        }
        let results = std::fs::read(&out_path)
            .ok()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            .and_then(|v| v["results"].as_array().map(|r| r.len()))
            .unwrap_or(0);
        runs.push(ProcessRun {
            mode,
            wall_ms,
            results,
            peak_rss_bytes: peak,
        });
    }
    let _ = std::fs::remove_file(&out_path);
    Ok(runs)
}
