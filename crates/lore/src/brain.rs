//! `lore brain write|query|ingest|ingest-raw|log|list|show`: the brain from the command line. Writes
//! take the writer lock for one command (and fail, naming it, while `lore serve` runs);
//! `log` appends without it.

use crate::cli::BrainCommand;
use crate::output::print_json;
use lore_engine::brain::{
    BrainAnswer, BrainIngested, BrainQuery, IngestRequest, Note, RawIngest, RawPage,
};
use lore_engine::{Engine, EngineError};
use serde::Deserialize;
use std::io::Read;

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

/// No watcher serves the CLI: the brain is brought up to date before it is read (notes
/// edited by hand indexed, a shared brain's notes mirrored into this data dir). When a
/// server holds the data dir it keeps the brain current itself: said, not an error.
fn refresh(engine: &mut Engine) -> anyhow::Result<()> {
    match engine.brain_refresh() {
        Ok(_) => Ok(()),
        Err(e) => match e.locked_by() {
            Some(who) => {
                eprintln!("note: the brain was not brought up to date here: {who}");
                Ok(())
            }
            None => Err(e.into()),
        },
    }
}

pub fn run(engine: &mut Engine, json: bool, command: BrainCommand) -> anyhow::Result<()> {
    match command {
        BrainCommand::Write {
            content,
            filename,
            kind,
            domain,
        } => {
            let note = Note {
                content: text_or_stdin(content.as_deref(), "the note")?,
                filename,
                kind,
                domain,
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
            let q = BrainQuery { query, limit, mode };
            refresh(engine)?;
            print_answer(json, &engine.brain_query(&q)?)?;
        }
        BrainCommand::Ingest {
            path,
            content,
            source,
            dry_run,
        } => {
            let content = match content {
                Some(c) => Some(text_or_stdin(Some(&c), "the content")?),
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
                source: source.or(typed),
                path,
                dry_run,
            };
            print_ingested(json, &engine.brain_ingest(&req)?)?;
        }
        BrainCommand::IngestRaw {
            file,
            source,
            dry_run,
        } => {
            let text = match file {
                Some(f) if f.as_os_str() != "-" => std::fs::read_to_string(&f)
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
                    source: source.or(s).unwrap_or_default(),
                    pages,
                    dry_run: dry_run || d,
                },
                RawInput::Pages(pages) => RawIngest {
                    source: source.unwrap_or_default(),
                    pages,
                    dry_run,
                },
            };
            print_ingested(json, &engine.brain_ingest_raw(&req)?)?;
        }
        BrainCommand::List => {
            refresh(engine)?;
            let listing = engine.brain_files()?;
            if json {
                return print_json(&listing);
            }
            if listing.files.is_empty() {
                out!("the brain at {} is empty", engine.brain_dir().display());
            }
            for f in &listing.files {
                let date = f.updated.get(..10).unwrap_or(&f.updated);
                let tags: Vec<&str> = [f.kind.as_deref(), f.domain.as_deref()]
                    .into_iter()
                    .flatten()
                    .collect();
                out!("{date}  {:<48} {}  {}", f.path, f.title, tags.join(" · "));
            }
            if listing.truncated {
                eprintln!(
                    "note: only the newest {} files are listed",
                    listing.files.len()
                );
            }
        }
        BrainCommand::Show { path } => {
            refresh(engine)?;
            let doc = engine.brain_file(&path)?;
            if json {
                return print_json(&doc);
            }
            for (k, v) in &doc.frontmatter {
                out!("{k}: {v}");
            }
            if !doc.frontmatter.is_empty() {
                out!("");
            }
            if doc.events_cut {
                eprintln!("note: the log is long; its last events follow");
            }
            for e in &doc.events {
                out!("{e}");
            }
            if !doc.body.is_empty() {
                out!("{}", doc.body.trim());
            }
        }
        BrainCommand::Log(args) => {
            let logged = engine.session_log(&args.entry())?;
            if json {
                return print_json(&logged);
            }
            out!("appended to {} at {}", logged.path, logged.timestamp);
        }
    }
    Ok(())
}
