//! Phase 5b: the memory of a search process — `lore search` run as its own process on the
//! query store, once per mode, as a user or an agent's shell runs it (model, BM25 index and
//! mapped vector snapshot opened from cold) — and its wall time.

use crate::report::ProcessRun;
use anyhow::{Context, bail};
use lore_core::DataDir;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

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
    for &mode in modes {
        crate::status(&format!("a search process, {mode} mode"));
        let started = Instant::now();
        let mut child = Command::new(exe)
            .arg("--data-dir")
            .arg(data.root())
            .args(["--json", "search", QUERY, "--store", store, "--mode", mode])
            .env_remove("LORE_DATABASE_URL")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("cannot run {}", exe.display()))?;
        let mut out = Vec::new();
        let mut err = Vec::new();
        if let Some(mut o) = child.stdout.take() {
            o.read_to_end(&mut out)
                .context("reading lore search's output")?;
        }
        if let Some(mut e) = child.stderr.take() {
            e.read_to_end(&mut err)
                .context("reading lore search's errors")?;
        }
        let (ok, peak) = wait_with_peak(child)?;
        let wall_ms = started.elapsed().as_secs_f64() * 1000.0;
        if !ok {
            bail!(
                "lore search --mode {mode} failed: {}",
                String::from_utf8_lossy(&err).trim()
            );
        }
        let results = serde_json::from_slice::<serde_json::Value>(&out)
            .ok()
            .and_then(|v| v["results"].as_array().map(|r| r.len()))
            .unwrap_or(0);
        runs.push(ProcessRun {
            mode,
            wall_ms,
            results,
            peak_rss_bytes: peak,
        });
    }
    Ok(runs)
}

/// Waits for the child; its exit status and peak resident memory (from `wait4`'s rusage).
#[cfg(target_os = "linux")]
fn wait_with_peak(child: std::process::Child) -> anyhow::Result<(bool, Option<u64>)> {
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: zeroed rusage is a valid value for this plain C struct, and both pointers
    // are to live locals for the duration of the call.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    if r != pid {
        bail!(
            "waiting for lore search (pid {pid}): {}",
            std::io::Error::last_os_error()
        );
    }
    let ok = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
    // Linux reports ru_maxrss in KiB.
    Ok((ok, Some(usage.ru_maxrss.max(0) as u64 * 1024)))
}

#[cfg(not(target_os = "linux"))]
fn wait_with_peak(mut child: std::process::Child) -> anyhow::Result<(bool, Option<u64>)> {
    Ok((child.wait()?.success(), None))
}
