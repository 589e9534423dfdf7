//! Splitting files into searchable chunks.
//!
//! * Code (36 languages: `lore_core::Language`; the script blocks of Vue and Svelte
//!   components) is parsed with tree-sitter: one chunk per top-level unit (function, class, impl, …) with its doc
//!   comment and attributes; units larger than [`ChunkOptions::max_chars`] are split at
//!   member boundaries (methods) or statement/line boundaries; everything between units
//!   becomes [`ChunkKind::Module`](lore_core::ChunkKind::Module) chunks. Runs of four or
//!   more one-line, undocumented consts/type aliases (generated bindings) share chunks
//!   (kind `Const`/`Type`, no symbol) instead of making one tiny chunk each.
//! * Markdown is split into heading sections (fenced code blocks are respected).
//! * Anything else, or code tree-sitter cannot make sense of, is cut into overlapping
//!   line windows.
//!
//! All functions are pure: no I/O, no global state except a per-thread parser cache, and
//! no panics on any input. Every non-whitespace byte of a file ends up in some chunk, and
//! chunk byte ranges never overlap except for the deliberate overlap of text windows.

mod c_macros;
mod code;
mod code_only;
mod embedded;
mod facts;
mod lang;
mod markdown;
mod patches;
mod text;

pub use code_only::code_only;
use lore_core::{Chunk, FileFacts, Language};
use std::path::Path;

/// Size knobs for [`chunk_file`]. All sizes are in characters (Unicode scalar values).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkOptions {
    /// A code unit or markdown section bigger than this is split.
    pub max_chars: usize,
    /// Target size of plain-text windows.
    pub window_chars: usize,
    /// How much consecutive plain-text windows overlap.
    pub overlap_chars: usize,
}

impl Default for ChunkOptions {
    fn default() -> Self {
        ChunkOptions {
            max_chars: 1600,
            window_chars: 1200,
            overlap_chars: 200,
        }
    }
}

/// Bumped whenever chunking, fact extraction or the graph's resolution changes what they
/// produce: stores analysed by another version are re-read on their next index run.
pub const ANALYZER_VERSION: i64 = 25;

/// Code files larger than this are not parsed but cut into text windows.
const MAX_PARSE_BYTES: usize = 4 << 20;

/// Splits one file into chunks. The language comes from the path's extension
/// ([`Language::from_path`]); `text` is the whole file. Chunks are returned in file order.
pub fn chunk_file(path: &Path, text: &str, opts: &ChunkOptions) -> Vec<Chunk> {
    let language = Language::from_path(path);
    chunk_text(language, text, opts)
}

/// Like [`chunk_file`] but with the language given explicitly.
pub fn chunk_text(language: Language, text: &str, opts: &ChunkOptions) -> Vec<Chunk> {
    analyze(language, "", text, opts, false).chunks
}

/// A file's chunks and, for code, its facts for the code graph.
#[derive(Debug, Clone, Default)]
pub struct Analysis {
    pub chunks: Vec<Chunk>,
    pub facts: FileFacts,
    /// Code the parser could not read (after lore's recovery): the definitions it holds
    /// are missing from the facts, and from the units when most of the file failed.
    pub parse_error: Option<ParseError>,
}

/// Where a code file stopped parsing, and how much of it was not parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line of the first error.
    pub line: u32,
    /// Bytes inside the parser's error nodes.
    pub bytes: usize,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "parse error at line {} ({} bytes not parsed)",
            self.line, self.bytes
        )
    }
}

/// Chunks a file and extracts its code facts (symbols, imports, references) from one
/// parse. `path` is the file's path relative to its store, `/`-separated.
pub fn analyze_file(path: &str, text: &str, opts: &ChunkOptions) -> Analysis {
    analyze(Language::from_path(Path::new(path)), path, text, opts, true)
}

fn analyze(
    language: Language,
    path: &str,
    text: &str,
    opts: &ChunkOptions,
    facts: bool,
) -> Analysis {
    if text.bytes().all(|b| b.is_ascii_whitespace()) {
        return Analysis::default();
    }
    let opts = ChunkOptions {
        max_chars: opts.max_chars.max(1),
        window_chars: opts.window_chars.max(1),
        overlap_chars: opts.overlap_chars,
    };
    let src = text::Src::new(text);
    match language {
        Language::Markdown => Analysis {
            chunks: markdown::chunk_markdown(&src, &opts),
            ..Analysis::default()
        },
        Language::Text => Analysis {
            chunks: text::text_windows(&src, language, &opts),
            ..Analysis::default()
        },
        code_lang => {
            let parsed = (text.len() <= MAX_PARSE_BYTES)
                .then(|| code::parse_code(&src, code_lang))
                .flatten();
            let Some(parsed) = parsed else {
                return Analysis {
                    chunks: text::text_windows(&src, code_lang, &opts),
                    ..Analysis::default()
                };
            };
            let parse_error = code::parse_error(&parsed.0);
            let chunks = code::chunk_code(&src, code_lang, &parsed, &opts)
                .unwrap_or_else(|| text::text_windows(&src, code_lang, &opts));
            let facts = if facts {
                // A component's script is read by its own language's rules.
                let rules = match code_lang {
                    Language::Vue | Language::Svelte => parsed.1,
                    l => l,
                };
                let mut f = facts::extract(&src, rules, parsed.1, &parsed.0, path);
                f.imports = facts::imports(&src, parsed.1, &parsed.0);
                f
            } else {
                FileFacts::default()
            };
            Analysis {
                chunks,
                facts,
                parse_error,
            }
        }
    }
}
