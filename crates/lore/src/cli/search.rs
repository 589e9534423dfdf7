//! Flags of `lore search`, `lore locate` and `lore graph`.

use super::{details, directions, intents, modes, split_list};
use clap::Args;
use lore_engine::project::ProjectSettings;
use lore_engine::{Detail, Direction, GraphQuery, Intent, LocateRequest, Mode, SearchRequest};
use std::io::Read;
use std::path::PathBuf;

/// Where and how `search` and `locate` retrieve.
#[derive(Args, Debug)]
pub struct Scope {
    /// Store names, comma-separated or repeated (default: inside a project, the stores its
    /// lore.toml names; elsewhere, all).
    #[arg(long, visible_alias = "store", value_name = "A,B")]
    pub stores: Vec<String>,
    /// Every store of the data dir, also inside a project.
    #[arg(long, conflicts_with = "stores")]
    pub all: bool,
    /// hybrid = BM25 + vectors fused (locate ranks files over it); fts needs no
    /// embedding model.
    /// [default: hybrid, or the project's lore.toml `mode`]
    #[arg(long, value_parser = modes())]
    pub mode: Option<Mode>,
}

#[derive(Args, Debug)]
pub struct SearchArgs {
    /// Words, a question, an identifier or a pasted error.
    pub query: String,
    #[command(flatten)]
    pub scope: Scope,
    /// Number of results.
    #[arg(long, short = 'n', default_value_t = 10)]
    pub limit: usize,
    /// Minimum score (0–1, comparable across queries).
    #[arg(long)]
    pub threshold: Option<f32>,
    /// Results allowed per file, and one more that scores 80% of the file's first or more (not for usages).
    #[arg(long, default_value_t = 1)]
    pub per_file: usize,
    /// How much of each result: minimal (no code), contextual (+ imports, types,
    /// usage counts), full (+ the whole unit, callers, callees, tests).
    /// [default: minimal, or the project's lore.toml `detail`]
    #[arg(long, value_parser = details())]
    pub detail: Option<Detail>,
    /// What you are after; inferred from the query when absent.
    #[arg(long, value_parser = intents())]
    pub intent: Option<Intent>,
    /// Search this project's dependencies at the versions its lockfiles pin (the stores
    /// `lore deps` made), with any --stores.
    #[arg(long)]
    pub deps: bool,
    /// Rank without what agents marked useful or opened (see `lore feedback`).
    #[arg(long)]
    pub no_feedback: bool,
}

impl SearchArgs {
    pub fn request(self, project: &ProjectSettings) -> SearchRequest {
        SearchRequest {
            stores: split_list(&self.scope.stores),
            mode: self.scope.mode.or(project.mode).unwrap_or(Mode::Hybrid),
            limit: self.limit,
            threshold: self.threshold,
            per_file: self.per_file,
            detail: self.detail.or(project.detail).unwrap_or(Detail::Minimal),
            intent: self.intent,
            feedback: !self.no_feedback,
            ..SearchRequest::new(self.query)
        }
    }
}

#[derive(Args, Debug)]
pub struct LocateArgs {
    /// The task as given: an issue, a bug report, a traceback; `-` reads it from stdin.
    #[arg(required_unless_present = "file")]
    pub task: Option<String>,
    /// Read the task from this file.
    #[arg(long, value_name = "FILE", conflicts_with = "task")]
    pub file: Option<PathBuf>,
    #[command(flatten)]
    pub scope: Scope,
    /// Number of files.
    #[arg(long, short = 'n', default_value_t = 10)]
    pub limit: usize,
}

impl LocateArgs {
    pub fn request(self, project: &ProjectSettings) -> anyhow::Result<LocateRequest> {
        use anyhow::Context as _;
        let task = match (self.task, &self.file) {
            (_, Some(file)) => std::fs::read_to_string(file)
                .with_context(|| format!("cannot read the task from {}", file.display()))?,
            (Some(t), None) if t == "-" => {
                let mut text = String::new();
                std::io::stdin()
                    .read_to_string(&mut text)
                    .context("cannot read the task from stdin")?;
                text
            }
            (Some(t), None) => t,
            (None, None) => anyhow::bail!("give the task, `-` for stdin, or --file FILE"),
        };
        Ok(LocateRequest {
            stores: split_list(&self.scope.stores),
            mode: self.scope.mode.or(project.mode).unwrap_or(Mode::Hybrid),
            limit: self.limit,
            ..LocateRequest::new(task)
        })
    }
}

