//! Flags of `lore brain`.

use super::modes;
use clap::{Args, Subcommand};
use lore_engine::Mode;
use lore_engine::brain::SessionEntry;
use std::path::PathBuf;

#[derive(Subcommand, Debug)]
pub enum BrainCommand {
    /// Write a note to knowledge/ and index it (the text from CONTENT, or stdin when it is
    /// `-` or absent).
    Write {
        content: Option<String>,
        /// Under knowledge/; `.md` is appended when missing (default: a UTC timestamp).
        #[arg(long)]
        filename: Option<String>,
        /// Frontmatter `type` (insight, bug, decision, …).
        #[arg(long = "type", value_name = "TYPE")]
        kind: Option<String>,
        /// Frontmatter `domain` (rust, billing, …).
        #[arg(long)]
        domain: Option<String>,
    },
    /// Search the brain's notes and wiki pages.
    Query {
        query: String,
        #[arg(long, short = 'n', default_value_t = 5)]
        limit: usize,
        /// Default hybrid (keyword search when the embedding model is missing).
        #[arg(long, value_parser = modes())]
        mode: Option<Mode>,
    },
    /// Turn a document (markdown, text, HTML, PDF) into wiki pages with the LLM set in
    /// LORE_LLM_URL and LORE_LLM_MODEL: give PATH, or --content with --source.
    Ingest {
        path: Option<PathBuf>,
        /// The text itself (`-` reads stdin).
        #[arg(long)]
        content: Option<String>,
        /// Where the text comes from (required with --content; default for PATH: the path).
        #[arg(long)]
        source: Option<String>,
        /// Show the pages and warnings; write nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Add wiki pages from JSON — {"source": …, "pages": [{"title", "type", "content"}]} or
    /// just the pages list — read from FILE or stdin.
    IngestRaw {
        file: Option<PathBuf>,
        /// Sets (or overrides) the JSON's source.
        #[arg(long)]
        source: Option<String>,
        /// Show the pages and warnings; write nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Append an event to sessions/SESSION_ID.jsonl (with a UTC timestamp).
    Log(LogArgs),
    /// List the notes (knowledge/), wiki pages (wiki/) and session logs (sessions/), newest
    /// first, with their type, domain and date.
    List,
    /// Print one brain file: its frontmatter and markdown, or a session log's events.
    Show {
        /// Relative to the brain dir: knowledge/…, wiki/… or sessions/….
        path: String,
    },
}

#[derive(Args, Debug)]
pub struct LogArgs {
    pub session_id: String,
    #[arg(long)]
    pub skill: Option<String>,
    #[arg(long)]
    pub phase: Option<String>,
    #[arg(long)]
    pub project_root: Option<String>,
    #[arg(long)]
    pub final_status: Option<String>,
    #[arg(long)]
    pub file_path: Option<String>,
    #[arg(long)]
    pub model_used: Option<String>,
    #[arg(long)]
    pub duration_ms: Option<u64>,
    #[arg(long)]
    pub message: Option<String>,
}

impl LogArgs {
    pub fn entry(self) -> SessionEntry {
        SessionEntry {
            session_id: self.session_id,
            skill: self.skill,
            phase: self.phase,
            project_root: self.project_root,
            final_status: self.final_status,
            file_path: self.file_path,
            model_used: self.model_used,
            duration_ms: self.duration_ms,
            message: self.message,
        }
    }
}
