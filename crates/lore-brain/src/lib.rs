//! The brain: what agents keep of what they learn, as plain files a person can read and
//! edit.
//!
//! ```text
//! <brain>/knowledge/…      notes (markdown, optional frontmatter: type, domain)
//! <brain>/wiki/<type>s/…   pages from ingestion (frontmatter: title, type, sources, updated)
//! <brain>/sessions/<id>.jsonl   session logs, one JSON line per event
//! ```
//!
//! This crate owns the files and their rules: names that never leave their folder (no
//! `..`, no absolute paths, no symlinks out), writes that are never half-done (temp file,
//! sync, rename), frontmatter, slugs, merging pages, planning ingestion before writing
//! anything, extracting text (markdown, text, HTML, PDF), asking an LLM for pages, and
//! appending session lines that never interleave. Indexing and search are the engine's.

mod browse;
mod error;
pub mod extract;
pub mod frontmatter;
mod fs;
pub mod ingest;
pub mod mirror;
mod notes;
mod session;
pub mod wiki;

pub use browse::{BrainDocument, BrainFile, BrainListing, MAX_LISTED};
pub use error::BrainError;
pub use extract::Format;
pub use notes::{Note, NoteWritten};
pub use session::{Logged, SessionEntry, session_line, validate_session_id};
pub use wiki::{IngestPlan, IngestReport, PAGE_TYPES, RawIngest, RawPage};

use lore_core::UtcTime;
use std::path::{Path, PathBuf};

/// Notes: `knowledge/`.
pub const KNOWLEDGE: &str = "knowledge";
/// Ingested pages: `wiki/`.
pub const WIKI: &str = "wiki";
/// Session logs: `sessions/` (not searched).
pub const SESSIONS: &str = "sessions";

/// Largest note or page written, in bytes (larger files would not be indexed).
pub const MAX_FILE_BYTES: usize = 1_000_000;

/// What a brain store indexes: markdown under `knowledge/` and `wiki/`. Session logs are
/// not searched: they are event records, many small lines that would crowd out notes and
/// cost an embedding run on every append.
pub fn index_globs() -> Vec<String> {
    vec![format!("{KNOWLEDGE}/**/*.md"), format!("{WIKI}/**/*.md")]
}

/// A brain dir.
#[derive(Debug, Clone)]
pub struct Brain {
    root: PathBuf,
}

impl Brain {
    pub fn new(root: impl Into<PathBuf>) -> Brain {
        Brain { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Creates the brain dir and its three folders.
    pub fn init(&self) -> Result<(), BrainError> {
        for area in [KNOWLEDGE, WIKI, SESSIONS] {
            let dir = self.root.join(area);
            std::fs::create_dir_all(&dir)
                .map_err(|e| BrainError::io(dir.display().to_string(), e))?;
        }
        Ok(())
    }

    /// The title of a page: its frontmatter `title`, else its first `# ` heading, else its
    /// file name without `.md`.
    pub fn title_of(text: &str, path: &str) -> String {
        let (fm, body) = frontmatter::Frontmatter::split(text);
        if let Some(t) = fm.as_ref().and_then(|f| f.get("title")).map(str::trim)
            && !t.is_empty()
        {
            return t.to_string();
        }
        if let Some(h) = body
            .lines()
            .find_map(|l| l.strip_prefix("# "))
            .map(str::trim)
            .filter(|h| !h.is_empty())
        {
            return h.to_string();
        }
        let name = path.rsplit('/').next().unwrap_or(path);
        name.strip_suffix(".md").unwrap_or(name).to_string()
    }
}

/// A document for `ingest`: its text and where it came from.
#[derive(Debug, Clone)]
pub struct Document {
    pub source: String,
    pub text: String,
    pub format: Format,
}

impl Document {
    /// `content` with its `source` (converted when the source's name or the content says
    /// HTML).
    pub fn from_content(content: &str, source: &str) -> Result<Document, BrainError> {
        let source = source.trim();
        if source.is_empty() {
            return Err(BrainError::Input(
                "`source` is required with `content`: say where the text comes from".into(),
            ));
        }
        if content.trim().is_empty() {
            return Err(BrainError::Input(
                "`content` is empty; send the text to ingest".into(),
            ));
        }
        let format = match extract::detect(source, content.as_bytes()) {
            // Content arrives as text: a PDF's bytes cannot come this way.
            extract::Format::Pdf => extract::Format::Text,
            f => f,
        };
        Ok(Document {
            source: source.to_string(),
            text: extract::to_text(content.as_bytes(), format, source)?,
            format,
        })
    }

    /// A file read and converted; its source is its path as given.
    pub fn from_path(path: &Path, shown: &str) -> Result<Document, BrainError> {
        let (text, format) = extract::read_file(path)?;
        Ok(Document {
            source: shown.to_string(),
            text,
            format,
        })
    }
}

/// UTC now as `2026-11-30T10:15:00Z`.
pub(crate) fn now_rfc3339() -> String {
    UtcTime::now().rfc3339()
}

/// UTC now as `2026-11-30T10:15:00.123Z`.
pub(crate) fn now_rfc3339_millis() -> String {
    let now = std::time::SystemTime::now();
    let t = UtcTime::from_system(now);
    let millis = now
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_millis())
        .unwrap_or(0);
    let base = t.rfc3339();
    let base = base.strip_suffix('Z').unwrap_or(&base);
    format!("{base}.{millis:03}Z")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles() {
        assert_eq!(Brain::title_of("---\ntitle: T\n---\n# H\n", "x/y.md"), "T");
        assert_eq!(Brain::title_of("intro\n# Heading\n", "x/y.md"), "Heading");
        assert_eq!(Brain::title_of("no heading", "knowledge/a/b.md"), "b");
    }

    #[test]
    fn documents() {
        let d = Document::from_content("<p>Hello <i>there</i></p>", "page.html").unwrap();
        assert_eq!(d.format, Format::Html);
        assert_eq!(d.text.trim(), "Hello *there*");
        assert!(Document::from_content("text", " ").is_err());
        assert!(Document::from_content("  ", "s").is_err());
        let d = Document::from_content("%PDF-1.4 pasted", "x").unwrap();
        assert_eq!(d.format, Format::Text);
    }
}