#[derive(Args, Debug)]
pub struct GraphArgs {
    #[arg(value_parser = directions())]
    pub direction: Direction,
    /// A name (`parse_query`) or a qualified name (`Parser.parse`, `Store::get`).
    pub symbol: String,
    /// Only these stores (repeatable or comma-separated; default: all).
    #[arg(long = "store", visible_alias = "stores", value_name = "STORE")]
    pub stores: Vec<String>,
}

impl GraphArgs {
    pub fn query(self) -> GraphQuery {
        GraphQuery {
            symbol: self.symbol,
            direction: self.direction,
            stores: split_list(&self.stores),
        }
    }
}

#[derive(Args, Debug)]
pub struct GrepArgs {
    /// A regular expression (Rust's `regex` syntax, as ripgrep's), matched line by line.
    pub pattern: String,
    /// The pattern is a literal string.
    #[arg(short = 'F', long)]
    pub fixed_strings: bool,
    /// Match case-insensitively.
    #[arg(short = 'i', long)]
    pub ignore_case: bool,
    /// Only paths matching this glob (repeatable; `src/**/*.rs`).
    #[arg(short = 'g', long = "glob", value_name = "GLOB")]
    pub globs: Vec<String>,
    /// Only these stores (repeatable or comma-separated; default: all).
    #[arg(long = "store", visible_alias = "stores", value_name = "STORE")]
    pub stores: Vec<String>,
    /// Most lines to show (0: all).
    #[arg(short = 'm', long, default_value_t = lore_engine::DEFAULT_MAX_LINES)]
    pub max_lines: usize,
}

impl GrepArgs {
    pub fn request(self) -> lore_engine::GrepRequest {
        lore_engine::GrepRequest {
            fixed: self.fixed_strings,
            ignore_case: self.ignore_case,
            stores: split_list(&self.stores),
            globs: self.globs,
            max_lines: self.max_lines,
            ..lore_engine::GrepRequest::new(self.pattern)
        }
    }
}

#[derive(Args, Debug)]
pub struct ImpactArgs {
    /// Changed symbols (names or qualified names).
    pub symbols: Vec<String>,
    /// A changed file (repeatable): every definition in it.
    #[arg(long = "file", value_name = "PATH")]
    pub files: Vec<String>,
    /// The change as a diff: a git revision to diff the working tree against (`HEAD~1`),
    /// or `-` for a unified diff on stdin.
    #[arg(long, value_name = "REV|-")]
    pub diff: Option<String>,
    /// How many calls up from the change.
    #[arg(long, default_value_t = lore_engine::DEFAULT_IMPACT_DEPTH)]
    pub depth: usize,
    /// Most units listed.
    #[arg(short = 'n', long, default_value_t = lore_engine::DEFAULT_IMPACT_LIMIT)]
    pub limit: usize,
    /// Only these stores (repeatable or comma-separated; default: all).
    #[arg(long = "store", visible_alias = "stores", value_name = "STORE")]
    pub stores: Vec<String>,
}

impl ImpactArgs {
    pub fn request(self) -> anyhow::Result<lore_engine::ImpactRequest> {
        use anyhow::Context as _;
        let diff = match self.diff.as_deref() {
            None => None,
            Some("-") => {
                let mut text = String::new();
                std::io::stdin()
                    .read_to_string(&mut text)
                    .context("reading the diff from stdin")?;
                Some(text)
            }
            Some(rev) => {
                let out = std::process::Command::new("git")
                    .args(["diff", "-U0", "--no-color", rev, "--"])
                    .output()
                    .context("running git diff")?;
                if !out.status.success() {
                    anyhow::bail!(
                        "git diff {rev} failed: {}",
                        String::from_utf8_lossy(&out.stderr).trim()
                    );
                }
                Some(String::from_utf8_lossy(&out.stdout).into_owned())
            }
        };
        Ok(lore_engine::ImpactRequest {
            symbols: self.symbols,
            files: self.files,
            diff,
            stores: split_list(&self.stores),
            depth: self.depth,
            limit: self.limit,
        })
    }
}
