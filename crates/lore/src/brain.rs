//! `lore brain write|query|ingest|ingest-raw|log`: the brain from the command line. Writes
//! take the writer lock for one command (and fail, naming it, while `lore serve` runs);
//! `log` appends without it.

use crate::cli::{Cli, ModeArg};
use clap::Subcommand;
use lore_engine::brain::{
    BrainAnswer, BrainIngested, BrainQuery, IngestRequest, Note, RawIngest, RawPage, SessionEntry,
};
use lore_engine::{Engine, EngineError, Mode};
use serde::Deserialize;
use std::io::Read;
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
        #[arg(long, value_enum)]
        mode: Option<ModeArg>,
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
    Log {
        session_id: String,
        #[arg(long)]
        skill: Option<String>,
        #[arg(long)]
        phase: Option<String>,
        #[arg(long)]
        project_root: Option<String>,
        #[arg(long)]
        final_status: Option<String>,
        #[arg(long)]
        file_path: Option<String>,
        #[arg(long)]
        model_used: Option<String>,
        #[arg(long)]
        duration_ms: Option<u64>,
        #[arg(long)]
        message: Option<String>,
    },
}

/// `text`, or stdin when it is `-` or absent.
fn text_or_stdin(text: Option<&str>, what: &str) -> anyhow::Result<String> {
    match text {
        Some(t) if t != "-" => Ok(t.to_string()),
        _ => {
            let mut buf = String::new();
            std::io::stdin()
                .read_to_string(&mut buf)
                .map_err(|e| EngineError::Input(format!("cannot read {what} from stdin: {e}")))?;
            Ok(buf)
        }
    }
}

/// What `ingest-raw` reads: the whole request, or only its pages.
#[derive(Deserialize)]
#[serde(untagged)]
enum RawInput {
    Request {
        #[serde(default)]
        source: Option<String>,
        pages: Vec<RawPage>,
        #[serde(default, alias = "dryRun")]
        dry_run: bool,
    },
    Pages(Vec<RawPage>),
}

fn print_json<T: serde::Serialize>(v: &T) -> anyhow::Result<()> {
    out!("{}", serde_json::to_string_pretty(v)?);
    Ok(())
}

fn print_ingested(json: bool, done: &BrainIngested) -> anyhow::Result<()> {
    if json {
        return print_json(done);
    }
    for w in &done.report.warnings {
        eprintln!("warning: {w}");
    }
    let verb = if done.report.dry_run {
        "would write"
    } else {
        "wrote"
    };
    out!(
        "{verb} {} pages from {} ({} new, {} merged, {} unchanged):",
        done.report.pages.len(),
        done.source,
        done.report.created,
        done.report.merged,
        done.report.unchanged
    );
    for p in &done.report.pages {
        out!("  {p}");
    }
    Ok(())
}

fn print_answer(json: bool, a: &BrainAnswer) -> anyhow::Result<()> {
    if json {
        return print_json(a);
    }
    if let Some(note) = &a.note {
        eprintln!("note: {note}");
    }
    if a.results.is_empty() {
        out!("nothing in the brain matches {:?}", a.query);
    }
    for (i, h) in a.results.iter().enumerate() {
        out!(
            "{:>2}. {:.3} {}:{}-{}  {}",
            i + 1,
            h.score,
            h.path,
            h.start_line,
            h.end_line,
            h.title
        );
        for line in h.snippet.lines() {
            out!("      │ {line}");
        }
    }
    Ok(())
}

pub fn run(cli: &Cli, engine: &mut Engine, command: &BrainCommand) -> anyhow::Result<()> {
    let json = cli.json;
    match command {
        BrainCommand::Write {
            content,
            filename,
            kind,
            domain,
        } => {
            let note = Note {
                content: text_or_stdin(content.as_deref(), "the note")?,
                filename: filename.clone(),
                kind: kind.clone(),
                domain: domain.clone(),
            };
            let w = engine.brain_write(&note)?;
            if json {
                return print_json(&w);
            }
            out!(
                "{} {} ({} bytes; indexed in {} ms{})",
                if w.note.created { "wrote" } else { "replaced" },
                w.note.path,
                w.note.bytes,
                w.indexed.elapsed_ms,
                if w.indexed.embedded {
                    ""
                } else {
                    ", keyword search only: no embedding model"
                }
            );
        }
        BrainCommand::Query { query, limit, mode } => {
            let q = BrainQuery {
                query: query.clone(),
                limit: *limit,
                mode: mode.map(|m| match m {
                    ModeArg::Hybrid => Mode::Hybrid,
                    ModeArg::Vector => Mode::Vector,
                    ModeArg::Fts => Mode::Fts,
                }),
            };
            print_answer(json, &engine.brain_query(&q)?)?;
        }
        BrainCommand::Ingest {
            path,
            content,
            source,
            dry_run,
        } => {
            let content = match content {
                Some(c) => Some(text_or_stdin(Some(c), "the content")?),
                None => None,
            };
            // The path as typed names the source; the file is read from the current folder.
            let typed = path.as_ref().map(|p| p.display().to_string());
            let path = match path {
                Some(p) => Some(std::env::current_dir()?.join(p)),
                None => None,
            };
            let req = IngestRequest {
                content,
                source: source.clone().or(typed),
                path,
                dry_run: *dry_run,
            };
            print_ingested(json, &engine.brain_ingest(&req)?)?;
        }
        BrainCommand::IngestRaw {
            file,
            source,
            dry_run,
        } => {
            let text = match file {
                Some(f) if f.as_os_str() != "-" => std::fs::read_to_string(f)
                    .map_err(|e| EngineError::Input(format!("cannot read {}: {e}", f.display())))?,
                _ => text_or_stdin(None, "the pages")?,
            };
            let input: RawInput = serde_json::from_str(&text).map_err(|e| {
                EngineError::Input(format!(
                    "the pages are not valid JSON ({e}); send {{\"source\": …, \"pages\": \
                     [{{\"title\": …, \"type\": …, \"content\": …}}]}}"
                ))
            })?;
            let req = match input {
                RawInput::Request {
                    source: s,
                    pages,
                    dry_run: d,
                } => RawIngest {
                    source: source.clone().or(s).unwrap_or_default(),
                    pages,
                    dry_run: *dry_run || d,
                },
                RawInput::Pages(pages) => RawIngest {
                    source: source.clone().unwrap_or_default(),
                    pages,
                    dry_run: *dry_run,
                },
            };
            print_ingested(json, &engine.brain_ingest_raw(&req)?)?;
        }
        BrainCommand::Log {
            session_id,
            skill,
            phase,
            project_root,
            final_status,
            file_path,
            model_used,
            duration_ms,
            message,
        } => {
            let entry = SessionEntry {
                session_id: session_id.clone(),
                skill: skill.clone(),
                phase: phase.clone(),
                project_root: project_root.clone(),
                final_status: final_status.clone(),
                file_path: file_path.clone(),
                model_used: model_used.clone(),
                duration_ms: *duration_ms,
                message: message.clone(),
            };
            let logged = engine.session_log(&entry)?;
            if json {
                return print_json(&logged);
            }
            out!("appended to {} at {}", logged.path, logged.timestamp);
        }
    }
    Ok(())
}
