//! A locate benchmark from a repository's own history (`lore eval history`): each commit
//! message becomes a task, the commit before it the base, and the source files it changed
//! (that existed before it) the gold. Any user can then measure `locate` on their own code
//! with `lore eval locate`.

use crate::jsonl::JsonlOut;
use anyhow::{Context, bail};
use lore_engine::Engine;
use lore_source::git::{self, CommitChange};
use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
pub struct HistoryOptions {
    /// A store whose folder is a git work tree, or a path to a git repository.
    pub source: String,
    /// Tasks to write (the newest commits that qualify).
    pub commits: usize,
    /// Where the JSONL goes (default: `<data>/eval/history-<name>-<unix time>.jsonl`).
    pub out: Option<PathBuf>,
}

#[derive(Debug, Clone, Serialize)]
pub struct HistoryReport {
    pub repo: PathBuf,
    /// Commits looked at, and why the others were left out.
    pub scanned: usize,
    pub written: usize,
    pub skipped_large: usize,
    pub skipped_formatting: usize,
    pub skipped_no_source: usize,
    pub skipped_short_message: usize,
    pub out: PathBuf,
}

/// More files than this, or more changed lines, is a sweep rather than a task.
const MAX_FILES: usize = 10;
const MAX_LINES: u64 = 1500;
/// Messages shorter than this say too little to locate anything from.
const MIN_MESSAGE: usize = 20;

/// Whether a commit message describes a formatting, lint or typo sweep.
fn formatting_only(message: &str) -> bool {
    let subject = message.lines().next().unwrap_or("").to_lowercase();
    [
        "cargo fmt",
        "rustfmt",
        "black",
        "prettier",
        "reformat",
        "formatting",
        "format code",
        "fix lint",
        "clippy",
        "typo",
        "whitespace",
        "isort",
        "flake8",
    ]
    .iter()
    .any(|w| subject.contains(w))
}

/// A file whose change a task asks for: source code, not tests, docs or lockfiles.
fn is_source(path: &str) -> bool {
    let code = lore_core::Language::from_path(Path::new(path)).is_code();
    code && !lore_core::is_test_path(path)
}

fn repo_of(engine: &Engine, source: &str) -> anyhow::Result<(String, PathBuf)> {
    if let Ok(store) = engine.store_record(source) {
        return Ok((store.name.clone(), store.root.clone()));
    }
    let path = PathBuf::from(source);
    if git::git_dir(&path).join("HEAD").is_file() {
        // A mirror kept as `owner+name/repo` or `name/.git` is named by its folder.
        let name = path
            .canonicalize()
            .ok()
            .and_then(|p| {
                p.iter()
                    .rev()
                    .map(|c| c.to_string_lossy().into_owned())
                    .find(|c| c != "repo" && c != ".git")
            })
            .unwrap_or_else(|| "repo".into());
        return Ok((name, path));
    }
    bail!("{source} is neither a store nor a git repository")
}

pub fn run(engine: &Engine, opts: &HistoryOptions) -> anyhow::Result<HistoryReport> {
    if opts.commits == 0 {
        bail!("--commits must be at least 1");
    }
    let (name, root) = repo_of(engine, &opts.source)?;
    if !git::git_dir(&root).join("HEAD").is_file() {
        bail!(
            "{} is not a git repository: history needs one (a folder store on a clone)",
            root.display()
        );
    }
    if git::git_dir(&root).join("shallow").is_file() {
        bail!(
            "{} is a shallow clone with no history to mine; fetch it whole first (git fetch --unshallow)",
            root.display()
        );
    }
    let root = root
        .canonicalize()
        .with_context(|| format!("cannot open {}", root.display()))?;
    // Look further back than asked: many commits do not qualify.
    let changes = git::changes(&root, "HEAD", opts.commits.saturating_mul(8).max(50))?;
    let mut w = JsonlOut::create(engine, opts.out.as_deref(), &format!("history-{name}"))?;
    let mut report = HistoryReport {
        repo: root.clone(),
        scanned: 0,
        written: 0,
        skipped_large: 0,
        skipped_formatting: 0,
        skipped_no_source: 0,
        skipped_short_message: 0,
        out: w.path().to_path_buf(),
    };
    for c in &changes {
        if report.written >= opts.commits {
            break;
        }
        report.scanned += 1;
        match qualify(&root, c)? {
            Verdict::Task(gold) => {
                let line = serde_json::json!({
                    "instance_id": format!("{name}-{}", &c.commit[..c.commit.len().min(12)]),
                    "repo": root.display().to_string(),
                    "base_commit": c.parent,
                    "query": c.message,
                    "gold_files": gold,
                });
                w.line(&line)?;
                report.written += 1;
            }
            Verdict::Large => report.skipped_large += 1,
            Verdict::Formatting => report.skipped_formatting += 1,
            Verdict::NoSource => report.skipped_no_source += 1,
            Verdict::ShortMessage => report.skipped_short_message += 1,
        }
    }
    if report.written == 0 {
        w.discard();
        bail!(
            "no commit of {} qualifies as a task ({} looked at: {} too large, {} formatting, {} without source changes, {} with a message under {MIN_MESSAGE} characters)",
            root.display(),
            report.scanned,
            report.skipped_large,
            report.skipped_formatting,
            report.skipped_no_source,
            report.skipped_short_message
        );
    }
    w.finish()?;
    Ok(report)
}

enum Verdict {
    Task(Vec<String>),
    Large,
    Formatting,
    NoSource,
    ShortMessage,
}

fn qualify(root: &Path, c: &CommitChange) -> anyhow::Result<Verdict> {
    let lines: u64 = c.files.iter().map(|f| f.1).sum();
    if c.files.len() > MAX_FILES || lines > MAX_LINES {
        return Ok(Verdict::Large);
    }
    if formatting_only(&c.message) {
        return Ok(Verdict::Formatting);
    }
    if c.message.trim().len() < MIN_MESSAGE {
        return Ok(Verdict::ShortMessage);
    }
    let candidates: Vec<&String> = c
        .files
        .iter()
        .map(|f| &f.0)
        .filter(|p| is_source(p))
        .collect();
    if candidates.is_empty() {
        return Ok(Verdict::NoSource);
    }
    // Only files that existed before the commit can be found at its base.
    let before = git::files_at(root, &c.parent)?;
    let gold: Vec<String> = candidates
        .into_iter()
        .filter(|p| before.contains(*p))
        .cloned()
        .collect();
    if gold.is_empty() {
        return Ok(Verdict::NoSource);
    }
    Ok(Verdict::Task(gold))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweeps_and_non_source_changes_are_not_tasks() {
        assert!(formatting_only("cargo fmt\n"));
        assert!(formatting_only("Fix typo in docs"));
        assert!(!formatting_only("Fix retry backoff overflow"));
        assert!(is_source("src/app.rs"));
        assert!(is_source("flask/helpers.py"));
        assert!(!is_source("tests/test_app.py"));
        assert!(!is_source("README.md"));
        assert!(!is_source("Cargo.lock"));
    }
}
