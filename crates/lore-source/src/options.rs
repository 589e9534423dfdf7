//! What a walk keeps (`WalkOptions`) and why it leaves a file out (`SkipReason`): the words
//! the filter, the tree and the walk share.

use crate::Reads;
use std::path::PathBuf;

/// What a walk keeps.
#[derive(Debug, Clone)]
pub struct WalkOptions {
    /// Globs over the relative path; empty means everything.
    pub includes: Vec<String>,
    pub excludes: Vec<String>,
    pub max_file_bytes: u64,
    /// Ignore files are not read (ripgrep's `--no-ignore`); hidden names are still skipped.
    pub no_ignore: bool,
    /// Folders never entered, by real path (lore's data dir and brain when a store's
    /// source holds them): listed in `Walk::left_out` when met.
    pub leave_out: Vec<PathBuf>,
    /// Where the root may resolve to (`Tree::open`); confined, files with several links
    /// are not listed.
    pub reads: Reads,
}

impl Default for WalkOptions {
    fn default() -> Self {
        WalkOptions {
            includes: Vec::new(),
            excludes: Vec::new(),
            max_file_bytes: 1024 * 1024,
            no_ignore: false,
            leave_out: Vec::new(),
            reads: Reads::Anywhere,
        }
    }
}

/// Why a file is not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkipReason {
    TooLarge(u64),
    Binary,
    NotUtf8,
    Unreadable(String),
    /// A regular file with this many links, where reads are confined (`--allow-path`): it
    /// shares its content with a file that may lie outside.
    HardLink(u64),
}

impl std::fmt::Display for SkipReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SkipReason::TooLarge(n) => write!(f, "too large ({n} bytes)"),
            SkipReason::Binary => write!(f, "binary"),
            SkipReason::NotUtf8 => write!(f, "not UTF-8"),
            SkipReason::Unreadable(e) => write!(f, "unreadable: {e}"),
            SkipReason::HardLink(n) => write!(
                f,
                "a hard link ({n} links), not read where reads are confined by --allow-path"
            ),
        }
    }
}
